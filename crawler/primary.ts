import { machineNow } from './common/machine-clock.ts';
import cluster, { type Worker } from 'node:cluster';
import { randomUUID } from 'node:crypto';
import { ConfigError, configFromArgument, crawlNodeId, type Config } from '../shared/config.ts';
import { processEntry } from '../shared/project-root.ts';
import { type CrawlStorage, openCrawlStorage } from '../db/engine.ts';
import { freeDiskBytes } from '../db/storage-size.ts';
import { Coordinator, type CoordinatorOptions } from './coordination/coordinator.ts';
import { NodeLeases } from './cluster/node-leases.ts';
import { previousNode, recordNode } from './cluster/node-file.ts';
import { checkLeaseTiming, LEASE } from './cluster/lease-rules.ts';
import { CrawlPrimary, NODE_SEED_POLL_MS } from './coordination/crawl-primary.ts';
import { fatalExit } from './coordination/fatal-exit.ts';
import { FETCH_DEFAULTS, fetchLimits } from './fetch/fetch-limits.ts';
import { acquireLock, releaseLock } from './coordination/primary-lock.ts';
import { isPrimaryOnlyOption } from './primary-heap.ts';
import type { PrimaryTransport, Timers, WorkerHandle } from './coordination/primary-ports.ts';
import {
  WORKER_IPC_SERIALIZATION,
  type PrimaryToServer,
  type ServerToPrimary,
  type WorkerToPrimary,
} from './common/protocol.ts';

/**
 * The crawler primary process, forked by the server: wiring only. It opens the crawl's storage on the
 * configured engine (db/engine.ts: SQLite in DATA_DIR, or PostgreSQL at DATABASE_URL), then connects
 * a CrawlPrimary (crawler/coordination/crawl-primary.ts: dispatch, batched writes, write retry, workers,
 * timers, shutdown) to the process: cluster workers running crawler/worker.ts, the server's IPC channel,
 * signals, the real clock and timers.
 */
const WORKER_ENTRY = processEntry('crawler/worker.ts'); // its bundle when this primary runs from dist/

const clock = () => performance.timeOrigin + performance.now();
const timers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

/** A cluster worker as CrawlPrimary knows it. */
interface ClusterWorker extends WorkerHandle {
  readonly worker: Worker;
}

let primary: CrawlPrimary<ClusterWorker> | undefined;

const transport: PrimaryTransport<ClusterWorker> = {
  toServer(msg: PrimaryToServer, sent?: () => void): void {
    // A server that died after `connected` was read makes the write fail with EPIPE; the callback takes that
    // error (otherwise an unhandled 'error' would crash the primary); 'disconnect' then starts the shutdown.
    if (process.connected) process.send!(msg, () => sent?.());
    else sent?.();
  },
  toWorker({ worker }, msg): void {
    // A worker killed a moment ago may still look connected: the write then fails with EPIPE, and without a
    // callback that error is emitted unhandled on the Worker and crashes the primary. Nothing is lost by
    // ignoring it: cluster's 'exit' for that worker returns its job to the queue.
    if (worker.isConnected()) worker.send(msg, () => undefined);
  },
  forkWorker(): ClusterWorker {
    const worker = cluster.fork();
    worker.on('message', (msg: WorkerToPrimary) => primary?.onWorkerMessage(worker.id, msg));
    return { id: worker.id, pid: worker.process.pid, worker };
  },
  killWorker({ worker }, signal): void {
    if (!worker.isDead()) worker.process.kill(signal);
  },
  log: (line) => void process.stderr.write(`${line}\n`),
  exit: (code) => process.exit(code),
};

process.on('uncaughtException', (err) => {
  if (primary) {
    primary.crashed(err);
    return;
  }
  process.stderr.write(`crawler: ${err.stack ?? String(err)}\n`);
  fatalExit(transport, timers, `crashed (${err.message}); restarting the crawler`);
});

/**
 * Takes DATA_DIR's lock (one primary per DATA_DIR, on either engine), opens the crawl's storage and loads
 * the crawl state; throws saying which step failed.
 */
