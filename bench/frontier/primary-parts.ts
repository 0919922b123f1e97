/**
 * The database-backed parts of the frontier benchmark: the real crawler primary without its processes
 * (CrawlPrimary with its real Coordinator, DispatchLoop, FlushPacer and WorkerLifecycle, real timers and
 * clock) on a copy of the generated database (frontier-db.ts: 1,000,000 queued URLs over 10,000 hosts),
 * with a fake transport whose "workers" answer every fetch at once (a non-HTML 200: finished, nothing
 * stored), so what is measured is the primary alone.
 *
 *  - restart: from opening the database to the first job handed out, as a restarted primary does it
 *    (64 URLs left leased by the one that died, so an unclean stop: every host waits its delay from the
 *    restart, a wait that is politeness, not cost, reported apart);
 *  - crawl: per-dispatch time (Coordinator.dispatch: scheduler, robots, any refill of the host's window
 *    read at once, and queueing the lease and the host's start for the next batch) in wall time and in
 *    CPU time (process.cpuUsage around each call: on a shared machine wall time includes waiting for a
 *    core); the primary's RSS and heap, jobs in memory;
 *  - then, in the same crawl, removing a seed of 100,000 queued URLs (the server's way: the seed row
 *    marked removed, `seeds-changed`): how long until its URLs and row are gone; the removal's own work on
 *    the primary's one thread, each piece timed where it runs (reading the change, each chunk of its URLs
 *    deleted inside a flush, each dispatch call that passed over its jobs or rows), the longest of which is
 *    the longest any other host's dispatch waited behind the removal; the flushes meanwhile beside those
 *    of as long a time before; and the longest gap between two jobs handed out to other hosts meanwhile,
 *    beside the longest gap before it.
 */
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../../db/open.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { Coordinator } from '../../crawler/coordination/coordinator.ts';
import { CrawlPrimary } from '../../crawler/coordination/crawl-primary.ts';
import type { PrimaryTransport, Timers, WorkerHandle } from '../../crawler/coordination/primary-ports.ts';
import type {
  FetchJob,
  FetchResult,
  PrimaryToServer,
  PrimaryToWorker,
  WorkerSettings,
} from '../../crawler/coordination/protocol.ts';
import { FETCH_DEFAULTS, fetchLimits } from '../../crawler/fetch/fetcher.ts';
import { copyOfDatabase, hostOrigin, seedOfHost, type FrontierShape } from './frontier-db.ts';
import { percentiles, type Percentiles } from './scheduler-parts.ts';

/** What the restart part measured (ms and MiB). */
export interface RestartFigures {
  queued: number;
  openMs: number;
  startMs: number;
  firstDispatchMs: number;
  /** From opening the database to the first job handed out, the wait for its host to be due left out. */
  totalMs: number;
  /** How long after the start the first host was due (after an unclean stop, a delay from the restart). */
  firstDueAfterMs: number;
  rssMiB: number;
  heapMiB: number;
  jobsInMemory: number;
  /** How the primary ran (see runtimeDescription). */
  runtime: string;
}

/** What the crawl part measured. */
export interface CrawlFigures {
  queued: number;
  hosts: number;
  workers: number;
  slots: number;
  seconds: number;
  dispatches: number;
  dispatchesPerSec: number;
  /** Per Coordinator.dispatch that handed out a job (ms). */
  wall: Percentiles;
  cpu: Percentiles;
  /** The primary's CPU per job handed out, everything included (results, flushes, refills, timers; ms). */
  cpuPerDispatchMs: number;
  flushes: number;
  flushWall: Percentiles;
  snapshots: number;
  /** Each snapshot sent during the measured crawl: built and serialized as IPC does (JSON), wall and CPU ms. */
  snapshotWall: Percentiles;
  snapshotCpu: Percentiles;
  /** Hosts and bytes per snapshot sent during the measured crawl. */
  snapshotHosts: Percentiles;
  snapshotBytes: Percentiles;
  /** The primary's first snapshot (every host), at the start of the warm-up. */
  fullSnapshot: { wallMs: number; cpuMs: number; hosts: number; bytes: number };
  /** Largest gap between two jobs handed out (ms) during the measured crawl. */
  maxGapMs: number;
  rssMaxMiB: number;
  heapMaxMiB: number;
  /** RSS and heap after the crawl and the removal, as the primary goes on (no forced collection). */
  rssAfterMiB: number;
  heapAfterMiB: number;
  jobsInMemoryMax: number;
  /** How the primary ran: compiled JavaScript (as `npm start` runs it) or TypeScript under tsx, and its node options. */
  runtime: string;
  removal: RemovalFigures;
}

