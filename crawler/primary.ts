import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ConfigError, configFromArgument, type Config } from '../shared/config.ts';
import { DatabaseNotWritableError, openDatabase, type Database } from '../db/open.ts';
import { errorDetail, storageErrorAdvice, storageErrorDetail } from '../db/storage-error.ts';
import { Coordinator } from './coordination/coordinator.ts';
import { FETCH_DEFAULTS, fetchLimits } from './fetch/fetcher.ts';
import { acquireLock, releaseLock } from './coordination/primary-lock.ts';
import { refreshCheckMs } from './frontier/refresh.ts';
import type { PrimaryToServer, PrimaryToWorker, ServerToPrimary, WorkerSettings, WorkerToPrimary } from './coordination/protocol.ts';
import { WorkerPool } from './coordination/worker-pool.ts';

/**
 * The crawler primary: forked by the server, it forks CRAWL_WORKERS cluster workers and is the only
 * place that decides when any host may be contacted. Workers say `ready`; a worker gets a job only when
 * that job's host is due; one timer wakes the primary exactly when the next host becomes due.
 *
 * When the database refuses writes (full disk, read-only file), the batch stays queued in memory,
 * no new work is handed out, and the write is retried with a doubling wait until it succeeds; any
 * other failure is reported and ends the process, and the server starts a new one (leases return).
 */
const WORKER_ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));
const FLUSH_MS = 50;
const SNAPSHOT_MS = 500;
const SHUTDOWN_GRACE_MS = 5_000;
const WORKER_EXIT_MS = 2_000;
/** Waits between attempts to write after the database refused a write: doubling, capped. */
export const WRITE_RETRY = { firstMs: 250, maxMs: 5_000 };
/** Error codes that come from the machine, not from a bug: wait them out instead of restarting. */

const now = () => performance.timeOrigin + performance.now();

function toServer(msg: PrimaryToServer): void {
  // A server that died after `connected` was read makes the write fail with EPIPE; the callback takes that
  // error (otherwise an unhandled 'error' would crash the primary); 'disconnect' then starts the shutdown.
  if (process.connected) process.send!(msg, () => undefined);
}

let stopping = false;

/** Reports `message` to the log and the server, then exits with 1 once the report is sent (at most 1 s). */
function fatal(message: string): void {
  stopping = true;
  process.stderr.write(`crawler: ${message}\n`);
  const exit = () => process.exit(1);
  setTimeout(exit, 1000);
  if (process.connected) process.send!({ type: 'error', message } satisfies PrimaryToServer, exit);
  else exit();
}
process.on('uncaughtException', (err) => {
  process.stderr.write(`crawler: ${err.stack ?? String(err)}\n`);
  fatal(`crashed (${err.message}); restarting the crawler`);
});

async function startUp(): Promise<{ config: Config; db: Database; coordinator: Coordinator }> {
  const config = configFromArgument(process.argv[2]); // parsed and validated once, by the server
  await acquireLock(config.dataDir);
  let db: Database;
  try {
    db = openDatabase(config.dataDir);
  } catch (err) {
    if (err instanceof DatabaseNotWritableError) throw err; // it names the folder and says what to do
    throw new Error(`cannot open the database in ${config.dataDir}: ${(err as Error).message}`);
  }
  const coordinator = new Coordinator(db, config, randomUUID());
  try {
    coordinator.start(now());
  } catch (err) {
    throw new Error(`cannot load the crawl state from the database in ${config.dataDir}: ${(err as Error).message}`);
  }
  return { config, db, coordinator };
}

const started = await startUp().catch((err: unknown) => {
  fatal(err instanceof ConfigError ? err.message : `cannot start: ${(err as Error).message}`);
  return undefined;
});
if (started === undefined) await new Promise<never>(() => undefined); // fatal() ends the process
const { config, db, coordinator } = started!;

const settings: WorkerSettings = {
  userAgent: config.userAgent,
  allowPrivate: config.allowPrivate,
  ...fetchLimits(config.crawlTimeoutMs), // timeouts from CRAWL_TIMEOUT_MS, body cap, link limit
};

const pool = new WorkerPool<Worker>(FETCH_DEFAULTS.fetchesPerWorker);
let wakeTimer: NodeJS.Timeout | null = null;
let wakeAt = Infinity;
let drained: (() => void) | null = null;

/** Set while the database refuses writes: since when, how often it failed, and the pending retry. */
let trouble: { since: number; failures: number; timer: NodeJS.Timeout | null; reported: string } | null = null;

