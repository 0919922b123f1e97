/**
 * The crawler primary without processes: a CrawlPrimary with its real Coordinator on a real SQLite file,
 * driven by hand through a fake transport (workers and server are message logs) and time run by hand
 * (test-support/manual-time.ts). What the process does is asserted from what it sends, logs, schedules
 * and stores; a refused write is SQLite's own (`PRAGMA query_only`), so no root and no full disk is needed.
 */
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { refreshOffsetMs } from '../frontier/revisit-spread.ts';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { DB_FILE, openDatabase } from '../../db/open.ts';
import { databaseBytes } from '../../db/storage-size.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { ManualTime, settled } from '../../test-support/manual-time.ts';
import { fetchResult, parsedPage, TEST_WORKER_SETTINGS } from '../../test-support/coordinator-fixtures.ts';
import { Coordinator } from './coordinator.ts';
import { CrawlPrimary } from './crawl-primary.ts';
import { PRIMARY_TIMING, type PrimaryTransport, type WorkerHandle } from './primary-ports.ts';
import type { FetchJob, FetchResult, ParsedPage, PrimaryToServer, PrimaryToWorker } from '../common/protocol.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';

const DELAY_MS = 100;
const START = 10_000;
const SETTINGS = TEST_WORKER_SETTINGS;
const site = (name: string) => `https://${name}.example`;

/** Workers and server as logs of what the primary sent them; exits and kills recorded, nothing run. */
class FakeTransport implements PrimaryTransport<WorkerHandle> {
  readonly server: PrimaryToServer[] = [];
  readonly sent: Array<{ worker: number; msg: PrimaryToWorker; at: number }> = [];
  readonly kills: Array<{ worker: number; signal: string }> = [];
  readonly logs: string[] = [];
  readonly exits: number[] = [];
  forked = 0;
  /** While true, a message to the server is never confirmed as written (a server that does not read). */
  serverStuck = false;

  constructor(private readonly time: ManualTime) {}

  toServer(msg: PrimaryToServer, sent?: () => void): void {
    this.server.push(msg);
    if (!this.serverStuck) sent?.();
  }
  toWorker(worker: WorkerHandle, msg: PrimaryToWorker): void {
    this.sent.push({ worker: worker.id, msg, at: this.time.now });
  }
  forkWorker(): WorkerHandle {
    this.forked++;
    return { id: this.forked, pid: 1000 + this.forked };
  }
  killWorker(worker: WorkerHandle, signal: 'SIGTERM' | 'SIGKILL'): void {
    this.kills.push({ worker: worker.id, signal });
  }
  log(line: string): void {
    this.logs.push(line);
  }
  exit(code: number): void {
    this.exits.push(code);
  }

  /** The jobs handed out, in order, with the worker and the time. */
  jobs(): Array<FetchJob & { worker: number; at: number }> {
    return this.sent.flatMap(({ worker, msg, at }) => (msg.type === 'fetch' ? [{ ...msg.job, worker, at }] : []));
  }
  /** The messages of one type the server got. */
  toServerOf<T extends PrimaryToServer['type']>(type: T): Array<Extract<PrimaryToServer, { type: T }>> {
    return this.server.filter((m): m is Extract<PrimaryToServer, { type: T }> => m.type === type);
  }
}

/** A parsed page linking to `links` (no URL of its own, title 'T', one content hash for all). */
function page(links: string[]): ParsedPage {
  return parsedPage('', links, { title: 'T', contentHash: 'h' });
}

