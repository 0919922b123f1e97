/**
 * The Coordinator's flushes over an asynchronous store, on a real SQLite file: the store's transactions are
 * SQLite's (db/sqlite-crawl-store.ts), behind a gate that can hold a transaction before it begins, as a network
 * engine's round trips would. What is asserted is what a crawl would show: results that arrive while a
 * flush is in flight are stored by the next one, nothing lost; the primary never runs two transactions at
 * once; a transaction that fails leaves memory (the windows, Domains' counts) as it was and the intents
 * queued, stored once the database takes them.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlStore } from '../../db/crawl-store.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { fetchResult, parsedPage } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import type { FetchJob } from '../common/protocol.ts';
import { Coordinator } from './coordinator.ts';

const DELAY_MS = 100;
const A = 'https://a.example';
const B = 'https://b.example';
const T0 = 10_000;

/** SQLite's crawl store whose transactions wait at a gate before they begin while it is held; it counts them. */
function gatedStore(inner: CrawlStore) {
  let gate: Promise<void> | null = null;
  let open = () => {};
  let arrived = () => {};
  const seen = { running: 0, most: 0, begun: 0, revisitReads: 0, revisitBatchReads: 0 };
  const store: CrawlStore = {
    ...inner,
    async transaction(write) {
      seen.running++;
      seen.most = Math.max(seen.most, seen.running);
      try {
        arrived();
        if (gate) await gate;
        seen.begun++;
        await inner.transaction((tx) =>
          write({
            ...tx,
            revisits: {
              ...tx.revisits,
              revisitOf: (url) => {
                seen.revisitReads++;
                return tx.revisits.revisitOf(url);
              },
              revisitsOf: (urls) => {
                seen.revisitBatchReads++;
                return tx.revisits.revisitsOf(urls);
              },
            },
          }),
        );
      } finally {
        seen.running--;
      }
    },
  };
  return {
    store,
    seen,
    /** Holds the next transactions at the gate; resolves once one is waiting there (its batch taken). */
    hold(): Promise<void> {
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      return new Promise<void>((resolve) => {
        arrived = resolve;
      });
    },
    release() {
      gate = null;
      open();
    },
  };
}

