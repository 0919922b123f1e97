/**
 * The frontier's window on a real SQLite file with the real scheduler, driven by hand the way the
 * coordinator drives it (take, lease, finish or retry, flush): a small window (4 jobs, refilled below 2)
 * so that every test crosses many refills. What is asserted is what a crawl would do: which URL each host
 * gets next, that none is lost or handed out twice, and the queued counts Domains shows.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { openDatabase } from '../../db/open.ts';
import { frontierQueries, type FrontierRow } from '../../db/frontier.ts';
import { Scheduler } from '../politeness/scheduler.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { FrontierWindow, type WindowSizes } from './frontier-window.ts';
import { windowCap } from './window-sizes.ts';
import type { CrawlJob } from '../common/crawl-job.ts';

const A = 'https://a.example';
const B = 'https://b.example';
const SIZES = { size: 4, low: 2, syncBelow: 1, readBudget: 8, perFlush: 100, startHosts: 1 };

interface Taken {
  origin: string;
  job: CrawlJob;
}

/** The coordinator's part, by hand: one frontier, one scheduler, one window, writes batched until `flush`. */
class Crawl {
  readonly frontier;
  readonly scheduler: Scheduler<CrawlJob>;
  readonly live = new Set<number>();
  readonly window: FrontierWindow;
  private writes: Array<() => void> = [];

  constructor(
    readonly db: Database,
    sizes: Partial<WindowSizes> = SIZES,
    delayMs = 0,
  ) {
    this.scheduler = new Scheduler<CrawlJob>(delayMs);
    this.frontier = frontierQueries(db);
    this.window = new FrontierWindow({
      scheduler: this.scheduler,
      isLive: (id) => this.live.has(id),
      sizes,
      source: {
        queuedAfterMany: async (reads) => this.frontier.queuedAfterMany(reads),
        queuedCount: async (origin) => this.frontier.queuedCount(origin),
        read: async (read) => {
          db.exec('BEGIN');
          try {
            await read();
          } finally {
            db.exec('COMMIT');
          }
        },
      },
    });
  }

  seed(id: number): void {
    this.db
      .prepare(
        `INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at) VALUES (?, ?, ?, 3, 'any', 1, 1)`,
      )
      .run(id, `${A}/seed-${id}`, A);
    this.live.add(id);
  }

  /** Loads the windows as at start, from the database's counts. */
  async load(): Promise<void> {
    await this.window.load(this.frontier.countsByOrigin().filter((c) => c.state === 'queued'));
  }

  /** Counts what the window reads from now on: rows, hosts' reads, and calls to storage (each a round trip on PostgreSQL). */
  countReads(): { rows: number; hostReads: number; calls: number } {
    const counter = { rows: 0, hostReads: 0, calls: 0 };
    const read = this.frontier.queuedAfterMany;
    this.frontier.queuedAfterMany = (reads) => {
      const answers = read(reads);
      counter.calls++;
      counter.hostReads += reads.length;
      for (const rows of answers) counter.rows += rows.length;
      return answers;
    };
    return counter;
  }

  /** Stores URLs as a flush would, and tells the window once they are committed. */
  add(origin: string, paths: readonly string[], seedId = 1): FrontierRow[] {
    const rows = this.db.transaction(() =>
      paths.map((p) => this.frontier.addUrl({ url: `${origin}${p}`, origin, seedId, depth: 1, redirects: 0 }, 1)!),
    )();
    for (const row of rows) this.window.arrived(row);
    return rows;
  }

  /** The next job handed out at `now` (a removed seed's jobs are dropped on the way, as the coordinator does). */
  next(now = 0): Taken | undefined {
    for (;;) {
      const d = this.scheduler.next(now);
      if (!d) return undefined;
      const live = this.live.has(d.job.seedId);
      this.window.taken(d.origin, d.job, live);
      if (!live) {
        this.scheduler.complete(d.origin, -Infinity);
        this.window.readyAgain(d.origin);
        continue;
      }
      this.frontier.leaseUrl(d.job.frontierId, 'run', now);
      return { origin: d.origin, job: d.job };
    }
  }

  finish(t: Taken, now = 0): void {
    this.scheduler.complete(t.origin, now);
    this.window.readyAgain(t.origin); // as the coordinator does when a request ends
    this.writes.push(() => this.frontier.finishUrl(t.job.frontierId, 'done', null, now));
  }

