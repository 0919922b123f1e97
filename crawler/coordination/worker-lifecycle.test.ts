/**
 * Workers that start when there is work and leave when there is none, through a CrawlPrimary with its
 * real Coordinator on a real SQLite file, the workers and the server as message logs (nothing forked)
 * and time run by hand (test-support/manual-time.ts), as crawl-primary.test.ts does.
 */
import { afterEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { openDatabase } from '../../db/open.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { ManualTime, settled } from '../../test-support/manual-time.ts';
import { Coordinator } from './coordinator.ts';
import { CrawlPrimary } from './crawl-primary.ts';
import { fetchResult, parsedPage, TEST_WORKER_SETTINGS } from '../../test-support/coordinator-fixtures.ts';
import { PRIMARY_TIMING, type PrimaryTransport, type WorkerHandle } from './primary-ports.ts';
import type { FetchJob, FetchResult, PrimaryToServer, PrimaryToWorker } from '../common/protocol.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';

const DELAY_MS = 100;
const START = 10_000;
const SETTINGS = TEST_WORKER_SETTINGS;
const site = (name: string) => `https://${name}.example`;

/** Workers and server as logs of what the primary sent them; forks, kills and log lines recorded. */
class FakeTransport implements PrimaryTransport<WorkerHandle> {
  readonly server: PrimaryToServer[] = [];
  readonly sent: Array<{ worker: number; msg: PrimaryToWorker; at: number }> = [];
  readonly kills: Array<{ worker: number; signal: string; at: number }> = [];
  readonly logs: string[] = [];
  readonly forks: number[] = [];

  constructor(private readonly time: ManualTime) {}

  toServer(msg: PrimaryToServer, sent?: () => void): void {
    this.server.push(msg);
    sent?.();
  }
  toWorker(worker: WorkerHandle, msg: PrimaryToWorker): void {
    this.sent.push({ worker: worker.id, msg, at: this.time.now });
  }
  forkWorker(): WorkerHandle {
    this.forks.push(this.time.now);
    return { id: this.forks.length, pid: 1000 + this.forks.length };
  }
  killWorker(worker: WorkerHandle, signal: 'SIGTERM' | 'SIGKILL'): void {
    this.kills.push({ worker: worker.id, signal, at: this.time.now });
  }
  log(line: string): void {
    this.logs.push(line);
  }
  exit(): void {}

  jobs(): Array<FetchJob & { worker: number; at: number }> {
    return this.sent.flatMap(({ worker, msg, at }) => (msg.type === 'fetch' ? [{ ...msg.job, worker, at }] : []));
  }
  /** `workers` of the latest snapshot the server got. */
  workersReported(): number | undefined {
    return this.server.filter((m) => m.type === 'snapshot').at(-1)?.status.workers;
  }
}

describe('WorkerLifecycle: workers while there is work, none while there is none', () => {
  let dir: string | undefined;
  let db: Database | undefined;
  afterEach(() => {
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    db = undefined;
    dir = undefined;
  });

  /** A started primary with `workers` as CRAWL_WORKERS and no seed. */
  async function start(workers: number) {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-worker-lifecycle-'));
    db = openDatabase(dir);
    const config = loadConfig({ DATA_DIR: dir, CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_WORKERS: String(workers) });
    const coordinator = new Coordinator(sqliteCrawlStore(db), config, 'unit');
    await coordinator.start(START);
    const time = new ManualTime(START);
    const transport = new FakeTransport(time);
    const primary = new CrawlPrimary({
      coordinator,
      config,
      settings: SETTINGS,
      slotsPerWorker: 4,
      clock: time.clock,
      timers: time,
      transport,
      pid: 4242,
      release: () => {},
      readDisk: () => ({ freeBytes: null, dbBytes: 0 }), // the disk budget is not what this test is about
    });
    primary.start();
    const d = db;
    return {
      primary,
      time,
      transport,
      /** Adds a seed the way the server does: the seeds table, then `seeds-changed`. */
      async addSeed(origin: string): Promise<void> {
        seedQueries(d).upsertSeed({ url: `${origin}/`, origin, depth: 0, scope: 'host' }, time.now);
        primary.onServerMessage({ type: 'seeds-changed' });
        await settled(); // the seeds' sync reads and writes storage, awaited
      },
      /** The worker running `job` reports it done with `part`, now. */
      async answer(job: FetchJob & { worker: number }, part: Partial<FetchResult>): Promise<void> {
        const result = fetchResult(job.jobId, { startedAt: time.now, endedAt: time.now, ...part });
        primary.onWorkerMessage(job.worker, { type: 'done', result, sinceEndMs: 0 });
        await settled(); // a flush it started at once (urgent links) has settled
      },
    };
  }

  test('nothing to fetch: no worker runs and the status says 0; the first due job starts CRAWL_WORKERS workers at once, and goes to the first one ready', async () => {
    const p = await start(2);
    await p.time.advance(10 * PRIMARY_TIMING.snapshotMs);
    assert.deepEqual(p.transport.forks, [], 'no worker started with nothing to crawl');
    assert.equal(p.transport.workersReported(), 0);
    assert.deepEqual(p.time.timeouts(), [], 'no timer waits for anything');

    const a = site('a');
    await p.addSeed(a);
    assert.deepEqual(p.transport.forks, [p.time.now, p.time.now], 'both workers started with the seed');
    await p.time.advance(150); // a worker's start-up
    p.primary.onWorkerMessage(2, { type: 'ready' });
    assert.deepEqual(
      p.transport.jobs().map((j) => `${j.url} w${j.worker} +${j.at - p.transport.forks[0]}`),
      [`${a}/robots.txt w2 +150`],
      'fetched as soon as a worker is ready',
    );
    p.primary.onWorkerMessage(1, { type: 'ready' });
    await p.time.advance(PRIMARY_TIMING.snapshotMs);
    assert.equal(p.transport.workersReported(), 2, 'both alive, and said so');
  });

  test(`a worker without a job for ${PRIMARY_TIMING.workerIdleMs / 1000} s leaves (SIGTERM); its exit is no death: no log, no replacement; work brings workers back`, async () => {
    const p = await start(2);
    const a = site('a');
    await p.addSeed(a);
    p.primary.onWorkerMessage(1, { type: 'ready' });
    p.primary.onWorkerMessage(2, { type: 'ready' });
    const readyAt = p.time.now;
    await p.time.advance(20_000);
    const robots = p.transport.jobs()[0];
    await p.answer(robots, { status: 404 }); // its worker has had a job until now; the other none since it was ready
    const robotsDoneAt = p.time.now;
    await p.time.advance(DELAY_MS);
    const home = p.transport.jobs()[1];
    assert.equal(home.url, `${a}/`);
    await p.answer(home, {
      page: parsedPage('', [], { title: 'A', contentHash: 'h' }),
    });
    const homeDoneAt = p.time.now;
    assert.equal(home.worker, robots.worker, 'a host goes back to the worker that last fetched from it');
    const idle = 3 - robots.worker;

    await p.time.advanceTo(readyAt + PRIMARY_TIMING.workerIdleMs - 1);
    assert.equal(p.transport.kills.length, 0, 'not before a minute without a job');
    await p.time.advanceTo(readyAt + PRIMARY_TIMING.workerIdleMs + PRIMARY_TIMING.snapshotMs);
    assert.deepEqual(
      p.transport.kills.map((k) => `w${k.worker} ${k.signal}`),
      [`w${idle} SIGTERM`],
      'the worker that never had a job leaves first',
    );
    assert.ok(p.transport.kills[0].at - readyAt <= PRIMARY_TIMING.workerIdleMs + PRIMARY_TIMING.snapshotMs);
    p.primary.onWorkerExit(idle, null, 'SIGTERM');
    assert.equal(p.transport.workersReported(), 1);

    await p.time.advanceTo(homeDoneAt + PRIMARY_TIMING.workerIdleMs + PRIMARY_TIMING.snapshotMs);
    assert.ok(robotsDoneAt < homeDoneAt);
    assert.deepEqual(
      p.transport.kills.map((k) => `w${k.worker} ${k.signal}`),
      [`w${idle} SIGTERM`, `w${robots.worker} SIGTERM`],
      'the other leaves a minute after its last job',
    );
    p.primary.onWorkerExit(robots.worker, 0, null);
    assert.deepEqual(p.transport.logs, [], 'leaving is not dying: nothing logged');
    assert.equal(p.transport.forks.length, 2, 'and nothing replaced');
    assert.equal(p.transport.workersReported(), 0, 'the status says no worker is alive');

    const b = site('b');
    await p.addSeed(b);
    assert.equal(p.transport.forks.length, 4, 'new work starts CRAWL_WORKERS workers again');
    p.primary.onWorkerMessage(3, { type: 'ready' });
    assert.equal(p.transport.jobs().at(-1)?.url, `${b}/robots.txt`);
  });

  test('a job due later with no worker alive: the wake-up timer starts the workers when it is due', async () => {
    const p = await start(1);
    const a = site('a');
    await p.addSeed(a);
    p.primary.onWorkerMessage(1, { type: 'ready' });
    const crawlDelayS = 300; // longer than a worker waits idle
    await p.answer(p.transport.jobs()[0], { status: 200, robotsBody: `User-agent: *\nCrawl-delay: ${crawlDelayS}\n` });
    const robotsEnd = p.time.now;
    await p.time.advance(PRIMARY_TIMING.workerIdleMs + PRIMARY_TIMING.snapshotMs);
    p.primary.onWorkerExit(1, null, 'SIGTERM');
    assert.equal(p.transport.kills.length, 1, 'the worker left while the host waits out its Crawl-delay');

    await p.time.advanceTo(robotsEnd + crawlDelayS * 1000 - 1);
    assert.equal(p.transport.forks.length, 1, 'no worker before the page is due');
    await p.time.advanceTo(robotsEnd + crawlDelayS * 1000);
    assert.equal(p.transport.forks.length, 2, 'a worker starts when it is due');
    p.primary.onWorkerMessage(2, { type: 'ready' });
    assert.deepEqual(
      p.transport.jobs().map((j) => `${j.url} w${j.worker}`),
      [`${a}/robots.txt w1`, `${a}/ w2`],
    );
  });

  test('a worker with jobs never leaves however long its fetches take; a busy crawl grows back to CRAWL_WORKERS after a death', async () => {
    const p = await start(2);
    const [a, b] = [site('a'), site('b')];
    await p.addSeed(a);
    await p.addSeed(b);
    p.primary.onWorkerMessage(1, { type: 'ready' });
    p.primary.onWorkerMessage(2, { type: 'ready' });
    assert.deepEqual(
      p.transport.jobs().map((j) => `${j.url} w${j.worker}`),
      [`${a}/robots.txt w1`, `${b}/robots.txt w1`],
      'the first ready worker takes both',
    );
    await p.time.advance(3 * PRIMARY_TIMING.workerIdleMs);
    assert.deepEqual(
      p.transport.kills.map((k) => `w${k.worker}`),
      ['w2'],
      'only the worker that never had a job left',
    );
    p.primary.onWorkerExit(2, null, 'SIGTERM');
    p.primary.onWorkerExit(1, null, 'SIGKILL');
    assert.deepEqual(p.transport.logs, ['crawler: worker 1001 died (SIGKILL); starting another']);
    assert.equal(p.transport.forks.length, 3, 'the dead worker is replaced at once');
  });
});