describe('coordinator: flushes over an asynchronous store', () => {
  let tmp: TempDatabase;
  let gated: ReturnType<typeof gatedStore>;
  let c: Coordinator;

  beforeEach(async () => {
    tmp = tempDatabase('async-flush');
    for (const origin of [A, B])
      seedQueries(tmp.db).upsertSeed({ url: `${origin}/`, origin, depth: 2, scope: 'any' }, 1000);
    gated = gatedStore(sqliteCrawlStore(tmp.db));
    c = new Coordinator(gated.store, loadConfig({ DATA_DIR: tmp.dir, CRAWL_DELAY_MS: String(DELAY_MS) }), 'run');
    await c.start(T0);
  });
  afterEach(() => tmp.cleanup());

  /** Both hosts' robots.txt answered 404 at T0 + 10 and stored; returns their home pages' jobs, handed out when due. */
  async function homes(): Promise<Map<string, FetchJob>> {
    for (let job = c.dispatch(T0); job; job = c.dispatch(T0))
      c.onResult(fetchResult(job.jobId, { status: 404 }), T0 + 10);
    await c.flush(T0 + 10);
    const out = new Map<string, FetchJob>();
    for (let job = c.dispatch(T0 + 10 + DELAY_MS); job; job = c.dispatch(T0 + 10 + DELAY_MS)) out.set(job.origin, job);
    assert.deepEqual([...out.keys()].sort(), [A, B]);
    return out;
  }

  const home = (origin: string, links: string[]) => ({ page: parsedPage(`${origin}/`, links, { title: origin }) });
  const pages = () => tmp.db.prepare('SELECT url, fetched_at AS at FROM pages ORDER BY url').all();
  const queued = () =>
    tmp.db
      .prepare(`SELECT url FROM frontier WHERE state = 'queued' ORDER BY url`)
      .all()
      .map((r) => (r as { url: string }).url);

  test("a flush reads its pages' revisit states in one statement, not two reads per page (a round trip each on PostgreSQL)", async () => {
    const jobs = await homes();
    const t1 = T0 + 200;
    const before = { ...gated.seen };
    c.onResult(fetchResult(jobs.get(A)!.jobId, home(A, [`${A}/a`])), t1);
    c.onResult(fetchResult(jobs.get(B)!.jobId, home(B, [`${B}/b`])), t1);
    assert.equal(await c.flush(t1), 2);
    assert.equal(gated.seen.revisitBatchReads - before.revisitBatchReads, 1, 'one read for the batch');
    assert.equal(gated.seen.revisitReads - before.revisitReads, 0, 'no read per page');
    // What was read ahead and written in the batch is what the store holds: each page's state, once.
    const states = tmp.db.prepare('SELECT url, visited_at AS at FROM revisits ORDER BY url').all();
    assert.deepEqual(states, [
      { url: `${A}/`, at: t1 },
      { url: `${B}/`, at: t1 },
    ]);
  });

  test('results that arrive while a flush is in flight are stored by the next one, one transaction at a time, nothing lost', async () => {
    const jobs = await homes();
    const begunBefore = gated.seen.begun;
    const t1 = T0 + 200;
    const t2 = T0 + 230;
    const atGate = gated.hold(); // the next transaction waits before it begins, as on a slow network
    c.onResult(fetchResult(jobs.get(A)!.jobId, home(A, [`${A}/a`])), t1);
    const first = c.flush(t1);
    await atGate;
    assert.equal(c.flushing(), true, 'the flush is in flight, its batch taken');
    // Meanwhile: B's result arrives, and a second flush is asked for.
    c.onResult(fetchResult(jobs.get(B)!.jobId, home(B, [`${B}/b`])), t2);
    assert.equal(c.hasWrites(), true, "B's writes wait for the next batch");
    const second = c.flush(t2);
    gated.release();
    assert.deepEqual(await Promise.all([first, second]), [1, 1], 'each flush stored one page');
    assert.equal(gated.seen.most, 1, 'never two transactions at once');
    assert.equal(gated.seen.begun - begunBefore, 2, 'two transactions, one per flush');
    assert.deepEqual(
      pages(),
      [
        { url: `${A}/`, at: t1 },
        { url: `${B}/`, at: t2 },
      ],
      "A's page by the flush in flight, B's by the one after it",
    );
    assert.deepEqual(queued(), [`${A}/a`, `${B}/b`], 'the links of both pages are queued');
    assert.equal(c.flushing(), false);
    const next = new Set<string>();
    for (let job = c.dispatch(t2 + DELAY_MS); job; job = c.dispatch(t2 + DELAY_MS)) next.add(job.url);
    assert.deepEqual([...next].sort(), [`${A}/a`, `${B}/b`], 'and handed out when their hosts are due');
  });

  test('a transaction that fails leaves memory as it was and its intents queued; they are stored once the database takes them', async () => {
    const jobs = await homes();
    const t = T0 + 200;
    c.onResult(fetchResult(jobs.get(A)!.jobId, home(A, [`${A}/a`, `${B}/x`])), t);
    // The batch's last statement (the seeds' host counts: A reached a second host) is refused: every intent
    // of it ran before the error, so memory would show them had it learned anything before the commit.
    tmp.db.exec(
      `CREATE TRIGGER refuse BEFORE INSERT ON seed_hosts BEGIN SELECT RAISE(ABORT, 'test: the database refuses'); END`,
    );
    const before = c.snapshot(t, 1);
    await assert.rejects(() => c.flush(t), /test: the database refuses/);
    assert.deepEqual(c.snapshot(t, 1), before, "Domains' counts and hosts as before the flush");
    assert.equal(c.dispatch(t + 10 * DELAY_MS), undefined, "nothing handed out: A's links are not in memory");
    assert.deepEqual(pages(), [], 'nothing stored');
    assert.deepEqual(queued(), [`${A}/`, `${B}/`], "no link on disk (nor the homes' leases: they were in the batch)");
    assert.equal(c.hasWrites(), true, 'the intents are still queued');

    tmp.db.exec('DROP TRIGGER refuse');
    assert.equal(await c.flush(t + 20), 1, 'the same batch, stored in full');
    assert.deepEqual(queued(), [`${A}/a`, `${B}/x`]);
    assert.equal(c.dispatch(t + 20 + 10 * DELAY_MS)?.url, `${A}/a`, 'its link is handed out');
  });
});