describe('CrawlPrimary', () => {
  let dir: string | undefined;
  let db: Database | undefined;
  /** A migrated, empty database, copied for each test (migrating anew each time would cost most of the file's time). */
  let template: string;
  before(() => {
    template = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-primary-template-'));
    openDatabase(template).close();
  });
  after(() => rmSync(template, { recursive: true, force: true }));
  afterEach(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    db = undefined;
    dir = undefined;
  });

  /** A primary over `sites` (one seed each, depth 2), started, with its `workers` forked and ready. */
  async function start(opts: {
    sites: string[];
    workers: number;
    slots: number;
    env?: Record<string, string>;
    clockSkew?: () => number;
  }) {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-primary-'));
    copyFileSync(path.join(template, DB_FILE), path.join(dir, DB_FILE));
    db = openDatabase(dir);
    for (const origin of opts.sites)
      seedQueries(db).upsertSeed({ url: `${origin}/`, origin, depth: 2, scope: 'host' }, 1000);
    const config = loadConfig({
      DATA_DIR: dir,
      CRAWL_DELAY_MS: String(DELAY_MS),
      CRAWL_WORKERS: String(opts.workers),
      ...opts.env,
    });
    const coordinator = new Coordinator(sqliteCrawlStore(db), config, 'unit');
    await coordinator.start(START);
    await coordinator.flush(START); // the hosts' first rows: stored, so that each test starts with no write pending
    const time = new ManualTime(START);
    const transport = new FakeTransport(time);
    let released = 0;
    /** The free space the disk reports (the database's size is its real one); null: not known. */
    const disk = { freeBytes: null as number | null, reads: 0 };
    const opened = db;
    const primary = new CrawlPrimary({
      coordinator,
      config,
      settings: SETTINGS,
      slotsPerWorker: opts.slots,
      clock: opts.clockSkew ? () => time.now + opts.clockSkew!() : time.clock,
      timers: time,
      transport,
      pid: 4242,
      readDisk: () => {
        disk.reads++;
        return { freeBytes: disk.freeBytes, dbBytes: databaseBytes(opened) };
      },
      release: () => {
        released++;
      },
    });
    primary.start();
    for (let id = 1; id <= opts.workers; id++) primary.onWorkerMessage(id, { type: 'ready' });
    const d = db;
    return {
      primary,
      time,
      transport,
      coordinator,
      db: d,
      dataDir: config.dataDir,
      released: () => released,
      disk,
      /** The worker running `job` reports it done with `part` at the current time. */
      async answer(job: FetchJob & { worker: number }, part: Partial<FetchResult>): Promise<void> {
        const result = fetchResult(job.jobId, { startedAt: time.now, endedAt: time.now, ...part });
        primary.onWorkerMessage(job.worker, { type: 'done', result, sinceEndMs: 0 });
        await settled(); // a flush it started at once (urgent links) has settled
      },
      /** The job handed out for `url` (the latest). */
      job(url: string): FetchJob & { worker: number; at: number } {
        const found = transport
          .jobs()
          .filter((j) => j.url === url)
          .at(-1);
        assert.ok(
          found,
          `a job for ${url} was handed out: ${transport
            .jobs()
            .map((j) => j.url)
            .join(', ')}`,
        );
        return found;
      },
      frontier(url: string) {
        return d.prepare('SELECT state, attempts, last_error AS lastError FROM frontier WHERE url = ?').get(url);
      },
      pagesStored: () => (d.prepare('SELECT COUNT(*) AS n FROM pages').get() as { n: number }).n,
    };
  }

  test('the pump fills every free slot, then sets exactly one wake-up timer, for the next due host', async () => {
    const sites = ['a', 'b', 'c', 'd', 'e'].map(site);
    const p = await start({ sites, workers: 2, slots: 2 });
    assert.equal(
      p.transport.sent.filter((s) => s.msg.type === 'settings').length,
      2,
      'each ready worker got the settings',
    );
    assert.deepEqual(
      p.transport.jobs().map((j) => `${j.kind} ${j.origin} w${j.worker}`),
      [`robots ${sites[0]} w1`, `robots ${sites[1]} w1`, `robots ${sites[2]} w2`, `robots ${sites[3]} w2`],
      'four slots, four robots.txt fetches; the fifth host waits for a slot',
    );
    assert.deepEqual(p.time.timeouts(), [], 'no free slot: no wake-up timer');

    await p.time.advanceTo(START + 10);
    await p.answer(p.job(`${sites[0]}/robots.txt`), { status: 404 });
    assert.equal(p.transport.jobs().at(-1)?.url, `${sites[4]}/robots.txt`, 'the freed slot is filled at once');
    assert.deepEqual(
      p.time.timeouts(),
      [START + 10 + PRIMARY_TIMING.flushMs],
      'the flush, and no wake-up timer: no slot is free',
    );

    await p.time.advanceTo(START + 30);
    await p.answer(p.job(`${sites[1]}/robots.txt`), { status: 404 });
    await p.time.advanceTo(START + 40);
    await p.answer(p.job(`${sites[2]}/robots.txt`), { status: 404 });
    const before = p.transport.jobs().length;
    assert.deepEqual(
      p.time.timeouts(),
      [START + 10 + PRIMARY_TIMING.flushMs, START + 10 + DELAY_MS],
      'one flush for the batch; one wake-up, when the first host is due (a, a delay after its robots.txt ended)',
    );

    await p.time.advanceTo(START + 10 + DELAY_MS - 1);
    assert.equal(p.transport.jobs().length, before, 'nothing before the wake-up');
    await p.time.advanceTo(START + 10 + DELAY_MS);
    assert.deepEqual(
      p.transport
        .jobs()
        .slice(before)
        .map((j) => `${j.url} @${j.at - START}`),
      [`${sites[0]}/ @110`],
    );
    assert.deepEqual(p.time.timeouts(), [START + 30 + DELAY_MS], 'one wake-up again, for the next due host (b)');
    await p.time.advanceTo(START + 30 + DELAY_MS);
    assert.deepEqual(
      p.transport
        .jobs()
        .slice(before)
        .map((j) => `${j.url} @${j.at - START}`),
      [`${sites[0]}/ @110`, `${sites[1]}/ @130`],
    );
    assert.deepEqual(p.time.timeouts(), [], 'no free slot again (c waits for one): no timer');
  });

  test('results are stored in one batch 50 ms after the first; links a free worker could start on are stored at once', async () => {
    const [a, b, c] = ['a', 'b', 'c'].map(site);
    const p = await start({ sites: [a, b, c], workers: 1, slots: 4 });
    for (const origin of [a, b, c]) await p.answer(p.job(`${origin}/robots.txt`), { status: 404 });
    await p.time.advance(DELAY_MS);
    const stored = () => p.transport.toServerOf('pages-stored').map((m) => m.count);

    const t = p.time.now;
    await p.answer(p.job(`${a}/`), { page: page([]) });
    await p.time.advance(20);
    await p.answer(p.job(`${b}/`), { page: page([]) });
    await p.time.advanceTo(t + PRIMARY_TIMING.flushMs - 1);
    assert.deepEqual([p.pagesStored(), stored()], [0, []], 'nothing stored within the 50 ms');
    await p.time.advanceTo(t + PRIMARY_TIMING.flushMs);
    assert.deepEqual([p.pagesStored(), stored()], [2, [2]], 'both stored by one flush, and the server told once');

    await p.time.advance(10);
    const handedOut = p.transport.jobs().length;
    await p.answer(p.job(`${c}/`), { page: page([`${c}/next`]) });
    assert.deepEqual([p.pagesStored(), stored()], [3, [2, 1]], 'a link to a host with nothing queued: stored at once');
    assert.deepEqual(p.time.timeouts(), [p.time.now + DELAY_MS], 'no flush pending; one wake-up, for the link');
    await p.time.advance(DELAY_MS);
    assert.deepEqual(
      p.transport
        .jobs()
        .slice(handedOut)
        .map((j) => j.url),
      [`${c}/next`],
      'and fetched as soon as its host is due',
    );
  });

  test('a write the database refuses pauses dispatch, is retried with a doubling wait capped at 5 s, is reported once, and recovers', async () => {
    const [a, b] = ['a', 'b'].map(site);
    const p = await start({ sites: [a, b], workers: 1, slots: 4 });
    p.db.pragma('query_only = ON'); // SQLite refuses every write from now on: SQLITE_READONLY, as a read-only file
    const failedAt = START + 10 + PRIMARY_TIMING.flushMs;
    await p.time.advance(10);
    await p.answer(p.job(`${a}/robots.txt`), { status: 404 });
    await p.time.advanceTo(failedAt);
    assert.deepEqual(
      p.transport.toServerOf('error').map((m) => m.message),
      [
        `cannot write to the database in ${p.dataDir} (SQLITE_READONLY: attempt to write a readonly database): ` +
          'is the disk full or the file read-only? The crawl is paused; what was fetched is kept and stored as soon as the database takes writes again',
      ],
    );
    await p.answer(p.job(`${b}/robots.txt`), { status: 404 }); // a result while paused is kept, not stored, and frees a slot
    const handedOut = p.transport.jobs().length;

    await p.time.advance(20_000); // a's and b's pages are long due
    assert.equal(p.transport.jobs().length, handedOut, 'no work handed out while nothing can be stored');
    const waits = p.transport.logs.flatMap((l) => /next in (\d+) ms/.exec(l)?.[1] ?? []).map(Number);
    assert.deepEqual(waits.slice(0, 7), [250, 500, 1000, 2000, 4000, 5000, 5000], 'doubling, capped at 5 s');
    assert.equal(p.transport.toServerOf('error').length, 1, 'the server is told once');
    assert.match(
      p.transport.logs[1],
      /^crawler: still cannot write to the database \(SQLITE_READONLY: .*; attempt 2 failed while storing results; next in 500 ms\)$/,
    );

    p.db.pragma('query_only = OFF');
    const retryAt = p.time.timeouts()[0];
    await p.time.advanceTo(retryAt);
    assert.deepEqual(
      p.transport.toServerOf('recovered').map((m) => m.message),
      [`the database takes writes again after ${((retryAt - failedAt) / 1000).toFixed(1)} s; the crawl continues`],
    );
    assert.deepEqual(
      p.transport
        .jobs()
        .slice(handedOut)
        .map((j) => j.url)
        .sort(),
      [`${a}/`, `${b}/`],
      'the crawl goes on at once',
    );
    assert.equal(p.transport.toServerOf('error').length, 1);
    const hosts = p.db.prepare('SELECT origin, robots_status AS robots FROM hosts ORDER BY origin').all();
    assert.deepEqual(
      hosts,
      [
        { origin: a, robots: 'allow-all' },
        { origin: b, robots: 'allow-all' },
      ],
      'what was fetched during the outage was kept and stored',
    );
  });

  test('under CRAWL_MIN_FREE_DISK no work is handed out and the server hears why; with room again it resumes by itself, checked every 5 s', async () => {
    const [a, b] = ['a', 'b'].map(site);
    const GB = 1024 ** 3;
    const p = await start({ sites: [a, b], workers: 1, slots: 4, env: { CRAWL_MIN_FREE_DISK: '1GB' } });
    p.disk.freeBytes = 5 * GB;
    for (const origin of [a, b]) await p.answer(p.job(`${origin}/robots.txt`), { status: 404 });
    await p.time.advance(DELAY_MS); // a/ and b/ are handed out
    const lastDisk = () => p.transport.toServerOf('snapshot').at(-1)!.disk;

    p.disk.freeBytes = 0.5 * GB; // the disk fills up
    await p.time.advanceTo(START + PRIMARY_TIMING.diskCheckMs);
    const reason =
      `crawling is paused: only 512 MB free on the disk of ${p.dataDir} (CRAWL_MIN_FREE_DISK is 1 GB): free some space, ` +
      'or lower CRAWL_MIN_FREE_DISK. Nothing new is queued or stored meanwhile; what is stored stays searchable, and the crawl resumes by itself once there is room';
    assert.deepEqual(
      { paused: lastDisk().paused, reason: lastDisk().reason, free: lastDisk().freeBytes },
      { paused: true, reason, free: 0.5 * GB },
      'the server hears it at once',
    );
    await p.answer(p.job(`${a}/`), { page: page([`${a}/next`]) }); // in flight when the check came: stored, its link too
    await p.answer(p.job(`${b}/`), { page: page([]) });
    await p.time.advance(PRIMARY_TIMING.flushMs);
    assert.equal(p.pagesStored(), 2);
    const handedOut = p.transport.jobs().length;
    await p.time.advance(30_000);
    assert.equal(p.transport.jobs().length, handedOut, `${a}/next is long due, but nothing is handed out`);
    assert.equal(
      p.disk.reads,
      1 + Math.floor((p.time.now - START) / PRIMARY_TIMING.diskCheckMs),
      'read at start and every 5 s, not per page',
    );

    p.disk.freeBytes = 1.01 * GB; // over the floor, but without the margin to spare
    await p.time.advance(PRIMARY_TIMING.diskCheckMs);
    assert.equal(p.transport.jobs().length, handedOut, 'no resuming at the very edge');
    p.disk.freeBytes = 3 * GB;
    await p.time.advance(PRIMARY_TIMING.diskCheckMs);
    assert.deepEqual(
      p.transport
        .jobs()
        .slice(handedOut)
        .map((j) => j.url),
      [`${a}/next`],
      'the crawl resumes by itself',
    );
    assert.deepEqual({ paused: lastDisk().paused, reason: lastDisk().reason }, { paused: false, reason: null });
    assert.deepEqual(
      p.transport.logs.filter((l) => /paused|resumes/.test(l)).map((l) => l.slice(0, 40)),
      ['crawler: crawling is paused: only 512 MB', 'crawler: there is room again on the disk'],
      'the log says each change once',
    );
  });

  test("a write refused for a reason that is not the machine's is fatal: reported, exit 1", async () => {
    const a = site('a');
    const p = await start({ sites: [a], workers: 1, slots: 4 });
    p.db.exec(`CREATE TRIGGER refuse BEFORE INSERT ON pages BEGIN SELECT RAISE(ABORT, 'a bug'); END`);
    await p.answer(p.job(`${a}/robots.txt`), { status: 404 });
    await p.time.advance(DELAY_MS);
    await p.answer(p.job(`${a}/`), { page: page([]) });
    await p.time.advance(PRIMARY_TIMING.flushMs);
    const message =
      'could not write to the database while storing results (SQLITE_CONSTRAINT_TRIGGER: a bug); restarting the crawler';
    assert.deepEqual(
      p.transport.toServerOf('error').map((m) => m.message),
      [message],
    );
    assert.deepEqual(p.transport.exits, [1]);
    assert.deepEqual(p.time.timeouts().length, 1, "no retry: only the fatal report's deadline is pending");
  });

  test('a worker that dies: its jobs go back to the queue (retried, counted) and a new worker takes over', async () => {
    const [a, b] = ['a', 'b'].map(site);
    const p = await start({ sites: [a, b], workers: 2, slots: 1 });
    for (const origin of [a, b]) await p.answer(p.job(`${origin}/robots.txt`), { status: 404 });
    await p.time.advance(DELAY_MS);
    const cut = p.job(`${a}/`);
    p.primary.onWorkerExit(cut.worker, null, 'SIGKILL');
    assert.deepEqual(p.transport.logs, [`crawler: worker ${1000 + cut.worker} died (SIGKILL); starting another`]);
    assert.equal(p.transport.forked, 3, 'a replacement is forked');
    await p.time.advance(PRIMARY_TIMING.flushMs);
    assert.deepEqual(p.frontier(`${a}/`), {
      state: 'queued',
      attempts: 1,
      lastError: 'the worker fetching it died (SIGKILL)',
    });

    p.primary.onWorkerMessage(3, { type: 'ready' });
    assert.equal(
      p.transport.jobs().length,
      4,
      'nothing yet: the host waits two delays after a request whose end it never saw',
    );
    await p.time.advanceTo(cut.at + 2 * DELAY_MS);
    assert.deepEqual(
      p.job(`${a}/`),
      { ...cut, jobId: p.job(`${a}/`).jobId, worker: 3, at: cut.at + 2 * DELAY_MS },
      'fetched again, by the new worker',
    );
  });

  test('shutdown: no new work, a grace for fetches in flight, the rest back to the queue, a last flush, workers stopped, exit 0', async () => {
    const [a, b] = ['a', 'b'].map(site);
    const p = await start({ sites: [a, b], workers: 2, slots: 1 });
    for (const origin of [a, b]) await p.answer(p.job(`${origin}/robots.txt`), { status: 404 });
    await p.time.advance(DELAY_MS);
    const [slow, hanging] = [p.job(`${a}/`), p.job(`${b}/`)];
    const handedOut = p.transport.jobs().length;

    const stopped = p.primary.shutdown('SIGTERM');
    assert.deepEqual(p.transport.logs, ['crawler: stopping (SIGTERM); 2 fetches in flight']);
    assert.deepEqual(p.time.intervals(), [], 'the snapshot and refresh timers are stopped');
    await p.time.advance(1000);
    await p.answer(slow, { page: page([`${a}/next`]) }); // finishes within the grace: stored, its link queued
    await p.time.advance(PRIMARY_TIMING.shutdownGraceMs - 1000 - 1);
    await settled();
    assert.equal(p.transport.kills.length, 0, 'the hanging fetch still has its grace');
    await p.time.advance(1);
    await settled();
    assert.equal(p.transport.jobs().length, handedOut, 'no work handed out after the signal');
    assert.deepEqual(
      p.frontier(`${a}/`),
      { state: 'done', attempts: 1, lastError: null },
      'the fetch that finished in its grace is stored',
    );
    assert.deepEqual(
      p.frontier(`${a}/next`),
      { state: 'queued', attempts: 0, lastError: null },
      'its link is queued for the next start',
    );
    assert.deepEqual(
      p.frontier(`${b}/`),
      { state: 'queued', attempts: 0, lastError: null },
      'the cut fetch is back in the queue, not counted as a failure',
    );
    assert.deepEqual(p.transport.kills, [
      { worker: 1, signal: 'SIGTERM' },
      { worker: 2, signal: 'SIGTERM' },
    ]);

    p.primary.onWorkerExit(slow.worker, 0, null);
    await p.time.advance(PRIMARY_TIMING.workerExitMs);
    assert.deepEqual(
      p.transport.kills.slice(2),
      [{ worker: hanging.worker, signal: 'SIGKILL' }],
      'the worker still there is killed',
    );
    assert.equal(p.released(), 0, 'the database stays open until every worker is gone');
    p.primary.onWorkerExit(hanging.worker, null, 'SIGKILL');
    await stopped;
    assert.equal(p.transport.forked, 2, 'no replacement for a worker stopped on purpose');
    assert.equal(p.released(), 1);
    assert.deepEqual(p.transport.logs.slice(1), ['crawler: stopped (1 unfinished fetches returned to the queue)']);
    assert.deepEqual(p.transport.exits, [0]);
    await p.primary.shutdown('SIGINT');
    assert.deepEqual(p.transport.exits, [0], 'a second signal changes nothing');
  });

  test('the snapshot timer reports every 500 ms; the refresh timer crawls a seed again once CRAWL_REFRESH has passed', async () => {
    const a = site('a');
    const p = await start({ sites: [a], workers: 1, slots: 4, env: { CRAWL_REFRESH: '2s' } });
    await p.answer(p.job(`${a}/robots.txt`), { status: 404 });
    await p.time.advance(DELAY_MS);
    await p.answer(p.job(`${a}/`), { page: page([]) });
    const crawledAt = p.time.now;
    await p.time.advance(PRIMARY_TIMING.flushMs);
    const snapshots = p.transport.toServerOf('snapshot');
    assert.equal(snapshots.length, 0, 'not before 500 ms');
    await p.time.advanceTo(START + 1000);
    assert.equal(p.transport.toServerOf('snapshot').length, 2);
    assert.deepEqual(p.transport.toServerOf('snapshot')[1].status, {
      queued: 0,
      inFlight: 0,
      workers: 1,
      fetchRatePerMin: 2,
    });

    // Due 2 s after its crawl and its site's own offset later (revisit-spread.ts); checked every 500 ms from the start.
    const dueAt = crawledAt + 2000 + refreshOffsetMs(a, 2000);
    const checkAt = START + Math.ceil((dueAt - START) / 500) * 500;
    await p.time.advanceTo(dueAt - 1);
    assert.equal(p.transport.jobs().length, 2, "not crawled again before CRAWL_REFRESH and the site's offset");
    await p.time.advanceTo(checkAt + 500);
    assert.deepEqual(p.transport.logs, [
      'crawler: crawling 1 seed(s) again, their last crawl being older than CRAWL_REFRESH',
    ]);
    assert.equal(p.transport.jobs().length, 3, 'the seed page is fetched again');
    assert.equal(
      p.job(`${a}/`).at,
      checkAt,
      "at the first check (every 500 ms, a quarter of CRAWL_REFRESH) after its crawl is 2 s old, and its site's offset",
    );
  });

  test('the first snapshot carries every host, the next ones only the hosts that changed', async () => {
    const [a, b] = [site('a'), site('b')];
    const p = await start({ sites: [a, b], workers: 1, slots: 1 });
    await p.time.advanceTo(START + 500);
    await p.answer(p.job(`${a}/robots.txt`), { status: 404 }); // a's robots.txt read; b waits for the slot
    await p.time.advanceTo(START + 1000);
    const sent = p.transport
      .toServerOf('snapshot')
      .map((s) => ({ full: s.full, hosts: s.hosts.map((h) => h.row.host) }));
    assert.deepEqual(sent, [
      { full: true, hosts: ['a.example', 'b.example'] },
      { full: false, hosts: ['a.example', 'b.example'] }, // a's robots.txt read, b's now in flight
    ]);
    await p.time.advanceTo(START + 1500);
    assert.deepEqual(p.transport.toServerOf('snapshot').at(-1)!.hosts, [], 'nothing changed: no host sent');
  });

  test("a snapshot that took long (thousands of hosts) spaces out the next ones: at most a tenth of the primary's time", async () => {
    let took = 0;
    const p = await start({ sites: [site('a')], workers: 1, slots: 4, clockSkew: () => took });
    const snapshot = p.coordinator.snapshotChanges.bind(p.coordinator);
    p.coordinator.snapshotChanges = (now, workers, full) => {
      took += 300; // the primary's clock moves on while it describes every host
      return snapshot(now, workers, full);
    };
    await p.time.advanceTo(START + 3000);
    assert.equal(p.transport.toServerOf('snapshot').length, 1, 'one snapshot of 300 ms: the next waits 3 s');
    await p.time.advanceTo(START + 3500);
    assert.equal(p.transport.toServerOf('snapshot').length, 2);
  });

  test('an uncaught failure is reported as fatal: no more work, the server told, exit 1 once told or after 1 s', async () => {
    const a = site('a');
    const p = await start({ sites: [a], workers: 1, slots: 4 });
    p.transport.serverStuck = true;
    const err = new Error('boom');
    p.primary.crashed(err);
    assert.deepEqual(p.transport.logs, [`crawler: ${err.stack}`, 'crawler: crashed (boom); restarting the crawler']);
    assert.deepEqual(
      p.transport.toServerOf('error').map((m) => m.message),
      ['crashed (boom); restarting the crawler'],
    );
    await p.answer(p.job(`${a}/robots.txt`), { status: 404 });
    await p.time.advance(PRIMARY_TIMING.fatalReportMs - 1);
    assert.equal(p.transport.jobs().length, 1, 'no work handed out after the failure');
    assert.deepEqual(p.transport.exits, [], 'waiting for the report to be written');
    await p.time.advance(1);
    assert.deepEqual(p.transport.exits, [1], 'a server that does not read does not keep the process alive');
  });
});