function sendWorker(worker: Worker, msg: PrimaryToWorker): void {
  // A worker killed a moment ago may still look connected: the write then fails with EPIPE, and without a
  // callback that error is emitted unhandled on the Worker and crashes the primary. Nothing is lost by
  // ignoring it: cluster's 'exit' for that worker returns its job to the queue.
  if (worker.isConnected()) worker.send(msg, () => undefined);
}

/**
 * A write failed. Errors of the machine (full disk, read-only file, I/O) pause the handing out of work
 * and retry the queued writes with a doubling wait; anything else is a bug: report it and exit.
 */
function onWriteError(err: unknown, during: string): void {
  const detail = storageErrorDetail(err);
  if (detail === null) {
    fatal(`could not write to the database while ${during} (${errorDetail(err)}); restarting the crawler`);
    return;
  }
  trouble ??= { since: Date.now(), failures: 0, timer: null, reported: '' };
  trouble.failures++;
  const waitMs = Math.min(WRITE_RETRY.firstMs * 2 ** (trouble.failures - 1), WRITE_RETRY.maxMs);
  const message = `${storageErrorAdvice(config.dataDir, detail)} ` +
    'The crawl is paused; what was fetched is kept and stored as soon as the database takes writes again';
  const attempt = `attempt ${trouble.failures} failed while ${during}; next in ${waitMs} ms`;
  if (message !== trouble.reported) {
    trouble.reported = message;
    process.stderr.write(`crawler: ${message} (${attempt})\n`);
    toServer({ type: 'error', message });
  } else {
    process.stderr.write(`crawler: still cannot write to the database (${detail}; ${attempt})\n`);
  }
  trouble.timer = setTimeout(() => {
    trouble!.timer = null;
    flushNow();
  }, waitMs);
}

/** The database took a write again after refusing some: say so and carry on. */
function recovered(): void {
  if (!trouble) return;
  const message = `the database takes writes again after ${((Date.now() - trouble.since) / 1000).toFixed(1)} s; the crawl continues`;
  trouble = null;
  process.stderr.write(`crawler: ${message}\n`);
  toServer({ type: 'recovered', message });
}

/** Hands every due job to a worker with a free slot (see WorkerPool), then sets the one timer for the next due host. */
function pump(): void {
  if (stopping || trouble?.timer) return;
  const t = now();
  try {
    while (pool.hasFreeSlot()) {
      const job = coordinator.dispatch(t);
      if (!job) break;
      const worker = pool.assign(job.origin, job.jobId)!;
      sendWorker(worker, { type: 'fetch', job });
    }
  } catch (err) {
    onWriteError(err, 'handing out work');
    return;
  }
  recovered();
  if (coordinator.hasWrites()) scheduleFlush();
  const next = pool.hasFreeSlot() ? coordinator.nextWakeAt() : undefined;
  if (next === undefined) {
    if (wakeTimer) clearTimeout(wakeTimer);
    wakeTimer = null;
    wakeAt = Infinity;
    return;
  }
  if (wakeTimer && next >= wakeAt) return;
  if (wakeTimer) clearTimeout(wakeTimer);
  wakeAt = next;
  wakeTimer = setTimeout(() => {
    wakeTimer = null;
    wakeAt = Infinity;
    pump();
  }, Math.max(0, Math.ceil(next - now())));
}

let flushTimer: NodeJS.Timeout | null = null;
/** Stores the queued writes in one transaction; a refused write keeps them queued for the retry. */
function flushNow(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  if (trouble?.timer) return; // the retry timer flushes
  try {
    const stored = coordinator.flush(now());
    if (stored > 0) toServer({ type: 'pages-stored', count: stored });
  } catch (err) {
    onWriteError(err, 'storing results');
    return;
  }
  pump();
}
function scheduleFlush(): void {
  if (!flushTimer && !trouble?.timer) flushTimer = setTimeout(flushNow, FLUSH_MS);
}

function checkDrained(): void {
  if (drained && coordinator.inFlightCount() === 0) drained();
}

function forkWorker(): void {
  const worker = cluster.fork();
  worker.on('message', (msg: WorkerToPrimary) => {
    if (msg.type === 'ready') {
      sendWorker(worker, { type: 'settings', settings });
      pool.add(worker);
    } else if (msg.type === 'done') {
      pool.release(worker.id, msg.result.jobId);
      coordinator.onResult(msg.result, now(), msg.sinceEndMs);
      checkDrained();
      // Links to a host with nothing queued are stored at once (flushNow pumps): a slot is free for them.
      if (coordinator.takeUrgent()) {
        flushNow();
        return;
      }
      scheduleFlush();
    }
    pump();
  });
}

