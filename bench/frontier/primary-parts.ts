/**
 * The database-backed parts of the frontier benchmark: the real crawler primary without its processes
 * (CrawlPrimary with its real Coordinator, DispatchLoop, FlushPacer and WorkerLifecycle, real timers and
 * clock) on a copy of the generated database (frontier-db.ts: 1,000,000 queued URLs over 10,000 hosts),
 * with a fake transport whose "workers" answer every fetch at once (a non-HTML 200: finished, nothing
 * stored; instant-workers.ts), so what is measured is the primary alone. The figures' types are in
 * primary-figures.ts, the clock, samples and call timing in measure.ts.
 *
 * Each runs on either engine (part-storage.ts): SQLite, or PostgreSQL through pgCrawlStore.
 *
 *  - restart: from opening the database to the first job handed out, as a restarted primary does it
 *    (64 URLs left leased by the one that died, so an unclean stop: every host waits its delay from the
 *    restart, a wait that is politeness, not cost, reported apart);
 *  - crawl: per-dispatch time (DispatchLoop.handOutOne: scheduler, robots, the host's window in memory,
 *    and queueing the lease and the host's start for the next batch) in wall time and in
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
import { loadConfig } from '../../shared/config.ts';
import { Coordinator } from '../../crawler/coordination/coordinator.ts';
import { CrawlPrimary } from '../../crawler/coordination/crawl-primary.ts';
import type { WorkerHandle } from '../../crawler/coordination/primary-ports.ts';
import type { FetchJob, WorkerSettings } from '../../crawler/common/protocol.ts';
import { FETCH_DEFAULTS, fetchLimits } from '../../crawler/fetch/fetcher.ts';
import { hostOrigin, seedOfHost, type FrontierShape } from './frontier-db.ts';
import { InstantWorkers } from './instant-workers.ts';
import { clock, cpuMs, gaps, mib, Sample, sleep, timeCalls, timers } from './measure.ts';
import type { CrawlFigures, RestartFigures } from './primary-figures.ts';
import { type Engine, type PartStorage, partStorage, timeStoreCalls } from './part-storage.ts';
import type { CrawlStore } from '../../db/crawl-store.ts';
import { dispatchCpuSplit, GcPauses } from './dispatch-gc.ts';

function config(storage: PartStorage, workers: number) {
  return loadConfig({
    DATA_DIR: storage.dataDir,
    ...(storage.databaseUrl === null ? {} : { DATABASE_URL: storage.databaseUrl }),
    CRAWL_WORKERS: String(workers),
    CRAWL_ALLOW_PRIVATE: '1',
  });
}

/** Jobs the scheduler holds (pages of the windows, robots.txt and sitemaps). */
function jobsInMemory(coordinator: Coordinator): number {
  let n = 0;
  for (const h of coordinator.scheduler.allHosts()) n += h.queue.length + h.priority.length;
  return n;
}

/**
 * A restarted primary on `engine`: open, start, first dispatch, on a copy of the generated crawl at `source`
 * (the SQLite file, or the PostgreSQL template database's URL).
 */
export async function runRestart(source: string, engine: Engine, shape: FrontierShape): Promise<RestartFigures> {
  const copy = await partStorage(engine, source, 'restart');
  try {
    await copy.exec([
      `UPDATE frontier SET state = 'leased', lease_owner = 'dead', leased_at = 1 WHERE id IN (SELECT id FROM frontier ORDER BY id LIMIT 64)`,
      'UPDATE crawler_stop SET clean = 0', // it died: no clean stop (migration 0017)
    ]);
    const t0 = performance.now();
    const db = await copy.open();
    const t1 = performance.now();
    const coordinator = new Coordinator(db.store, config(copy, 4), 'bench-restart');
    const calls = timeStoreCalls(db.store);
    const startedAt = clock();
    await coordinator.start(startedAt);
    const t2 = performance.now();
    const startCalls = calls.stop();
    const dueAt = coordinator.nextWakeAt();
    if (dueAt === undefined) throw new Error('frontier-bench: the restarted primary had nothing to hand out');
    const at = Math.max(clock(), dueAt); // the injected time: the wait for the host is not the primary's cost
    const t3a = performance.now();
    const job = coordinator.dispatch(at);
    const t3 = performance.now();
    if (!job) throw new Error('frontier-bench: the restarted primary handed nothing out when a host was due');
    const mem = process.memoryUsage();
    const figures = {
      engine,
      queued: shape.hosts * shape.urlsPerHost,
      openMs: t1 - t0,
      startMs: t2 - t1,
      firstDispatchMs: t3 - t3a,
      totalMs: t3 - t3a + (t2 - t0),
      firstDueAfterMs: Math.max(0, dueAt - startedAt),
      rssMiB: mib(mem.rss),
      heapMiB: mib(mem.heapUsed),
      jobsInMemory: jobsInMemory(coordinator),
      startCalls,
      runtime: runtimeDescription(),
    };
    await db.close();
    return figures;
  } finally {
    await copy.dispose();
  }
}

/**
 * Crawls the generated frontier (`source`, as runRestart takes it) on `engine` for `seconds` after
 * `warmupSeconds`, then removes seed `removeSeed` and waits for it to go.
 */
