import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadConfig } from '../server/config.ts';
import { openDatabase } from '../db/open.ts';
import { Coordinator } from './coordinator.ts';
import { FETCH_DEFAULTS } from './fetcher.ts';
import { acquireLock, releaseLock } from './primary-lock.ts';
import type { PrimaryToServer, PrimaryToWorker, ServerToPrimary, WorkerSettings, WorkerToPrimary } from './protocol.ts';

/**
 * The crawler primary: forked by the server, it forks CRAWL_WORKERS cluster workers and is the only
 * place that decides when any host may be contacted. Workers say `ready`; a worker gets a job only when
 * that job's host is due; one timer wakes the primary exactly when the next host becomes due.
 */
const WORKER_ENTRY = fileURLToPath(new URL('./worker.ts', import.meta.url));
const FLUSH_MS = 50;
const SNAPSHOT_MS = 500;
const SHUTDOWN_GRACE_MS = 5_000;

const now = () => performance.timeOrigin + performance.now();

function toServer(msg: PrimaryToServer): void {
  // A server that died after `connected` was read makes the write fail with EPIPE; the callback takes that
  // error (otherwise an unhandled 'error' would crash the primary); 'disconnect' then starts the shutdown.
  if (process.connected) process.send!(msg, () => undefined);
}

function fail(message: string): never {
  process.stderr.write(`crawler: ${message}\n`);
  toServer({ type: 'error', message });
  process.exit(1);
}

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  fail(err instanceof ConfigError ? err.message : String(err));
}
await acquireLock(config.dataDir);
const db = openDatabase(config.dataDir);
const coordinator = new Coordinator(db, config, randomUUID());
coordinator.start(now());

const settings: WorkerSettings = {
  userAgent: config.userAgent,
  allowPrivate: config.allowPrivate,
  connectTimeoutMs: FETCH_DEFAULTS.connectTimeoutMs,
  headersTimeoutMs: FETCH_DEFAULTS.headersTimeoutMs,
  bodyTimeoutMs: FETCH_DEFAULTS.bodyTimeoutMs,
  totalTimeoutMs: FETCH_DEFAULTS.totalTimeoutMs,
  maxBodyBytes: FETCH_DEFAULTS.maxBodyBytes,
  maxLinks: FETCH_DEFAULTS.maxLinks,
};

const idle: Worker[] = [];
const busy = new Map<number, number>(); // worker id → job id
let stopping = false;
let wakeTimer: NodeJS.Timeout | null = null;
let wakeAt = Infinity;

function sendWorker(worker: Worker, msg: PrimaryToWorker): void {
  // A worker killed a moment ago may still look connected: the write then fails with EPIPE, and without a
  // callback that error is emitted unhandled on the Worker and crashes the primary. Nothing is lost by
  // ignoring it: cluster's 'exit' for that worker returns its job to the queue.
  if (worker.isConnected()) worker.send(msg, () => undefined);
}

/** Hands a job to every idle worker whose next job is due, then sets the one timer for the next due host. */
function pump(): void {
  if (stopping) return;
  const t = now();
  while (idle.length > 0) {
    const job = coordinator.dispatch(t);
    if (!job) break;
    const worker = idle.shift()!;
    busy.set(worker.id, job.jobId);
    sendWorker(worker, { type: 'fetch', job });
  }
  if (coordinator.hasWrites()) scheduleFlush();
  const next = idle.length > 0 ? coordinator.nextWakeAt() : undefined;
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
function flushNow(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  try {
    const stored = coordinator.flush(now());
    if (stored > 0) toServer({ type: 'pages-stored', count: stored });
  } catch (err) {
    // A write that fails (disk full, read-only file) is reported; the work stays leased and returns next start.
    const message = `could not write to the database: ${(err as Error).message}`;
    process.stderr.write(`crawler: ${message}\n`);
    toServer({ type: 'error', message });
  }
  pump();
}
function scheduleFlush(): void {
  if (!flushTimer) flushTimer = setTimeout(flushNow, FLUSH_MS);
}

function forkWorker(): void {
  const worker = cluster.fork();
  worker.on('message', (msg: WorkerToPrimary) => {
    if (msg.type === 'ready') {
      sendWorker(worker, { type: 'settings', settings });
      idle.push(worker);
    } else if (msg.type === 'done') {
      busy.delete(worker.id);
      coordinator.onResult(msg.result, now());
      idle.push(worker);
      scheduleFlush();
    }
    pump();
  });
}

cluster.setupPrimary({ exec: WORKER_ENTRY, execArgv: process.execArgv });
cluster.on('exit', (worker, code, signal) => {
  const i = idle.indexOf(worker);
  if (i >= 0) idle.splice(i, 1);
  const jobId = busy.get(worker.id);
  busy.delete(worker.id);
  if (jobId !== undefined) coordinator.abandon(jobId, now(), `the worker fetching it died (${signal ?? `code ${code}`})`);
  if (!stopping) {
    process.stderr.write(`crawler: worker ${worker.process.pid} died (${signal ?? `code ${code}`}); starting another\n`);
    forkWorker();
    scheduleFlush();
  }
});
for (let i = 0; i < config.crawlWorkers; i++) forkWorker();

const snapshotTimer = setInterval(() => {
  const snap = coordinator.snapshot(now(), Object.values(cluster.workers ?? {}).filter((w) => w?.isConnected()).length);
  toServer({ type: 'snapshot', ...snap });
}, SNAPSHOT_MS);

/** Stops handing out work, lets in-flight fetches finish for a few seconds, returns the rest, exits cleanly. */
async function shutdown(why: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  if (wakeTimer) clearTimeout(wakeTimer);
  clearInterval(snapshotTimer);
  process.stderr.write(`crawler: stopping (${why})\n`);
  const deadline = Date.now() + SHUTDOWN_GRACE_MS;
  while (coordinator.inFlightCount() > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
  }
  coordinator.returnInFlight();
  try {
    coordinator.flush(now());
  } catch (err) {
    process.stderr.write(`crawler: final write failed: ${(err as Error).message}\n`);
  }
  for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  db.close();
  releaseLock(config!.dataDir);
  process.exit(0);
}

process.on('message', (msg: ServerToPrimary) => {
  switch (msg.type) {
    case 'seeds-changed':
      coordinator.syncSeeds(now());
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