/** What removing a seed of 100,000 queued URLs measured. */
export interface RemovalFigures {
  urls: number;
  hostsOfSeed: number;
  /** From `seeds-changed` to the seed's row deleted (its URLs gone before). */
  totalMs: number;
  flushesWithRemoval: number;
  /** Reading the change (the seed marked removed, its jobs taken out of the hosts' queues), wall and CPU. */
  syncMs: number;
  syncCpuMs: number;
  /** The longest flush while the seed was being removed (each holds one chunk, and the results of the moment), wall and CPU. */
  longestStepMs: number;
  longestStepCpuMs: number;
  flushCpu: Percentiles;
  /** The longest flush over as long a time just before the removal (results only), wall and CPU. */
  longestFlushBeforeMs: number;
  longestFlushBeforeCpuMs: number;
  /** The chunks of its URLs deleted (the DELETE inside a flush): the longest, wall and CPU, and CPU p50 / p99. */
  longestChunkMs: number;
  longestChunkCpuMs: number;
  chunkCpu: Percentiles;
  /** Dispatch calls that passed over jobs or rows of the removed seed: how many, the longest (wall and CPU). */
  passOverDispatches: number;
  longestPassOverMs: number;
  longestPassOverCpuMs: number;
  /** The windows' refills after a flush that passed over rows of the removed seed: how many, the longest (wall and CPU). */
  passOverRefills: number;
  longestRefillMs: number;
  longestRefillCpuMs: number;
  /**
   * The longest piece of the removal's own work at once (reading the change, a chunk deleted, a dispatch call
   * or a flush's refills passing over its jobs or rows): the longest any other host's dispatch waited behind the removal (wall, and its CPU).
   */
  longestDelayMs: number;
  longestDelayCpuMs: number;
  /** Longest gap between two jobs handed out to other hosts while the seed was being removed, and over the same time before it. */
  maxGapDuringMs: number;
  maxGapBeforeMs: number;
  dispatchesDuring: number;
}

const clock = () => performance.timeOrigin + performance.now();
const timers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
};
const mib = (bytes: number) => bytes / 2 ** 20;
const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function config(dataDir: string, workers: number) {
  return loadConfig({ DATA_DIR: dataDir, CRAWL_WORKERS: String(workers), CRAWL_ALLOW_PRIVATE: '1' });
}

/** Jobs the scheduler holds (pages of the windows, robots.txt and sitemaps). */
function jobsInMemory(coordinator: Coordinator): number {
  let n = 0;
  for (const h of coordinator.scheduler.allHosts()) n += h.queue.length + h.priority.length;
  return n;
}

/** A restarted primary: open, start, first dispatch. */
export function runRestart(file: string, shape: FrontierShape): RestartFigures {
  const copy = copyOfDatabase(file);
  try {
    const prep = openDatabase(copy.dataDir);
    prep
      .prepare(
        `UPDATE frontier SET state = 'leased', lease_owner = 'dead', leased_at = 1 WHERE id IN (SELECT id FROM frontier ORDER BY id LIMIT 64)`,
      )
      .run();
    prep.prepare(`UPDATE crawler_stop SET clean = 0`).run(); // it died: no clean stop (migration 0017)
    prep.close();
    const t0 = performance.now();
    const db = openDatabase(copy.dataDir);
    const t1 = performance.now();
    const coordinator = new Coordinator(db, config(copy.dataDir, 4), 'bench-restart');
    const startedAt = clock();
    coordinator.start(startedAt);
    const t2 = performance.now();
    const dueAt = coordinator.nextWakeAt();
    if (dueAt === undefined) throw new Error('frontier-bench: the restarted primary had nothing to hand out');
    const at = Math.max(clock(), dueAt); // the injected time: the wait for the host is not the primary's cost
    const t3a = performance.now();
    const job = coordinator.dispatch(at);
    const t3 = performance.now();
    if (!job) throw new Error('frontier-bench: the restarted primary handed nothing out when a host was due');
    const mem = process.memoryUsage();
    const figures = {
      queued: shape.hosts * shape.urlsPerHost,
      openMs: t1 - t0,
      startMs: t2 - t1,
      firstDispatchMs: t3 - t3a,
      totalMs: t3 - t3a + (t2 - t0),
      firstDueAfterMs: Math.max(0, dueAt - startedAt),
      rssMiB: mib(mem.rss),
      heapMiB: mib(mem.heapUsed),
      jobsInMemory: jobsInMemory(coordinator),
      runtime: runtimeDescription(),
    };
    db.close();
    return figures;
  } finally {
    copy.dispose();
  }
}