  retry(t: Taken, at: number, now = 0): void {
    this.scheduler.complete(t.origin, now);
    this.window.readyAgain(t.origin);
    const attempts = t.job.attempts + 1;
    this.window.retry(t.origin, { ...t.job, attempts, notBefore: at });
    this.writes.push(() => this.frontier.retryUrl(t.job.frontierId, attempts, at, 'HTTP 503'));
  }

  push(write: () => void): void {
    this.writes.push(write);
  }

  async flush(): Promise<void> {
    const writes = this.writes;
    this.writes = [];
    this.db.transaction(() => writes.forEach((w) => void w()))();
    await this.window.committed();
  }

  /** Hands out and finishes every job due at `now`, flushing after each; returns their paths in order. */
  async drain(now = 0, each: (t: Taken) => void = (t) => this.finish(t, now)): Promise<string[]> {
    const seen: string[] = [];
    for (let t = this.next(now); t; t = this.next(now)) {
      seen.push(new URL(t.job.url).pathname);
      each(t);
      await this.flush();
    }
    return seen;
  }

  queuedInDb(origin: string): number {
    return (
      this.db.prepare(`SELECT COUNT(*) AS n FROM frontier WHERE origin = ? AND state = 'queued'`).get(origin) as {
        n: number;
      }
    ).n;
  }

  /** Page jobs of the host in the scheduler's queue. */
  inScheduler(origin: string): number {
    return this.scheduler.hasQueued(origin) ? this.scheduler.host(origin).queue.length : 0;
  }
}

