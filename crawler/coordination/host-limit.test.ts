/**
 * The per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED) on a real SQLite file, driven by hand: links to
 * further hosts are refused once a seed has its hosts, the seed's figures are stored with the batch, the
 * host whose page had the links says so, and a restart counts the hosts again from the database.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import { seedQueries } from '../../db/seeds.ts';
import type { Coordinator } from './coordinator.ts';
import type { FetchJob } from '../common/protocol.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DELAY_MS = 10;
const SEED = 'https://example.org/';

/** Links to `n` hosts of a wildcard domain, a1.example.org ... an.example.org. */
const wildcard = (from: number, n: number) => Array.from({ length: n }, (_, i) => `https://a${from + i}.example.org/`);

describe('hosts per seed', () => {
  let tmp: TempDatabase;
  let db: Database;
  const start = async (t: number): Promise<Coordinator> =>
    await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_MAX_HOSTS_PER_SEED: '4' }, `run-${t}`, t);
  /** Answers every due job (robots.txt 404; a page: `links` for the seed's host, none elsewhere) until nothing is due; returns the URLs fetched. */
  const crawl = async (c: Coordinator, t: number, links: (job: FetchJob) => string[]): Promise<string[]> => {
    const fetched: string[] = [];
    for (let now = t; now < t + 200 * DELAY_MS; now += DELAY_MS) {
      for (let job = c.dispatch(now); job; job = c.dispatch(now)) {
        if (job.kind === 'page') fetched.push(job.url);
        c.onResult(
          fetchResult(
            job.jobId,
            job.kind === 'robots' ? { status: 404 } : { page: parsedPage(job.url, links(job), { title: 'A page' }) },
          ),
          now + 1,
        );
      }
      while (c.hasWrites()) await c.flush(now + 1);
    }
    return fetched;
  };
  const seedRow = () => seedQueries(db).listSeeds()[0];

  beforeEach(async () => {
    tmp = tempDatabase('host-limit');
    db = tmp.db;
    seedQueries(db).upsertSeed({ url: SEED, origin: new URL(SEED).origin, depth: 3, scope: 'domain' }, 1000);
  });
  afterEach(() => tmp.cleanup());

  test('past its limit a seed follows no link to a new host; its row counts them, the linking host says so', async () => {
    const c = await start(10_000);
    const fetched = await crawl(c, 10_000, (job) => (job.url === SEED ? wildcard(1, 10) : []));
    const hosts = new Set(fetched.map((u) => new URL(u).host));
    assert.deepEqual(
      [...hosts].sort(),
      ['a1.example.org', 'a2.example.org', 'a3.example.org', 'example.org'],
      "the seed's host and 3 more",
    );
    const seed = seedRow();
    assert.deepEqual(
      { hosts: seed.hosts, refused: seed.hostsRefused, last: seed.lastRefusedHost },
      { hosts: 4, refused: 7, last: 'a10.example.org' },
    );
    const row = c.snapshot(20_000, 1).domains.find((d) => d.host === 'example.org')!;
    assert.equal(
      row.lastError,
      'stopped following links to new hosts: the crawl of https://example.org/ has reached 4 hosts (the limit per seed, CRAWL_MAX_HOSTS_PER_SEED); not followed, e.g. a10.example.org',
    );
    assert.match(
      row.stateText,
      /^idle: nothing queued; stopped following links to new hosts/,
      'in view once the host is idle',
    );
    assert.equal(
      c.snapshot(20_000, 1).domains.some((d) => d.host === 'a4.example.org'),
      false,
      'a refused host has no row',
    );
  });

  test('a restart counts the hosts again from the database: the limit holds, and refusals add up', async () => {
    await crawl(await start(10_000), 10_000, (job) => (job.url === SEED ? wildcard(1, 3) : []));
    assert.equal(seedRow().hosts, 4);
    // After a restart the seed is crawled again: its page now links to further hosts.
    const next = await start(50_000);
    seedQueries(db).upsertSeed({ url: SEED, origin: new URL(SEED).origin, depth: 3, scope: 'domain' }, 50_000);
    await next.syncSeeds(50_000);
    const fetched = await crawl(next, 50_000, (job) =>
      job.url === SEED ? [...wildcard(1, 3), ...wildcard(100, 5)] : [],
    );
    assert.deepEqual(
      fetched.filter((u) => /a10\d/.test(u)),
      [],
      'no new host',
    );
    assert.deepEqual({ hosts: seedRow().hosts, refused: seedRow().hostsRefused }, { hosts: 4, refused: 5 });
  });

  test('another seed has a budget of its own; a link to a URL another seed holds only adds an inlink', async () => {
    const c = await start(10_000);
    const links = (job: FetchJob) =>
      job.url === SEED
        ? wildcard(1, 3)
        : job.url === 'https://other.example/'
          ? [...wildcard(1, 3), ...wildcard(7, 2)]
          : [];
    await crawl(c, 10_000, links);
    seedQueries(db).upsertSeed(
      { url: 'https://other.example/', origin: 'https://other.example', depth: 2, scope: 'any' },
      20_000,
    );
    await c.syncSeeds(20_000);
    await crawl(c, 20_000, links);
    const rows = new Map(
      seedQueries(db)
        .listSeeds()
        .map((s) => [s.url, s]),
    );
    assert.deepEqual({ hosts: rows.get(SEED)!.hosts, refused: rows.get(SEED)!.hostsRefused }, { hosts: 4, refused: 0 });
    // other.example: its own host and a7, a8 (a1–a3's URLs belong to the first seed, which found them first).
    assert.deepEqual(
      { hosts: rows.get('https://other.example/')!.hosts, refused: rows.get('https://other.example/')!.hostsRefused },
      { hosts: 3, refused: 0 },
    );
    const inlinks = db.prepare('SELECT inlinks FROM frontier WHERE url = ?').pluck().get('https://a1.example.org/');
    assert.equal(inlinks, 1, "the second seed's link to a1 counts as an inlink");
  });
});