async function startUp(): Promise<{
  config: Config;
  storage: CrawlStorage;
  coordinator: Coordinator;
  leases: NodeLeases | null;
}> {
  const config = configFromArgument(process.argv[2], process.env); // parsed and validated once, by the server
  await acquireLock(config.dataDir);
  const storage = await openCrawlStorage(config);
  // On PostgreSQL this primary is a crawler node: it crawls only the politeness groups it leases (issue 29).
  const node = crawlNodeId(config);
  let leases: NodeLeases | null = null;
  const lease: CoordinatorOptions['lease'] =
    storage.pool === null
      ? undefined
      : {
          node,
          dropped: (l, writes) =>
            transport.log(
              `crawler: node ${node} lost the lease of group ${l.group} (epoch ${l.epoch}); ${writes} write(s) of its results dropped, never retried: its URLs stay queued for the node that holds it now`,
            ),
          noted: (groups) => leases?.workNoted(groups),
          machineTime: (t) => t + (machineNow() - clock()),
          unsent: (url, why) => transport.log(`crawler: node ${node}: ${why}`),
        };
  if (lease !== undefined) {
    checkLeaseTiming(
      { leaseMs: config.crawlLeaseMs, marginMs: config.crawlLeaseMarginMs, renewFraction: LEASE.renewFraction },
      config.crawlTimeoutMs,
    );
  }
  const coordinator = new Coordinator(storage.store, config, randomUUID(), { lease });
  if (storage.pool !== null && coordinator.leases !== null && storage.store.leases !== undefined) {
    leases = new NodeLeases({
      pool: storage.pool,
      store: storage.store.leases,
      node,
      config,
      leases: coordinator.leases,
      clock,
      log: (line) => transport.log(line),
      changed: () => primary?.pump(),
    });
  }
  try {
    await coordinator.start(clock());
  } catch (err) {
    await storage.close();
    const where = storage.engine === 'sqlite' ? `the database in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
    throw new Error(`cannot load the crawl state from ${where}: ${(err as Error).message}`);
  }
  return { config, storage, coordinator, leases };
}

const started = await startUp().catch((err: unknown) => {
  fatalExit(transport, timers, err instanceof ConfigError ? err.message : `cannot start: ${(err as Error).message}`);
  return undefined;
});
if (started === undefined) await new Promise<never>(() => undefined); // fatalExit ends the process
const { config, storage, coordinator, leases } = started!;

const running = new CrawlPrimary<ClusterWorker>({
  coordinator,
  config,
  clock,
  timers,
  transport,
  pid: process.pid,
  settings: {
    userAgent: config.userAgent,
    allowPrivate: config.allowPrivate,
    ...fetchLimits(config.crawlTimeoutMs),
    resolve: config.crawlResolve,
  },
  slotsPerWorker: FETCH_DEFAULTS.fetchesPerWorker,
  // A crawler node on PostgreSQL hears of seeds added or removed through any server within a second (issue 29).
  pollSeedsMs: leases === null ? undefined : NODE_SEED_POLL_MS,
  readDisk: () => ({ freeBytes: freeDiskBytes(config.dataDir), dbBytes: storage.databaseBytes() }),
  release: async () => {
    try {
      // After the last batch: the groups are released with their clocks, and the node leaves (PostgreSQL).
      await leases
        ?.stop()
        .catch((err: unknown) =>
          transport.log(`crawler: could not leave cleanly (${(err as Error).message}); its leases expire instead`),
        );
      await storage.close();
    } finally {
      releaseLock(config.dataDir);
    }
  },
});
primary = running;

// Workers get this process's node options (tsx's loader under tests) except the small young generation
// `npm start` gives the server and this primary to keep them light while idle, and the primary's own heap
// options (primary-heap.ts): a worker parses pages, whose garbage dies young, and it runs only while there is work.
// Messages cross as V8's structured clone ('advanced'), not JSON: a page's result is mostly one long text,
// which the clone copies where JSON escapes and scans it, on both sides (see protocol.ts, WORKER_IPC_SERIALIZATION).
cluster.setupPrimary({
  exec: WORKER_ENTRY,
  execArgv: process.execArgv.filter((arg) => !arg.startsWith('--max-semi-space-size') && !isPrimaryOnlyOption(arg)),
  serialization: WORKER_IPC_SERIALIZATION,
});
cluster.on('exit', (worker, code, signal) => running.onWorkerExit(worker.id, code, signal));
process.on('message', (msg: ServerToPrimary) => running.onServerMessage(msg));
process.on('disconnect', () => void running.shutdown('the server went away'));
process.on('SIGTERM', () => void running.shutdown('SIGTERM'));
process.on('SIGINT', () => void running.shutdown('SIGINT'));
running.start();
if (leases !== null) {
  const previous = previousNode(config.dataDir);
  recordNode(config.dataDir, crawlNodeId(config));
  leases
    .start(previous)
    .catch((err: unknown) => running.fatal(`cannot join the crawler nodes: ${(err as Error).message}`));
  transport.log(`crawler: node ${crawlNodeId(config)} holds politeness groups by lease on PostgreSQL`);
}
// Forked with an IPC channel that already closed (the server died while we started): nobody to serve.
if (process.send !== undefined && !process.connected)
  void running.shutdown('the server went away before the crawler started');