cluster.setupPrimary({ exec: WORKER_ENTRY, execArgv: process.execArgv });
cluster.on('exit', (worker, code, signal) => {
  for (const jobId of pool.remove(worker.id)) {
    coordinator.abandon(jobId, now(), `the worker fetching it died (${signal ?? `code ${code}`})`);
  }
  checkDrained();
  if (!stopping) {
    process.stderr.write(`crawler: worker ${worker.process.pid} died (${signal ?? `code ${code}`}); starting another\n`);
    forkWorker();
    scheduleFlush();
  }
});
for (let i = 0; i < config.crawlWorkers; i++) forkWorker();

const snapshotTimer = setInterval(() => {
  const snap = coordinator.snapshot(now(), pool.readyCount()); // workers loaded and ready to fetch
  toServer({ type: 'snapshot', ...snap });
}, SNAPSHOT_MS);

// Seeds whose last crawl is older than CRAWL_REFRESH are crawled again (crawler/frontier/refresh.ts); never at 0.
const refreshTimer = config.crawlRefreshMs > 0 ? setInterval(() => {
  if (stopping || trouble?.timer) return; // a database that refuses writes: the next check tries again
  try {
    const refreshed = coordinator.refreshSeeds(now());
    if (refreshed === 0) return;
    process.stderr.write(`crawler: crawling ${refreshed} seed(s) again, their last crawl being older than CRAWL_REFRESH\n`);
  } catch (err) {
    onWriteError(err, 'queueing seeds for their refresh');
    return;
  }
  pump();
}, refreshCheckMs(config.crawlRefreshMs)) : undefined;

/** SIGTERM to every worker, SIGKILL to those still there after WORKER_EXIT_MS; resolves once all have exited. */
async function stopWorkers(): Promise<void> {
  const live = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined && !w.isDead());
  const exits = live.map((w) => new Promise<void>((resolve) => {
    if (w.isDead()) resolve();
    else w.process.once('exit', () => resolve());
  }));
  for (const w of live) w.process.kill('SIGTERM');
  const killer = setTimeout(() => {
    for (const w of live) if (!w.isDead()) w.process.kill('SIGKILL');
  }, WORKER_EXIT_MS);
  await Promise.all(exits);
  clearTimeout(killer);
}

/**
 * Stops handing out work, gives in-flight fetches SHUTDOWN_GRACE_MS to finish (their results are
 * stored), returns the rest to the queue, waits for the workers to exit, and exits.
 */
async function shutdown(why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (wakeTimer) clearTimeout(wakeTimer);
  if (trouble?.timer) clearTimeout(trouble.timer);
  clearInterval(snapshotTimer);
  clearInterval(refreshTimer);
  process.stderr.write(`crawler: stopping (${why}); ${coordinator.inFlightCount()} fetches in flight\n`);
  if (coordinator.inFlightCount() > 0) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, SHUTDOWN_GRACE_MS);
      drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
  const cut = coordinator.inFlightCount();
  coordinator.returnInFlight();
  try {
    coordinator.flush(now());
  } catch (err) {
    process.stderr.write(`crawler: final write failed (${(err as Error).message}); leased URLs return to the queue at the next start\n`);
  }
  await stopWorkers();
  db.close();
  releaseLock(config.dataDir);
  process.stderr.write(`crawler: stopped (${cut} unfinished fetches returned to the queue)\n`);
  process.exit(0);
}

process.on('message', (msg: ServerToPrimary) => {
  switch (msg.type) {
    case 'seeds-changed':
      try {
        coordinator.syncSeeds(now());
      } catch (err) {
        // The seeds are in the database; a new primary reads them at start.
        fatal(`could not queue the new seeds (${(err as Error).message}); restarting the crawler`);
        return;
      }
      pump();
      break;
    case 'requests':
      toServer({ type: 'requests', reqId: msg.reqId, requests: coordinator.requests(msg.origin) });
      break;
    case 'shutdown':
      void shutdown('asked by the server');
      break;
  }
});
process.on('disconnect', () => void shutdown('the server went away'));
// Forked with an IPC channel that already closed (the server died while we started): nobody to serve.
if (process.send !== undefined && !process.connected) void shutdown('the server went away before the crawler started');
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
toServer({ type: 'started', pid: process.pid });
pump();
