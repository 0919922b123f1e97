/**
 * The coordinator on a real SQLite file, driven by hand (no processes): when a host's clock says its
 * last request ended, and when discovered links are worth storing at once.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import { seedQueries } from '../../db/seeds.ts';
import { seedLabelQueries } from '../../db/seed-labels.ts';
import { loadConfig } from '../../shared/config.ts';
import { Coordinator } from './coordinator.ts';
import { ROBOTS_CACHE_MS } from '../politeness/robots.ts';
import { RETIRE_BYTES, RETIRE_CHUNK, SEED_CHUNK, URL_CHUNK } from '../frontier/seed-writes.ts';
import { WINDOW } from '../frontier/frontier-window.ts';
import { refreshOffsetMs, spreadRevisits } from '../frontier/revisit-spread.ts';
import { frontierQueries } from '../../db/frontier.ts';
import { pageQueries } from '../../db/pages.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { makePage, type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import type { FetchJob, FetchResult, ParsedPage } from '../common/protocol.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';

const DELAY_MS = 100;
const ORIGIN = 'https://site.example';

/** What a worker parsed, whichever page it fetched: the home page's URL and one content hash for all. */
const page = (links: string[]): ParsedPage => parsedPage(`${ORIGIN}/`, links, { contentHash: 'h' });