/** Fake workers: every fetch is answered at once (next turn of the event loop) with a non-HTML 200. */
class InstantWorkers implements PrimaryTransport<WorkerHandle> {
  primary: CrawlPrimary<WorkerHandle> | undefined;
  readonly logs: string[] = [];
  private forked = 0;
  /** Snapshots sent so far, and the last one's hosts and size as IPC sends it. */
  snapshots = 0;
  lastSnapshot = { hosts: 0, bytes: 0 };
  toServer(msg: PrimaryToServer, sent?: () => void): void {
    // Serialized as process.send does (the channel's default 'json' serialization): part of what a message costs the primary.
    const bytes = Buffer.byteLength(`${JSON.stringify(msg)}\n`);
    if (msg.type === 'snapshot') {
      this.snapshots++;
      this.lastSnapshot = { hosts: msg.hosts.length, bytes };
    }
    sent?.();
  }
  toWorker(worker: WorkerHandle, msg: PrimaryToWorker): void {
    if (msg.type !== 'fetch') return;
    setImmediate(() =>
      this.primary?.onWorkerMessage(worker.id, { type: 'done', result: answer(msg.job), sinceEndMs: 0 }),
    );
  }
  forkWorker(): WorkerHandle {
    return { id: ++this.forked, pid: undefined };
  }
  killWorker(worker: WorkerHandle): void {
    setImmediate(() => this.primary?.onWorkerExit(worker.id, 0, 'SIGTERM'));
  }
  log(line: string): void {
    this.logs.push(line);
  }
  exit(): void {}
}

function answer(job: FetchJob): FetchResult {
  const now = clock();
  return {
    jobId: job.jobId,
    startedAt: now,
    endedAt: now,
    status: job.kind === 'robots' ? 404 : 200,
    contentType: 'application/octet-stream',
    etag: null,
    lastModified: null,
    retryAfterMs: null,
    location: null,
    locationRefusal: null,
    robotsBody: null,
    page: null,
    error: null,
  };
}

/** Times every call of `fn` on `target` that returns something (wall and CPU ms), into `wall` / `cpu`. */
function timeCalls<T extends object, K extends keyof T>(
  target: T,
  key: K,
  onCall: (wallMs: number, cpuMs: number, out: unknown) => void,
): void {
  const fn = (target[key] as (...args: unknown[]) => unknown).bind(target);
  (target as Record<K, unknown>)[key] = (...args: unknown[]) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const out = fn(...args);
    const wall = performance.now() - t0;
    onCall(wall, cpuMs(process.cpuUsage(c0)), out);
    return out;
  };
}

/** A growable sample of numbers. */
class Sample {
  private xs = new Float64Array(1 << 16);
  n = 0;
  push(x: number): void {
    if (this.n === this.xs.length) {
      const bigger = new Float64Array(this.xs.length * 2);
      bigger.set(this.xs);
      this.xs = bigger;
    }
    this.xs[this.n++] = x;
  }
  at(i: number): number {
    return this.xs[i];
  }
  stats(): Percentiles {
    return percentiles(this.xs.subarray(0, this.n));
  }
  reset(): void {
    this.n = 0;
  }
}