const paths = (n: number, prefix = '/p') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('FrontierWindow', () => {
  let dir: string;
  let db: Database;
  let crawl: Crawl;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-window-'));
    db = openDatabase(dir);
    crawl = new Crawl(db);
    crawl.seed(1);
    await crawl.load();
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test("a host's URLs come out in the order they were found, across many refills, with only a window of them in memory", async () => {
    crawl.add(A, paths(30));
    assert.equal(crawl.inScheduler(A), SIZES.size, 'the scheduler holds a window, not the 30 URLs');
    const order: string[] = [];
    for (let t = crawl.next(); t; t = crawl.next()) {
      assert.ok(crawl.inScheduler(A) <= SIZES.size, 'never more than the window');
      order.push(new URL(t.job.url).pathname);
      crawl.finish(t);
      await crawl.flush();
    }
    assert.deepEqual(order, paths(30));
  });

  test('retries wait in the database and come after the fresh URLs, by their time, whatever order they failed in', async () => {
    crawl.add(A, paths(12));
    const times = new Map([
      ['/p1', 3000],
      ['/p2', 1000],
      ['/p3', 2000],
    ]);
    const first = await crawl.drain(0, (t) => {
      const at = times.get(new URL(t.job.url).pathname);
      if (at !== undefined && t.job.attempts === 0) crawl.retry(t, at);
      else crawl.finish(t);
    });
    assert.deepEqual(first, paths(12), 'the retries are not due at 0');
    assert.equal(crawl.window.waiting(A), 3);
    assert.deepEqual(await crawl.drain(5000), ['/p2', '/p3', '/p1'], 'by next_attempt_at');
    assert.equal(crawl.window.waiting(A), 0);
  });

  test('a retry due at once after a worker died is handed out again without waiting for a flush', async () => {
    crawl.add(A, ['/only']);
    const t = crawl.next()!;
    crawl.retry(t, 10); // written with the next batch; no flush yet
    assert.equal(crawl.next(10)?.job.url, `${A}/only`);
  });

  test('a retry written while the window is full is placed once its batch is committed, not lost', async () => {
    crawl.add(A, paths(4)); // the whole queue fits the window
    const t = crawl.next()!;
    crawl.add(A, ['/n']); // the window is full again
    crawl.retry(t, 1000); // after the cursor, no room: placed once written
    await crawl.flush();
    assert.deepEqual(await crawl.drain(0), ['/p1', '/p2', '/p3', '/n']);
    assert.deepEqual(await crawl.drain(1000), ['/p0']);
  });

  test('a host whose window empties while the database still has rows gets the next ones from the next flush, nothing lost', async () => {
    crawl.add(A, paths(10));
    const got: string[] = [];
    let flushes = 0;
    // No write asks for a flush here (finish's writes aside): only the window, once it ran dry and its request ended.
    for (;;) {
      const t = crawl.next();
      if (!t) {
        if (!crawl.window.needsFlush) break;
        assert.equal(crawl.inScheduler(A), 0, 'a flush is asked for only once the window ran dry');
        await crawl.flush(); // reads the dry host first (FrontierWindow.readyAgain): its next job waits one flush
        flushes++;
        continue;
      }
      got.push(new URL(t.job.url).pathname);
      crawl.finish(t);
    }
    assert.deepEqual(got, paths(10), 'every URL once, in order');
    assert.equal(flushes, 2, 'a window of 4 runs dry twice over 10 URLs (the second read finds the end of its queue)');
  });

  test('a window running low is refilled by the next flush, before it runs dry', async () => {
    const big = new Crawl(db, { ...SIZES, low: 4 });
    await big.load(); // reads nothing yet: the host has no URLs
    big.live.add(1);
    big.add(B, paths(10));
    const t = big.next()!;
    assert.equal(big.inScheduler(B), 3, 'below low after one job');
    assert.equal(big.window.needsFlush, true, 'the refill waits for the flush');
    big.finish(t);
    await big.flush();
    assert.equal(big.inScheduler(B), 4, 'refilled with the batch');
  });

  test('a URL found while the window is full waits in the database and comes in its turn; a URL found while the window holds only retries goes first', async () => {
    crawl.add(A, paths(6));
    const first = crawl.next()!;
    crawl.add(A, ['/new']); // found by the page in flight
    assert.equal(crawl.inScheduler(A), 3, 'the window is not grown past its size by /new');
    assert.equal(crawl.window.waiting(A), 6);
    crawl.finish(first);
    await crawl.flush();
    assert.deepEqual(await crawl.drain(), [...paths(6).slice(1), '/new']);

    // Everything fetched but two retries due later: a new URL does not wait behind them.
    crawl.add(A, ['/x', '/y']);
    await crawl.drain(0, (t) => crawl.retry(t, 9000));
    crawl.add(A, ['/z']);
    assert.deepEqual(await crawl.drain(0), ['/z']);
    assert.deepEqual(await crawl.drain(9000), ['/x', '/y']);
  });

  test('URLs queued again before the cursor (a seed crawled again) overflow the window only until the flush trims it; none is lost', async () => {
    crawl.add(A, paths(20));
    const done = (await crawl.drain()).length;
    assert.equal(done, 20);
    crawl.add(A, paths(10, '/q'));
    const t = crawl.next()!; // /q0 in flight; the window holds /q1../q4 and the cursor is at /q4
    // The seed is crawled again: /p0../p19 (before the cursor) are queued again, and arrive.
    const again = db
      .prepare(
        `UPDATE frontier SET state = 'queued', attempts = 0, next_attempt_at = 0 WHERE url LIKE '%/p%' RETURNING id, url, origin, seed_id AS seedId, depth, attempts, next_attempt_at AS nextAttemptAt, redirects, 1 AS finishedBefore`,
      )
      .all() as FrontierRow[];
    for (const row of again) crawl.window.arrived(row);
    assert.ok(crawl.inScheduler(A) > SIZES.size, 'entered before the cursor');
    crawl.finish(t);
    await crawl.flush();
    assert.ok(crawl.inScheduler(A) <= SIZES.size, 'trimmed by the flush');
    const rest = await crawl.drain();
    assert.deepEqual([...rest].sort(), [...paths(20), ...paths(10, '/q').slice(1)].sort(), 'every URL once');
    assert.deepEqual(rest.slice(0, 4), ['/p0', '/p1', '/p2', '/p3'], 'the oldest first once trimmed');
  });

  test("removing a seed mid-window: its entries leave with its deleted rows, the other seed's URLs on the host go on in order, counts follow", async () => {
    crawl.seed(2);
    for (let i = 0; i < 12; i++) crawl.add(A, [`/s${(i % 2) + 1}-${i}`], (i % 2) + 1);
    const t = crawl.next()!;
    assert.equal(t.job.url, `${A}/s1-0`);
    crawl.live.delete(2); // removed: the coordinator's SeedBook forgets it at once
    crawl.push(() => crawl.window.deleted(2, crawl.frontier.dropSeedChunk(2, 4))); // the first chunk of its rows
    crawl.finish(t);
    await crawl.flush();
    assert.equal(crawl.window.waiting(A), crawl.queuedInDb(A), 'the deleted rows left the count');
    crawl.push(() => crawl.window.deleted(2, crawl.frontier.dropSeedChunk(2, 100)));
    await crawl.flush();
    assert.equal(crawl.window.waiting(A), 5);
    assert.deepEqual(await crawl.drain(), ['/s1-2', '/s1-4', '/s1-6', '/s1-8', '/s1-10']);
    assert.equal(crawl.queuedInDb(A), 0);
  });

  test("a removed seed's rows are passed over without stalling: a long run of them is crossed over several flushes", async () => {
    crawl.seed(2);
    crawl.add(A, paths(40, '/dead'), 2);
    crawl.add(A, ['/alive'], 1);
    crawl.live.delete(2);
    const read = crawl.countReads();
    let dispatched: string[] = [];
    let flushes = 0;
    for (; flushes < 10 && dispatched.length === 0; flushes++) {
      read.rows = 0;
      dispatched = await crawl.drain();
      assert.ok(
        read.rows <= SIZES.readBudget,
        `one dispatch read ${read.rows} rows, more than the budget of ${SIZES.readBudget}`,
      );
      await crawl.flush();
    }
    assert.deepEqual(dispatched, ['/alive']);
    assert.ok(flushes > 1, 'crossed over several flushes');
  });

  test("a removed seed's long run of rows is crossed in a few reads, each twice as long as the last", async () => {
    crawl = new Crawl(db, { ...SIZES, readBudget: 64 });
    crawl.live.add(1); // the seed the first Crawl added
    crawl.seed(2);
    await crawl.load();
    crawl.add(A, paths(40, '/dead'), 2);
    crawl.add(A, ['/alive'], 1);
    crawl.live.delete(2);
    crawl.window.seedRemoved(2);
    const read = crawl.countReads();
    let dispatched: string[] = [];
    for (let flushes = 0; flushes < 10 && dispatched.length === 0; flushes++) {
      await crawl.flush();
      dispatched = await crawl.drain();
    }
    assert.deepEqual(dispatched, ['/alive']);
    assert.ok(
      read.hostReads <= 5,
      `40 removed rows crossed in ${read.hostReads} reads (4, 8, 16, 32 rows), not 10 of 4`,
    );
  });

  test("a flush's refills pass over a bounded number of a removed seed's rows; the live rows behind them all come in turn", async () => {
    crawl = new Crawl(db, { ...SIZES, passOverPerStep: 8 });
    crawl.live.add(1); // the seed the first Crawl added
    crawl.seed(2);
    await crawl.load();
    const hosts = Array.from({ length: 5 }, (_, i) => `https://h${i}.example`);
    for (const origin of hosts) {
      crawl.add(origin, paths(8, '/dead'), 2);
      crawl.add(origin, ['/alive'], 1);
    }
    crawl.live.delete(2);
    crawl.window.seedRemoved(2);
    const read = crawl.countReads();
    await crawl.flush();
    assert.ok(read.rows <= 8 + SIZES.readBudget, `one flush read ${read.rows} rows of 45 (budget 8, and one fill's)`);
    const alive: string[] = [];
    for (let flushes = 0; flushes < 20 && alive.length < hosts.length; flushes++) {
      alive.push(...(await crawl.drain()));
      await crawl.flush();
    }
    assert.deepEqual(alive, Array(hosts.length).fill('/alive'));
  });

  test("a removed seed's jobs leave the scheduler when it is removed, and come back in order if it is submitted again", async () => {
    crawl.seed(2);
    crawl.add(A, paths(3, '/a'), 1);
    crawl.add(B, paths(3, '/b'), 2);
    crawl.add(A, paths(3, '/c'), 2);
    crawl.live.delete(2);
    crawl.window.seedRemoved(2);
    assert.equal(crawl.inScheduler(B), 0, "none of the removed seed's jobs is left to meet in a dispatch");
    assert.equal(crawl.inScheduler(A), 3, "the other seed's jobs on a shared host stay");
    assert.equal(crawl.window.waiting(B), 3, 'still counted until their rows are deleted');
    crawl.live.add(2);
    crawl.window.revived(2);
    await crawl.flush();
    assert.deepEqual((await crawl.drain()).sort(), [...paths(3, '/a'), ...paths(3, '/b'), ...paths(3, '/c')].sort());
  });

  test('a seed submitted again before its rows were all deleted: the rows passed over are read again', async () => {
    crawl.seed(2);
    crawl.add(A, paths(10), 2);
    crawl.live.delete(2);
    assert.deepEqual(await crawl.drain(), [], 'removed: nothing handed out');
    crawl.live.add(2);
    crawl.window.revived(2);
    await crawl.flush();
    assert.deepEqual(await crawl.drain(), paths(10));
  });

  test("a restart reads each host's count and first window only, skips a removed seed's rows, and goes on in order", async () => {
    crawl.add(A, paths(10));
    crawl.add(B, paths(3));
    crawl.seed(2);
    crawl.add(B, ['/gone'], 2);
    const t = crawl.next()!; // leased when the primary dies
    assert.equal(t.origin, A);

    crawl.frontier.returnAllLeases();
    const again = new Crawl(db);
    again.live.add(1);
    await again.load();
    assert.deepEqual([again.inScheduler(A), again.inScheduler(B)], [SIZES.size, 0], "the first host's window only");
    assert.equal(again.window.waiting(A), 10);
    assert.equal(again.window.waiting(B), 4, 'counted until deleted');
    await again.flush();
    assert.equal(
      again.inScheduler(B),
      3,
      "the other host's window (without the removed seed's row) with the first flush",
    );
    assert.equal(again.window.waiting(B), 4, 'counted until deleted');
    const got: Record<string, string[]> = { [A]: [], [B]: [] };
    for (let u = again.next(); u; u = again.next()) {
      got[u.origin].push(new URL(u.job.url).pathname);
      again.finish(u);
      await again.flush();
    }
    assert.deepEqual(got, { [A]: paths(10), [B]: paths(3) });
  });

  test('the start and each flush read many hosts in one read of storage; every host still hands out its URLs in order, once', async () => {
    const hosts = Array.from({ length: 20 }, (_, i) => `https://h${i}.example`);
    for (const origin of hosts) crawl.add(origin, paths(10));
    const again = new Crawl(db, { ...SIZES, startHosts: 20 }, 1000); // each host due once a second
    again.live.add(1);
    const read = again.countReads();
    await again.load();
    assert.equal(read.calls, 1, `the start read 20 hosts' first windows in ${read.calls} reads of storage`);
    assert.deepEqual(
      hosts.map((o) => again.inScheduler(o)),
      hosts.map(() => SIZES.size),
    );
    const got = new Map<string, string[]>(hosts.map((o) => [o, []]));
    const take = (now: number): Taken[] => {
      const out: Taken[] = [];
      for (let t = again.next(now); t; t = again.next(now)) {
        got.get(t.origin)!.push(new URL(t.job.url).pathname);
        out.push(t);
      }
      return out;
    };
    for (const now of [0, 1000]) for (const t of take(now)) again.finish(t, now);
    // The third job of each host: the first ten hosts finish it earlier, so only they hand out a fourth.
    for (const t of take(2000)) again.finish(t, hosts.indexOf(t.origin) < 10 ? 2000 : 2500);
    const fourth = take(3000);
    assert.equal(fourth.length, 10);
    for (const t of fourth) again.finish(t, 3000); // their windows are empty: read first by the next flush
    assert.deepEqual(
      hosts.map((o) => again.inScheduler(o)),
      hosts.map((_, i) => (i < 10 ? 0 : 1)),
      'ten windows dry, ten below low',
    );
    read.calls = 0;
    await again.flush();
    assert.equal(read.calls, 1, `one flush refilled 20 hosts, ten of them dry, in ${read.calls} reads of storage`);
    assert.deepEqual(
      hosts.map((o) => again.inScheduler(o)),
      hosts.map(() => SIZES.size),
    );
    for (let now = 4000; now < 20_000; now += 1000) {
      for (const t of take(now)) again.finish(t, now);
      await again.flush();
    }
    assert.deepEqual(Object.fromEntries(got), Object.fromEntries(hosts.map((o) => [o, paths(10)])));
  });

  test("random crawls: no URL is lost or handed out twice, and the counts are the database's, after every flush", async () => {
    for (let round = 0; round < 12; round++) {
      const random = seededRandom(1000 + round);
      const c = new Crawl(db, {
        size: 1 + Math.floor(random() * 5),
        low: 1 + Math.floor(random() * 3),
        syncBelow: 1,
        readBudget: 6,
        perFlush: 1 + Math.floor(random() * 10),
        startHosts: 1,
      });
      db.exec('DELETE FROM frontier');
      c.live.add(1);
      await c.load();
      const origins = [A, B, 'https://c.example'];
      const inFlight = new Map<number, Taken>();
      let n = 0;
      let now = 0;
      for (let step = 0; step < 400; step++) {
        const r = random();
        if (r < 0.3) {
          const origin = origins[Math.floor(random() * origins.length)];
          c.add(
            origin,
            Array.from({ length: 1 + Math.floor(random() * 6) }, () => `/r${round}-${n++}`),
          );
        } else if (r < 0.65) {
          const t = c.next(now);
          if (t) {
            assert.ok(!inFlight.has(t.job.frontierId), `${t.job.url} handed out twice`);
            inFlight.set(t.job.frontierId, t);
          }
        } else if (r < 0.9 && inFlight.size > 0) {
          const [id, t] = [...inFlight][Math.floor(random() * inFlight.size)];
          inFlight.delete(id);
          if (random() < 0.3 && t.job.attempts < 3) c.retry(t, now + Math.floor(random() * 50), now);
          else c.finish(t, now);
        } else {
          await c.flush();
          for (const origin of origins)
            assert.equal(
              c.window.waiting(origin),
              c.queuedInDb(origin),
              `round ${round} step ${step}: ${origin}'s count`,
            );
        }
        now += Math.floor(random() * 10);
      }
      for (const t of inFlight.values()) c.finish(t, now);
      await c.flush();
      await c.drain(now + 1000);
      for (const origin of origins) {
        assert.equal(c.queuedInDb(origin), 0, `round ${round}: ${origin} has queued URLs never handed out`);
        assert.equal(c.window.waiting(origin), 0);
      }
    }
  });
  test('with many hosts waiting, each window holds its share of the total: the same URLs come out in the same order as with full windows', async () => {
    // Two crawls of the same frontier (two database files), one with windows of 8, one sharing 10 jobs
    // among 5 hosts (2 each, read again when empty); hosts take turns by a delay of 20 ms.
    const origins = [
      'https://a.example',
      'https://b.example',
      'https://c.example',
      'https://d.example',
      'https://e.example',
    ];
    const run = async (
      sizes: Partial<WindowSizes>,
    ): Promise<{ order: string[]; maxWindow: number; maxEntries: number }> => {
      const d = mkdtempSync(path.join(os.tmpdir(), 'lantern-window-cap-'));
      const file = openDatabase(d);
      try {
        const c = new Crawl(file, sizes, 20);
        c.seed(1);
        for (const o of origins) c.add(o, paths(12, `/${o[8]}`));
        await c.load();
        const random = seededRandom(7);
        const order: string[] = [];
        let maxWindow = 0;
        let maxEntries = 0;
        const inFlight: Taken[] = [];
        for (let now = 0; now < 2000; now += 7) {
          for (let t = c.next(now); t; t = c.next(now)) {
            order.push(`${t.origin} ${new URL(t.job.url).pathname}`);
            inFlight.push(t);
          }
          for (const t of inFlight.splice(0)) {
            if (random() < 0.1 && t.job.attempts === 0) c.retry(t, now + 30, now);
            else c.finish(t, now);
          }
          // A window asking for a read (one ran dry) gets its flush before the next dispatch, as the primary's pump asks for one.
          if (random() < 0.5 || c.window.needsFlush) await c.flush();
          for (const o of origins) maxWindow = Math.max(maxWindow, c.inScheduler(o));
          maxEntries = Math.max(maxEntries, c.window.entryCount());
        }
        return { order, maxWindow, maxEntries };
      } finally {
        file.close();
        rmSync(d, { recursive: true, force: true });
      }
    };
    const full = await run({ ...SIZES, size: 8, low: 4, total: 1000, min: 2 });
    const shared = await run({ ...SIZES, size: 8, low: 4, total: 10, min: 2 });
    assert.equal(new Set(full.order).size, 60, 'every one of the 60 URLs handed out');
    assert.ok(full.order.length > 60, 'some of them again after a retry');
    assert.equal(full.maxWindow, 8, 'the full windows fill to their size');
    assert.ok(shared.maxWindow <= 2, `a window of 2 each when 5 hosts share 10 (held ${shared.maxWindow})`);
    assert.ok(shared.maxEntries <= 10, `10 jobs in memory at most (held ${shared.maxEntries})`);
    assert.deepEqual(shared.order, full.order, 'the same URLs in the same order');
  });

  test("a host's share of the windows' total: the whole window while they fit, else total / hosts, never below min", async () => {
    const sizes = { ...SIZES, size: 16, low: 8, total: 40_000, min: 4 };
    assert.deepEqual(windowCap(sizes, 100), { cap: 16, low: 8 });
    assert.deepEqual(windowCap(sizes, 2_500), { cap: 16, low: 8 });
    assert.deepEqual(windowCap(sizes, 5_000), { cap: 8, low: 4 });
    assert.deepEqual(windowCap(sizes, 10_000), { cap: 4, low: 2 });
    assert.deepEqual(windowCap(sizes, 1_000_000), { cap: 4, low: 2 });
  });
});