describe('coordinator', () => {
  let tmp: TempDatabase;
  let db: Database;
  let coordinator: Coordinator;

  beforeEach(async () => {
    tmp = tempDatabase('coordinator');
    db = tmp.db;
    seedQueries(db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 2, scope: 'host' }, 1000);
    coordinator = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'test-run', 10_000);
  });
  afterEach(() => tmp.cleanup());

  /** Fetches robots.txt (404: allow all) at t, reported at t + 10; returns the seed's job, due a delay later. */
  function pastRobots(t: number): FetchJob {
    const robots = coordinator.dispatch(t)!;
    assert.equal(robots.kind, 'robots');
    coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), t + 10);
    assert.equal(coordinator.dispatch(t + 10 + DELAY_MS - 1), undefined, 'not before a delay after the end');
    return coordinator.dispatch(t + 10 + DELAY_MS)!;
  }

  test("the crawl-wide queued count is the sum of the hosts' rows, robots.txt and requests in flight included", async () => {
    const counts = (t: number) => {
      const { status, domains } = coordinator.snapshot(t, 1);
      return { header: status.queued, rows: domains.map((d) => d.queued) };
    };
    assert.deepEqual(counts(10_000), { header: 2, rows: [2] }, 'robots.txt and the seed page wait');
    const robots = coordinator.dispatch(10_000)!;
    assert.deepEqual(counts(10_001), { header: 2, rows: [2] }, 'robots.txt in flight, the seed page waits');
    coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), 10_010);
    assert.deepEqual(counts(10_011), { header: 1, rows: [1] });
  });

  test('the host clock runs from when the response ended, not from when the report arrived', async () => {
    const seed = pastRobots(10_000);
    const t = 10_110;
    // The worker read the last byte at t + 5 and reported 30 ms later, after parsing.
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page([`${ORIGIN}/a`]) }), t + 35, 30);
    await coordinator.flush(t + 35);
    assert.equal(coordinator.dispatch(t + 5 + DELAY_MS - 1), undefined, 'one ms early is too early');
    assert.equal(coordinator.dispatch(t + 5 + DELAY_MS)?.url, `${ORIGIN}/a`, 'due a delay after the response ended');
  });

  test('a report never moves the end before the moment the job was handed out', async () => {
    const seed = pastRobots(10_000);
    const t = 10_110;
    // A report claiming the response ended long before the request was sent is not believed.
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page([`${ORIGIN}/a`]) }), t + 20, 5_000);
    await coordinator.flush(t + 20);
    assert.equal(coordinator.dispatch(t + DELAY_MS - 1), undefined);
    assert.equal(coordinator.dispatch(t + DELAY_MS)?.url, `${ORIGIN}/a`);
  });

  test('a request whose worker died leaves the host waiting two delays', async () => {
    const seed = pastRobots(10_000);
    coordinator.abandon(seed.jobId, 10_200, 'the worker died');
    assert.equal(coordinator.dispatch(10_200 + 2 * DELAY_MS - 1), undefined);
    assert.equal(coordinator.dispatch(10_200 + 2 * DELAY_MS)?.url, `${ORIGIN}/`, 'the URL is tried again');
  });

  test('a page is stamped with the time of the flush that stores it, the time the coordinator is given (no clock of its own)', async () => {
    const seed = pastRobots(10_000);
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page([]) }), 10_120);
    await coordinator.flush(10_170);
    assert.deepEqual(db.prepare('SELECT fetched_at AS at FROM pages').all(), [{ at: 10_170 }]);
  });

  test('links to a host with nothing queued ask for an immediate flush; links to a busy host do not', async () => {
    const seed = pastRobots(10_000);
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page([`${ORIGIN}/a`, `${ORIGIN}/b`]) }), 10_120);
    assert.equal(coordinator.takeUrgent(), true, 'the host has nothing queued: its new links are stored at once');
    assert.equal(coordinator.takeUrgent(), false, 'reading it clears it');
    await coordinator.flush(10_120);
    const a = coordinator.dispatch(10_220)!;
    assert.equal(a.url, `${ORIGIN}/a`);
    coordinator.onResult(fetchResult(a.jobId, { status: 200, page: page([`${ORIGIN}/c`]) }), 10_230);
    assert.equal(coordinator.takeUrgent(), false, '/b is still queued: the links wait for the next batch');
  });

  test('a 304 to a request that was not conditional fails the URL instead of keeping a page that was never stored', async () => {
    const seed = pastRobots(10_000);
    assert.equal(seed.validators, undefined, 'nothing stored yet: the request is not conditional');
    coordinator.onResult(fetchResult(seed.jobId, { status: 304 }), 10_120);
    await coordinator.flush(10_120);
    const row = db.prepare('SELECT state, last_error AS lastError FROM frontier WHERE url = ?').get(`${ORIGIN}/`) as {
      state: string;
      lastError: string;
    };
    assert.deepEqual(row, {
      state: 'failed',
      lastError: 'the site answered 304 (not modified) to a request that was not conditional',
    });
  });

  test('a seed is crawled again once its last crawl is CRAWL_REFRESH old (7 days by default), conditionally, and not while it is still crawled', async () => {
    const WEEK = 7 * 86_400_000;
    // Due a week after its last crawl, and its site's own offset later (revisit-spread.ts).
    const due = 10_120 + WEEK + refreshOffsetMs(ORIGIN, WEEK);
    const seed = pastRobots(10_000);
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, etag: '"v1"', page: page([`${ORIGIN}/a`]) }), 10_120);
    await coordinator.flush(10_120);
    assert.equal(await coordinator.refreshSeeds(due), 0, '/a is still queued: the first crawl is not over');
    const a = coordinator.dispatch(10_220)!;
    coordinator.onResult(fetchResult(a.jobId, { status: 200, page: page([]) }), 10_230);
    await coordinator.flush(10_230);
    assert.equal(await coordinator.refreshSeeds(due - 1), 0, 'one ms early');
    assert.equal(coordinator.dispatch(due), undefined, 'nothing queued before the refresh');
    assert.equal(await coordinator.refreshSeeds(due), 1);
    assert.equal(await coordinator.refreshSeeds(due), 0, 'queued already: not twice');
    // robots.txt is older than its 24 h too: asked again first, then the pages, the seed conditionally.
    const robots = coordinator.dispatch(due)!;
    assert.equal(robots.kind, 'robots');
    coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), due + 10);
    const first = coordinator.dispatch(due + 10 + DELAY_MS)!;
    coordinator.onResult(
      fetchResult(first.jobId, first.validators ? { status: 304 } : { status: 200, page: page([]) }),
      due + 20 + DELAY_MS,
    );
    await coordinator.flush(due + 20 + DELAY_MS);
    // The pages it found come spread over a quarter of the period (revisit-spread.ts); /a, the only one, in its share.
    const aAt = spreadRevisits(ORIGIN, [`${ORIGIN}/a`], due, WEEK)[0];
    if (aAt > due + 20 + 2 * DELAY_MS)
      assert.equal(coordinator.dispatch(aAt - 1), undefined, 'no page before its place in the spread');
    const second = coordinator.dispatch(Math.max(aAt, due + 20 + 2 * DELAY_MS))!;
    const byUrl = new Map([first, second].map((j) => [j.url, j.validators]));
    assert.deepEqual([...byUrl.keys()].sort(), [`${ORIGIN}/`, `${ORIGIN}/a`], 'the seed and what it found');
    assert.deepEqual(
      byUrl.get(`${ORIGIN}/`),
      { etag: '"v1"', lastModified: null },
      'the seed page is asked for conditionally',
    );
  });

  test('CRAWL_REFRESH=0 never crawls a seed again on its own', async () => {
    const off = new Coordinator(
      sqliteCrawlStore(db),
      loadConfig({ DATA_DIR: tmp.dir, CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_REFRESH: '0' }),
      'test-run-2',
    );
    const seed = pastRobots(10_000);
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page([]) }), 10_120);
    await coordinator.flush(10_120);
    await off.start(20_000);
    assert.equal(await off.refreshSeeds(10_120 + 1000 * 86_400_000), 0);
    assert.equal(
      await coordinator.refreshSeeds(10_120 + 1000 * 86_400_000),
      1,
      'the same crawl is due under the default',
    );
  });

  test('a result in flight when its seed was removed is not stored and its links are not followed; the host still learns from it', async () => {
    const seed = pastRobots(10_000);
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    assert.ok(seedQueries(db).markSeedRemoved(id, 10_050));
    await coordinator.syncSeeds(10_050);
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page([`${ORIGIN}/a`]) }), 10_120);
    await coordinator.flush(10_120);
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    assert.equal(count('SELECT COUNT(*) AS n FROM pages'), 0, 'the page is not stored');
    assert.equal(count('SELECT COUNT(*) AS n FROM frontier'), 0, 'its URL and links are gone');
    assert.equal(count('SELECT COUNT(*) AS n FROM seeds'), 0, 'the seed row is deleted');
    assert.equal(coordinator.dispatch(20_000), undefined, 'nothing left to fetch');
    assert.deepEqual(
      coordinator.requests(ORIGIN).map((r) => r.status),
      [404, 200],
      "the request is on its host's timeline",
    );
  });

  test("a removed seed's pages leave search a chunk per batch, so no batch holds the primary long; its row goes last", async () => {
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    const pages = pageQueries(db);
    const total = 2 * RETIRE_CHUNK + 7;
    db.transaction(() => {
      for (let i = 0; i < total; i++)
        pages.upsertPage(makePage(`${ORIGIN}/p/${i}`, { seedId: id, title: `Page ${i}`, body: 'words' }));
    })();
    assert.ok(seedQueries(db).markSeedRemoved(id, 10_050));
    await coordinator.syncSeeds(10_050);
    const searchable = () => (db.prepare('SELECT COUNT(*) AS n FROM pages WHERE indexed = 1').get() as { n: number }).n;
    const seedRows = () => (db.prepare('SELECT COUNT(*) AS n FROM seeds').get() as { n: number }).n;
    const perBatch: number[] = [];
    while (searchable() > 0) {
      perBatch.push(await coordinator.flush(10_100));
      if (searchable() > 0) assert.equal(seedRows(), 1, 'the seed row stays while pages remain');
    }
    assert.deepEqual(perBatch, [RETIRE_CHUNK, RETIRE_CHUNK, 7]);
    while (coordinator.hasWrites()) await coordinator.flush(10_100); // then the full-text index gives their space back
    assert.equal(searchable(), 0);
    assert.equal(seedRows(), 0);
  });

  test("a removed seed's long pages leave search a few at a time: a chunk holds RETIRE_BYTES of their text", async () => {
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    const pages = pageQueries(db);
    const body = 'lorem '.repeat(Math.ceil(RETIRE_BYTES / 4 / 6) + 1); // a bit over a quarter of the budget
    db.transaction(() => {
      for (let i = 0; i < 10; i++)
        pages.upsertPage(makePage(`${ORIGIN}/p/${i}`, { seedId: id, title: `Page ${i}`, body, indexed: true }));
    })();
    assert.ok(seedQueries(db).markSeedRemoved(id, 10_050));
    await coordinator.syncSeeds(10_050);
    const searchable = () => (db.prepare('SELECT COUNT(*) AS n FROM pages WHERE indexed = 1').get() as { n: number }).n;
    const perBatch: number[] = [];
    while (searchable() > 0 && perBatch.length < 20) perBatch.push(await coordinator.flush(10_100));
    assert.deepEqual(perBatch, [3, 3, 3, 1], 'three pages of text a batch, not RETIRE_CHUNK pages');
    while (coordinator.hasWrites()) await coordinator.flush(10_100);
    assert.equal((db.prepare('SELECT COUNT(*) AS n FROM seeds').get() as { n: number }).n, 0, 'its row goes last');
  });

  test('a seed submitted again while its pages are leaving search keeps the rest: its new crawl stores its own', async () => {
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    const pages = pageQueries(db);
    const total = RETIRE_CHUNK + 20;
    db.transaction(() => {
      for (let i = 0; i < total; i++)
        pages.upsertPage(makePage(`${ORIGIN}/p/${i}`, { seedId: id, title: `Page ${i}`, body: 'words' }));
    })();
    seedQueries(db).markSeedRemoved(id, 10_050);
    await coordinator.syncSeeds(10_050);
    assert.equal(await coordinator.flush(10_060), RETIRE_CHUNK);
    seedQueries(db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 2, scope: 'host' }, 10_070); // submitted again
    while (coordinator.hasWrites()) await coordinator.flush(10_080);
    const searchable = (db.prepare('SELECT COUNT(*) AS n FROM pages WHERE indexed = 1').get() as { n: number }).n;
    assert.equal(searchable, 20, 'the chunks stopped');
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM seeds WHERE removed_at IS NULL').get() as { n: number }).n,
      1,
      'the seed stays',
    );
  });

  test('Domains, /api/status and Seeds count every queued URL, though only a window of them is in memory', async () => {
    const links = Array.from({ length: 3 * WINDOW.size }, (_, i) => `${ORIGIN}/l${i}`);
    const seed = pastRobots(10_000);
    coordinator.onResult(fetchResult(seed.jobId, { status: 200, page: page(links) }), 10_120);
    await coordinator.flush(10_120);
    assert.ok(coordinator.scheduler.host(ORIGIN).queue.length <= WINDOW.size, 'the scheduler holds a window');
    const counts = (t: number) => {
      const { status, domains } = coordinator.snapshot(t, 1);
      return { header: status.queued, row: domains[0].queued, seeds: seedQueries(db).listSeeds()[0].queued };
    };
    assert.deepEqual(counts(10_120), { header: links.length, row: links.length, seeds: links.length });
    const a = coordinator.dispatch(10_220)!;
    assert.deepEqual(
      counts(10_221),
      { header: links.length, row: links.length, seeds: links.length },
      'one in flight is still queued',
    );
    coordinator.onResult(fetchResult(a.jobId, { status: 200, page: page([]) }), 10_230);
    await coordinator.flush(10_230);
    assert.deepEqual(counts(10_231), { header: links.length - 1, row: links.length - 1, seeds: links.length - 1 });
  });

  test("a removed seed's jobs on many hosts leave their queues when it is removed: the next dispatch goes to another host", async () => {
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    const other = 'https://other.example';
    const otherSeed = seedQueries(db).upsertSeed({ url: `${other}/`, origin: other, depth: 2, scope: 'host' }, 10_001)
      .seed.id;
    const removedHosts = Array.from({ length: 40 }, (_, i) => `https://r${i}.example`);
    const knownHost = db.prepare(
      `INSERT INTO hosts (origin, host, robots_status, robots_http_status, robots_fetched_at, robots_expires_at, last_request_end, updated_at)
       VALUES (?, ?, 'allow-all', 404, 1000, ?, ?, 1000)
       ON CONFLICT (origin) DO UPDATE SET robots_status = 'allow-all', robots_http_status = 404, robots_fetched_at = 1000,
         robots_expires_at = excluded.robots_expires_at, last_request_end = excluded.last_request_end`,
    );
    const frontier = frontierQueries(db);
    db.transaction(() => {
      // The removed seed's hosts were last asked long ago: due before the other host, first in line.
      for (const origin of [ORIGIN, ...removedHosts]) knownHost.run(origin, new URL(origin).host, 10 ** 12, 1_000);
      knownHost.run(other, new URL(other).host, 10 ** 12, 5_000);
      for (const origin of removedHosts)
        for (let i = 0; i < 30; i++)
          frontier.addUrl({ url: `${origin}/p/${i}`, origin, seedId: id, depth: 1, redirects: 0 }, 10_000);
      for (let i = 0; i < 5; i++)
        frontier.addUrl({ url: `${other}/p/${i}`, origin: other, seedId: otherSeed, depth: 1, redirects: 0 }, 10_000);
    })();
    const restarted = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'run-2', 10_000);
    assert.ok(seedQueries(db).markSeedRemoved(id, 10_050));
    await restarted.syncSeeds(10_050);
    assert.equal(
      restarted.scheduler.queuedCount(),
      6,
      "only the other seed's URLs (and its seed page) are left in the hosts' queues",
    );
    const job = restarted.dispatch(10_100);
    assert.equal(job?.origin, other, "the first dispatch after the removal hands out the other host's job");
    const handedOut = new Set<string>([job.origin]);
    restarted.onResult(fetchResult(job.jobId, { status: 200, page: page([]) }), 10_101);
    for (let t = 10_200; restarted.hasWrites() || restarted.nextWakeAt() !== undefined; t += DELAY_MS) {
      await restarted.flush(t);
      for (let next = restarted.dispatch(t); next; next = restarted.dispatch(t)) {
        handedOut.add(next.origin);
        restarted.onResult(fetchResult(next.jobId, { status: 200, page: page([]) }), t);
      }
      if (t > 60_000) break;
    }
    assert.deepEqual([...handedOut], [other], "none of the removed seed's hosts was handed out");
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM frontier WHERE seed_id = ?').get(id) as { n: number }).n,
      0,
      'its URLs are deleted',
    );
  });

  test("a removed seed's URLs are deleted a chunk per batch while other hosts are still dispatched between the batches", async () => {
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    const other = 'https://other.example';
    const otherSeed = seedQueries(db).upsertSeed({ url: `${other}/`, origin: other, depth: 2, scope: 'host' }, 10_001)
      .seed.id;
    const frontier = frontierQueries(db);
    const total = 2 * URL_CHUNK + 5;
    db.transaction(() => {
      for (let i = 0; i < total; i++)
        frontier.addUrl({ url: `${ORIGIN}/p/${i}`, origin: ORIGIN, seedId: id, depth: 1, redirects: 0 }, 10_000);
      for (let i = 0; i < 10; i++)
        frontier.addUrl({ url: `${other}/p/${i}`, origin: other, seedId: otherSeed, depth: 1, redirects: 0 }, 10_000);
    })();
    const restarted = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'run-2', 10_000);
    assert.ok(seedQueries(db).markSeedRemoved(id, 10_050));
    await restarted.syncSeeds(10_050);
    const left = () => (db.prepare('SELECT COUNT(*) AS n FROM frontier WHERE seed_id = ?').get(id) as { n: number }).n;
    const perBatch: number[] = [];
    let t = 10_100;
    while (restarted.hasWrites() && perBatch.length < 10) {
      const before = left();
      await restarted.flush(t);
      perBatch.push(before - left());
      const job = restarted.dispatch(t); // the other host goes on between the batches
      if (job)
        restarted.onResult(
          fetchResult(job.jobId, job.kind === 'robots' ? { status: 404 } : { status: 200, page: page([]) }),
          t + 1,
        );
      t += 2 * DELAY_MS;
    }
    assert.deepEqual(
      perBatch.slice(0, 3),
      [URL_CHUNK, URL_CHUNK, total + 1 - 2 * URL_CHUNK],
      'a chunk per batch (its own URL and the 2,005 it found)',
    );
    assert.equal(left(), 0);
    assert.equal(
      (db.prepare('SELECT COUNT(*) AS n FROM seeds WHERE id = ?').get(id) as { n: number }).n,
      0,
      'its row goes last',
    );
    const row = (origin: string) => restarted.snapshot(t, 1).domains.find((d) => d.origin === origin)!;
    assert.equal(row(ORIGIN).queued, 0, 'the host of the removed seed has nothing queued');
    assert.ok(row(other).fetched >= 1, 'the other host was crawled meanwhile');
  });

  test('a seed crawled again queues its URLs again a chunk at once and a chunk per batch after', async () => {
    const id = (db.prepare('SELECT id FROM seeds').get() as { id: number }).id;
    const frontier = frontierQueries(db);
    const total = URL_CHUNK + 20;
    db.transaction(() => {
      db.prepare(`UPDATE frontier SET state = 'done', finished_at = 10_000`).run();
      for (let i = 0; i < total; i++) {
        const row = frontier.addUrl(
          { url: `${ORIGIN}/p/${i}`, origin: ORIGIN, seedId: id, depth: 1, redirects: 0 },
          10_000,
        )!;
        frontier.finishUrl(row.id, 'done', null, 10_000);
      }
    })();
    const queued = () =>
      (db.prepare(`SELECT COUNT(*) AS n FROM frontier WHERE state = 'queued'`).get() as { n: number }).n;
    const restarted = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'run-2', 10_050); // the whole crawl done
    seedQueries(db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 2, scope: 'host' }, 10_100); // submitted again
    await restarted.syncSeeds(10_100);
    assert.equal(queued(), 1 + URL_CHUNK, 'the seed and a first chunk at once');
    await restarted.flush(10_110);
    assert.equal(queued(), total + 1, 'the rest with the next batch');
    assert.equal(restarted.snapshot(10_110, 1).domains[0].queued, total + 2, 'every one counted (and robots.txt)');
  });

  test('an import of 10,000 bookmarks on 20 hosts is queued a chunk per batch and goes through the windows: each URL counted, handed out once', async () => {
    const hosts = Array.from({ length: 20 }, (_, k) => `https://site${k}.example`);
    const bookmarks = Array.from({ length: 10_000 }, (_, i) => {
      const origin = hosts[i % hosts.length];
      return {
        url: `${origin}/page/${i}`,
        origin,
        title: `Page ${i}`,
        folder: 'Bookmarks bar / Topic',
        labels: ['topic'],
      };
    });
    const outcome = seedLabelQueries(db).importSeeds(bookmarks, { depth: 0, scope: 'host' }, 10_050);
    assert.equal(outcome.created.length, 10_000);
    await coordinator.syncSeeds(10_050);
    const queuedRows = () =>
      (db.prepare(`SELECT COUNT(*) AS n FROM frontier WHERE state = 'queued'`).get() as { n: number }).n;
    assert.equal(queuedRows(), 1 + SEED_CHUNK, 'the first chunk at once (and the first seed)');
    const perBatch: number[] = [];
    for (let t = 10_051; coordinator.hasWrites() && perBatch.length < 1000; t++) {
      const before = queuedRows();
      await coordinator.flush(t);
      perBatch.push(queuedRows() - before);
    }
    assert.deepEqual(perBatch, Array(10_000 / SEED_CHUNK - 1).fill(SEED_CHUNK), 'the rest a chunk per batch');
    assert.equal(queuedRows(), 10_001, 'every bookmark queued in the database (and the first seed)');
    const inMemory = () => Math.max(...hosts.map((o) => coordinator.scheduler.host(o).queue.length));
    assert.ok(inMemory() <= WINDOW.size, `a window per host in memory, not its 500 URLs (${inMemory()})`);
    const domains = coordinator.snapshot(10_050, 1).domains;
    for (const o of hosts)
      assert.equal(
        domains.find((d) => d.origin === o)?.queued,
        500 + 1,
        `${o}: its 500 bookmarks and robots.txt counted`,
      );

    const handedOut = new Map<string, number>();
    let t = 10_100;
    let maxWindow = 0;
    for (let round = 0; round < 1000 && queuedRows() > 0; round++) {
      const jobs: FetchJob[] = [];
      for (let job = coordinator.dispatch(t); job; job = coordinator.dispatch(t)) jobs.push(job);
      for (const job of jobs) {
        if (job.kind === 'page') handedOut.set(job.url, (handedOut.get(job.url) ?? 0) + 1);
        coordinator.onResult(
          fetchResult(
            job.jobId,
            job.kind === 'robots' ? { status: 404 } : { status: 200, contentType: 'application/octet-stream' },
          ),
          t + 1,
        );
      }
      await coordinator.flush(t + 1);
      maxWindow = Math.max(maxWindow, inMemory());
      t += DELAY_MS + 2;
    }
    assert.equal(queuedRows(), 0, 'the whole import was crawled');
    assert.equal(handedOut.size, 10_001, 'every URL handed out');
    assert.deepEqual(
      [...handedOut.values()].filter((n) => n !== 1),
      [],
      'none twice',
    );
    assert.ok(maxWindow <= WINDOW.size, `the windows stayed at most ${WINDOW.size} jobs (${maxWindow})`);
  });

  test('a sitemap not yet read when the primary dies is read after the restart; one already read is not read again', async () => {
    const restart = async (t: number): Promise<Coordinator> =>
      await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, `run-${t}`, t);
    /** Hands out every job due within `ms` of `t` (each answered at once with `answer`), as "kind url" lines. */
    const drain = async (
      c: Coordinator,
      t: number,
      answer: (job: FetchJob) => Partial<FetchResult>,
    ): Promise<string[]> => {
      const seen: string[] = [];
      for (let now = t; now < t + 20 * DELAY_MS; now += DELAY_MS) {
        const job = c.dispatch(now);
        if (!job) continue;
        seen.push(`${job.kind} ${job.url}`);
        c.onResult(fetchResult(job.jobId, answer(job)), now + 1);
        while (c.hasWrites()) await c.flush(now + 1); // found URLs are queued by the batch that stores them
      }
      return seen;
    };
    const robots = coordinator.dispatch(10_000)!;
    coordinator.onResult(
      fetchResult(robots.jobId, {
        status: 200,
        robotsBody: `User-agent: *\nAllow: /\nSitemap: ${ORIGIN}/sitemap.xml\n`,
      }),
      10_010,
    );
    await coordinator.flush(10_010); // the robots.txt result and the sitemap job it queued are on disk; then the primary dies

    const second = await restart(20_000);
    const urlset = { index: false, urls: [`${ORIGIN}/from-sitemap`], dropped: 0 };
    const seen = await drain(second, 20_000, (job) =>
      job.kind === 'sitemap' ? { status: 200, sitemap: urlset } : { status: 200, page: page([]) },
    );
    assert.ok(
      seen.includes(`sitemap ${ORIGIN}/sitemap.xml`),
      `the sitemap is read after the restart: ${seen.join(', ')}`,
    );
    assert.ok(seen.includes(`page ${ORIGIN}/from-sitemap`), 'and the page it names is crawled');

    const third = await restart(30_000);
    const again = await drain(third, 30_000, () => ({ status: 200, page: page([]) }));
    assert.deepEqual(again, [], 'nothing is left to fetch: the sitemap was read, and a restart does not read it again');
  });

  test('robots.txt is refreshed conditionally once its day is over; a 304 keeps its rules for another day', async () => {
    const robots = coordinator.dispatch(10_000)!;
    assert.equal(robots.validators, undefined, 'the first fetch is not conditional');
    coordinator.onResult(
      fetchResult(robots.jobId, { status: 200, etag: '"r1"', robotsBody: 'User-agent: *\nDisallow: /private\n' }),
      10_010,
    );
    const seed = coordinator.dispatch(10_010 + DELAY_MS)!;
    coordinator.onResult(
      fetchResult(seed.jobId, { status: 200, page: page([`${ORIGIN}/private/x`, `${ORIGIN}/a`]) }),
      10_200,
    );
    await coordinator.flush(10_200);

    const later = 10_010 + ROBOTS_CACHE_MS;
    const refresh = coordinator.dispatch(later)!;
    assert.deepEqual(
      { kind: refresh.kind, validators: refresh.validators },
      { kind: 'robots', validators: { etag: '"r1"', lastModified: null } },
    );
    coordinator.onResult(fetchResult(refresh.jobId, { status: 304 }), later + 10);
    const next = coordinator.dispatch(later + 10 + DELAY_MS)!;
    assert.equal(next.url, `${ORIGIN}/a`);
    coordinator.onResult(fetchResult(next.jobId, { status: 200, page: page([]) }), later + 20 + DELAY_MS);
    assert.equal(
      coordinator.dispatch(later + 20 + 2 * DELAY_MS),
      undefined,
      'the stored rules still apply: /private is skipped',
    );
    await coordinator.flush(later + 20);
    const state = db.prepare('SELECT state FROM frontier WHERE url = ?').get(`${ORIGIN}/private/x`) as {
      state: string;
    };
    assert.equal(state.state, 'skipped');
    const row = coordinator.snapshot(later + 20, 1).domains[0];
    assert.deepEqual(
      { status: row.robots.status, http: row.robots.httpStatus, at: row.robots.fetchedAt },
      {
        status: 'ok',
        http: 304,
        at: new Date(later + 10).toISOString(),
      },
      'checked now: good for another day',
    );
  });
});