/** Crawls the generated frontier for `seconds` after `warmupSeconds`, then removes seed `removeSeed` and waits for it to go. */
export async function runCrawl(
  file: string,
  shape: FrontierShape,
  opts: { workers: number; warmupSeconds: number; seconds: number; removeSeed: number },
): Promise<CrawlFigures> {
  const copy = copyOfDatabase(file);
  const db = openDatabase(copy.dataDir);
  try {
    const cfg = config(copy.dataDir, opts.workers);
    const coordinator = new Coordinator(db, cfg, 'bench-crawl');
    coordinator.start(clock());
    const wall = new Sample();
    const cpu = new Sample();
    const flushWall = new Sample();
    const snapshotWall = new Sample();
    // Each job handed out: when, and whether its host is the removed seed's.
    const dispatchAt = new Sample();
    const dispatchOther = new Sample();
    let removing = false;
    let removalFlushes: Array<{ wall: number; cpu: number }> = [];
    const flushLog: Array<{ at: number; wall: number; cpu: number }> = [];
    let sync = { wall: 0, cpu: 0 };
    const chunks: Array<{ wall: number; cpu: number }> = [];
    const passOvers: Array<{ wall: number; cpu: number }> = [];
    const refills: Array<{ wall: number; cpu: number }> = [];
    let passedOverInCall = false;
    const removedHosts = new Set<string>();
    for (let h = 0; h < shape.hosts; h++) if (seedOfHost(shape, h) === opts.removeSeed) removedHosts.add(hostOrigin(h));
    // The removal's own work: the chunks of its URLs deleted (the Coordinator's private frontier queries, which
    // its seed lifecycle calls too), and the dispatch calls that pass over its jobs or rows (the window's, counted
    // by its removed seeds' ledger).
    const inner = coordinator as unknown as {
      frontier: { dropSeedChunk: () => unknown };
      window: {
        removed: { passOver: (...args: unknown[]) => void };
        committed: () => void;
        readyAgain: (origin: string) => void;
      };
    };
    timeCalls(inner.frontier, 'dropSeedChunk', (w, c) => {
      if (removing) chunks.push({ wall: w, cpu: c });
    });
    const passOver = inner.window.removed.passOver.bind(inner.window.removed);
    inner.window.removed.passOver = (...args: unknown[]) => {
      passedOverInCall = true;
      passOver(...args);
    };
    timeCalls(inner.window, 'committed', (w, c) => {
      if (removing && passedOverInCall) refills.push({ wall: w, cpu: c });
    });
    const timedRefill = inner.window.committed.bind(inner.window);
    inner.window.committed = () => {
      passedOverInCall = false;
      timedRefill();
    };
    // A host's window read on when its request ends (FrontierWindow.readyAgain) is a refill too.
    timeCalls(inner.window, 'readyAgain', (w, c) => {
      if (removing && passedOverInCall) refills.push({ wall: w, cpu: c });
    });
    const timedReady = inner.window.readyAgain.bind(inner.window);
    inner.window.readyAgain = (origin: string) => {
      passedOverInCall = false;
      timedReady(origin);
    };
    timeCalls(coordinator, 'dispatch', (w, c, out) => {
      if (removing && passedOverInCall) passOvers.push({ wall: w, cpu: c });
      if (out === undefined) return;
      wall.push(w);
      cpu.push(c);
      dispatchAt.push(performance.now());
      dispatchOther.push(removedHosts.has((out as FetchJob).origin) ? 0 : 1);
    });
    const timedDispatch = coordinator.dispatch.bind(coordinator);
    coordinator.dispatch = (now: number) => {
      passedOverInCall = false;
      return timedDispatch(now);
    };
    timeCalls(coordinator, 'flush', (w, c) => {
      flushWall.push(w);
      flushLog.push({ at: performance.now(), wall: w, cpu: c });
      if (removing) removalFlushes.push({ wall: w, cpu: c });
    });
    timeCalls(coordinator, 'syncSeeds', (w, c) => {
      if (removing) sync = { wall: w, cpu: c };
    });
    const transport = new InstantWorkers();
    const snapshotCpu = new Sample();
    const snapshotHosts = new Sample();
    const snapshotBytes = new Sample();
    let fullSnapshot: CrawlFigures['fullSnapshot'] | undefined;
    const settings: WorkerSettings = {
      userAgent: cfg.userAgent,
      allowPrivate: true,
      ...fetchLimits(cfg.crawlTimeoutMs),
    };
    const primary = new CrawlPrimary<WorkerHandle>({
      coordinator,
      config: cfg,
      settings,
      slotsPerWorker: FETCH_DEFAULTS.fetchesPerWorker,
      clock,
      timers,
      transport,
      pid: process.pid,
      release: () => undefined,
      readDisk: () => ({ freeBytes: null, dbBytes: 0 }), // the disk budget is not what this part measures
    });
    transport.primary = primary;
    // A snapshot from start to sent: the hosts' facts gathered and the message serialized (a private method, timed here).
    timeCalls(primary as unknown as { sendSnapshot: () => void }, 'sendSnapshot', (w, c) => {
      if (transport.snapshots === sentBefore) return; // spaced out by its cost: none sent this time
      sentBefore = transport.snapshots;
      const { hosts, bytes } = transport.lastSnapshot;
      if (fullSnapshot === undefined) {
        fullSnapshot = { wallMs: w, cpuMs: c, hosts, bytes };
        return;
      }
      snapshotWall.push(w);
      snapshotCpu.push(c);
      snapshotHosts.push(hosts);
      snapshotBytes.push(bytes);
    });
    let sentBefore = 0;
    primary.start();
    for (let id = 1; id <= opts.workers; id++) primary.onWorkerMessage(id, { type: 'ready' });

    await sleep(opts.warmupSeconds * 1000);
    for (const s of [
      wall,
      cpu,
      flushWall,
      snapshotWall,
      snapshotCpu,
      snapshotHosts,
      snapshotBytes,
      dispatchAt,
      dispatchOther,
    ])
      s.reset();
    let rssMax = 0;
    let heapMax = 0;
    let jobsMax = 0;
    const sampler = setInterval(() => {
      const m = process.memoryUsage();
      rssMax = Math.max(rssMax, m.rss);
      heapMax = Math.max(heapMax, m.heapUsed);
      jobsMax = Math.max(jobsMax, jobsInMemory(coordinator));
    }, 250);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(opts.seconds * 1000);
    const measuredMs = performance.now() - t0;
    const crawlCpuMs = cpuMs(process.cpuUsage(c0));
    const crawled = {
      dispatches: wall.n,
      wall: wall.stats(),
      cpu: cpu.stats(),
      flushes: flushWall.n,
      flushWall: flushWall.stats(),
      snapshots: snapshotWall.n,
      snapshotWall: snapshotWall.stats(),
      snapshotCpu: snapshotCpu.stats(),
      snapshotHosts: snapshotHosts.stats(),
      snapshotBytes: snapshotBytes.stats(),
    };
    const before = gaps(dispatchAt, dispatchOther, t0, t0 + measuredMs);

    // Remove one seed of 100,000 queued URLs, as the server does.
    const seedRow = db.prepare(`SELECT COUNT(*) AS n FROM frontier WHERE seed_id = ?`).get(opts.removeSeed) as {
      n: number;
    };
    const seedExists = db.prepare(`SELECT 1 FROM seeds WHERE id = ?`).pluck();
    removalFlushes = [];
    removing = true;
    const r0 = performance.now();
    seedQueries(db).markSeedRemoved(opts.removeSeed, Date.now());
    primary.onServerMessage({ type: 'seeds-changed' });
    while (seedExists.get(opts.removeSeed) !== undefined) await sleep(20);
    const removalMs = performance.now() - r0;
    removing = false;
    const during = gaps(dispatchAt, dispatchOther, r0, r0 + removalMs);
    // As long a time just before the removal (within the measured crawl), for comparison.
    const beforeSame = gaps(dispatchAt, dispatchOther, Math.max(t0, r0 - removalMs), r0);
    clearInterval(sampler);
    const after = process.memoryUsage();
    const longestOf = (xs: ReadonlyArray<{ wall: number; cpu: number }>) =>
      xs.reduce((a, b) => (b.wall > a.wall ? b : a), { wall: 0, cpu: 0 });
    const longest = longestOf(removalFlushes);
    const flushCpu = new Sample();
    for (const f of removalFlushes) flushCpu.push(f.cpu);
    const flushBefore = longestOf(flushLog.filter((f) => f.at >= Math.max(t0, r0 - removalMs) && f.at < r0));
    const chunkCpu = new Sample();
    for (const ch of chunks) chunkCpu.push(ch.cpu);
    const longestChunk = longestOf(chunks);
    const longestPassOver = longestOf(passOvers);
    const longestRefill = longestOf(refills);
    const longestDelay = longestOf([sync, longestChunk, longestPassOver, longestRefill]);
    await primary.shutdown('the benchmark is over');
    return {
      queued: shape.hosts * shape.urlsPerHost,
      hosts: shape.hosts,
      workers: opts.workers,
      slots: opts.workers * FETCH_DEFAULTS.fetchesPerWorker,
      seconds: measuredMs / 1000,
      dispatches: crawled.dispatches,
      dispatchesPerSec: (crawled.dispatches * 1000) / measuredMs,
      wall: crawled.wall,
      cpu: crawled.cpu,
      cpuPerDispatchMs: crawlCpuMs / Math.max(1, crawled.dispatches),
      flushes: crawled.flushes,
      flushWall: crawled.flushWall,
      snapshots: crawled.snapshots,
      snapshotWall: crawled.snapshotWall,
      snapshotCpu: crawled.snapshotCpu,
      snapshotHosts: crawled.snapshotHosts,
      snapshotBytes: crawled.snapshotBytes,
      fullSnapshot: fullSnapshot ?? { wallMs: NaN, cpuMs: NaN, hosts: 0, bytes: 0 },
      maxGapMs: before.maxGapMs,
      rssMaxMiB: mib(rssMax),
      heapMaxMiB: mib(heapMax),
      rssAfterMiB: mib(after.rss),
      heapAfterMiB: mib(after.heapUsed),
      jobsInMemoryMax: jobsMax,
      runtime: runtimeDescription(),
      removal: {
        urls: seedRow.n,
        hostsOfSeed: removedHosts.size,
        totalMs: removalMs,
        flushesWithRemoval: removalFlushes.length,
        syncMs: sync.wall,
        syncCpuMs: sync.cpu,
        longestStepMs: longest.wall,
        longestStepCpuMs: longest.cpu,
        flushCpu: flushCpu.stats(),
        longestFlushBeforeMs: flushBefore.wall,
        longestFlushBeforeCpuMs: flushBefore.cpu,
        longestChunkMs: longestChunk.wall,
        longestChunkCpuMs: longestChunk.cpu,
        chunkCpu: chunkCpu.stats(),
        passOverDispatches: passOvers.length,
        longestPassOverMs: longestPassOver.wall,
        longestPassOverCpuMs: longestPassOver.cpu,
        passOverRefills: refills.length,
        longestRefillMs: longestRefill.wall,
        longestRefillCpuMs: longestRefill.cpu,
        longestDelayMs: longestDelay.wall,
        longestDelayCpuMs: longestDelay.cpu,
        maxGapDuringMs: during.maxGapMs,
        maxGapBeforeMs: beforeSame.maxGapMs,
        dispatchesDuring: during.count,
      },
    };
  } finally {
    if (db.open) db.close();
    copy.dispose();
  }
}

/** How this process runs the primary's code: compiled (a .js bundle) or under tsx, with its node options. */
export function runtimeDescription(): string {
  const built = !import.meta.url.endsWith('.ts');
  const flags = process.execArgv.join(' ');
  return `${built ? 'compiled JavaScript (an esbuild bundle, as `npm start` runs the primary)' : 'TypeScript under tsx'}${flags ? `, node ${flags}` : ''}`;
}

/** The longest gap between consecutive jobs handed out to other hosts (`other` 1) between `since` and `until`, and how many. */
function gaps(at: Sample, other: Sample, since: number, until: number): { maxGapMs: number; count: number } {
  let last = since;
  let maxGapMs = 0;
  let count = 0;
  for (let i = 0; i < at.n; i++) {
    const t = at.at(i);
    if (t < since || t > until || other.at(i) === 0) continue;
    maxGapMs = Math.max(maxGapMs, t - last);
    last = t;
    count++;
  }
  return { maxGapMs: Math.max(maxGapMs, until - last), count };
}