export async function runCrawl(
  source: string,
  engine: Engine,
  shape: FrontierShape,
  opts: { workers: number; warmupSeconds: number; seconds: number; removeSeed: number },
): Promise<CrawlFigures> {
  const copy = await partStorage(engine, source, 'crawl');
  const db = await copy.open();
  try {
    const cfg = config(copy, opts.workers);
    const coordinator = new Coordinator(db.store, cfg, 'bench-crawl');
    await coordinator.start(clock());
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
    // The removal's own work: the chunks of its URLs deleted (the frontier queries of the transaction its seed
    // lifecycle writes them in: on SQLite the store's own, on PostgreSQL new ones for each transaction), and the
    // dispatch calls that pass over its jobs or rows (the window's, counted by its removed seeds' ledger).
    const inner = coordinator as unknown as {
      store: CrawlStore;
      window: {
        removed: { passOver: (...args: unknown[]) => void };
        committed: () => Promise<void>;
      };
    };
    const timedFrontiers = new WeakSet<object>();
    const transaction = inner.store.transaction.bind(inner.store);
    inner.store.transaction = (write) =>
      transaction((tx) => {
        if (!timedFrontiers.has(tx.frontier)) {
          timedFrontiers.add(tx.frontier);
          timeCalls(tx.frontier, 'dropSeedChunk', (w, c) => {
            if (removing) chunks.push({ wall: w, cpu: c });
          });
        }
        return write(tx);
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
      return timedRefill();
    };
    // A host's window read on when its request ends (FrontierWindow.readyAgain) is read by the next flush's refill.
    // Round trips per flush: those of the transactions (the batch, the windows' refills) run during it.
    const flushTrips = new Sample();
    const untimedFlush = coordinator.flush.bind(coordinator);
    let tripsBefore = 0;
    coordinator.flush = (...args: Parameters<Coordinator['flush']>) => {
      tripsBefore = db.roundTrips();
      return untimedFlush(...args);
    };
    timeCalls(coordinator, 'flush', (w, c) => {
      flushTrips.push(db.roundTrips() - tripsBefore);
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
    // Each job handed out, whole (the dispatch loop's handOutOne: scheduler, window refill, robots, the decision
    // applied), as the pump calls it.
    const loop = (primary as unknown as { loop: { handOutOne: (now: number) => FetchJob | undefined } }).loop;
    timeCalls(loop, 'handOutOne', (w, c, out) => {
      if (removing && passedOverInCall) passOvers.push({ wall: w, cpu: c });
      if (out === undefined) return;
      wall.push(w);
      cpu.push(c);
      dispatchAt.push(performance.now());
      dispatchOther.push(removedHosts.has((out as FetchJob).origin) ? 0 : 1);
    });
    const timedHandOut = loop.handOutOne.bind(loop);
    loop.handOutOne = (now: number) => {
      passedOverInCall = false;
      return timedHandOut(now);
    };
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
      flushTrips,
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
    const gcPauses = new GcPauses();
    gcPauses.start();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(opts.seconds * 1000);
    const measuredMs = performance.now() - t0;
    const crawlCpuMs = cpuMs(process.cpuUsage(c0));
    const measuredDispatches = wall.n;
    const crawled = {
      dispatches: wall.n,
      wall: wall.stats(),
      cpu: cpu.stats(),
      flushes: flushWall.n,
      flushWall: flushWall.stats(),
      flushTrips: flushTrips.stats(),
      snapshots: snapshotWall.n,
      snapshotWall: snapshotWall.stats(),
      snapshotCpu: snapshotCpu.stats(),
      snapshotHosts: snapshotHosts.stats(),
      snapshotBytes: snapshotBytes.stats(),
    };
    const before = gaps(dispatchAt, dispatchOther, t0, t0 + measuredMs);

    // Remove one seed of 100,000 queued URLs, as the server does.
    const seedUrls = Number(await copy.value(`SELECT COUNT(*) FROM frontier WHERE seed_id = ${opts.removeSeed}`));
    const seedExists = async () =>
      (await copy.value(`SELECT 1 FROM seeds WHERE id = ${opts.removeSeed}`)) !== undefined;
    removalFlushes = [];
    removing = true;
    const r0 = performance.now();
    await copy.removeSeed(opts.removeSeed, Date.now());
    primary.onServerMessage({ type: 'seeds-changed' });
    while (await seedExists()) await sleep(20);
    const removalMs = performance.now() - r0;
    removing = false;
    // The GC pauses of the measured crawl have all been delivered by now (the observer hears of them a turn later).
    const cpuSplit = dispatchCpuSplit(measuredDispatches, dispatchAt, wall, cpu, gcPauses.stop());
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
      engine,
      queued: shape.hosts * shape.urlsPerHost,
      hosts: shape.hosts,
      workers: opts.workers,
      slots: opts.workers * FETCH_DEFAULTS.fetchesPerWorker,
      seconds: measuredMs / 1000,
      dispatches: crawled.dispatches,
      dispatchesPerSec: (crawled.dispatches * 1000) / measuredMs,
      wall: crawled.wall,
      cpu: crawled.cpu,
      cpuSplit,
      cpuPerDispatchMs: crawlCpuMs / Math.max(1, crawled.dispatches),
      flushes: crawled.flushes,
      flushWall: crawled.flushWall,
      roundTripsPerFlush: engine === 'postgres' ? crawled.flushTrips : undefined,
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
        urls: seedUrls,
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
    await db.close();
    await copy.dispose();
  }
}

/** How this process runs the primary's code: compiled (a .js bundle) or under tsx, with its node options. */
export function runtimeDescription(): string {
  const built = !import.meta.url.endsWith('.ts');
  const flags = process.execArgv.join(' ');
  return `${built ? 'compiled JavaScript (an esbuild bundle, as `npm start` runs the primary)' : 'TypeScript under tsx'}${flags ? `, node ${flags}` : ''}`;
}
