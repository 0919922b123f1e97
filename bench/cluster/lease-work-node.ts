/**
 * One crawler primary of the lease-work bench (lease-work-bench.ts), run in a child process of its own: the real
 * primary without its processes, as bench/frontier's crawl part runs it (CrawlPrimary with its Coordinator,
 * dispatch loop, flush pacer and timers, and fake workers that answer every fetch at once: instant-workers.ts), on
 * the crawl storage `npm start` opens on PostgreSQL (db/engine.ts). Either a lease-holding crawler node, wired as
 * crawler/primary.ts wires it (NodeLeases, the seed poll every 500 ms), or with leases off: the single-machine
 * primary on PostgreSQL as bench:frontier measures it (no lease loop, no seed poll, no fence).
 *
 * It talks with the bench over IPC: it says `started`, answers `status` with the groups it holds and the lease
 * rounds so far, and on `measure` resets its samples, measures for the given seconds and answers the figures
 * (every hand-out timed in CPU and wall, the process's CPU, each lease round's CPU on the primary's thread, the
 * longest stall of the event loop); `stop` shuts it down (a leased node leaves cleanly) and it exits.
 */
import { machineNow } from '../../crawler/common/machine-clock.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { NodeLeases } from '../../crawler/cluster/node-leases.ts';
import type { FetchJob, WorkerSettings } from '../../crawler/common/protocol.ts';
import { Coordinator, type CoordinatorOptions } from '../../crawler/coordination/coordinator.ts';
import { CrawlPrimary, NODE_SEED_POLL_MS } from '../../crawler/coordination/crawl-primary.ts';
import type { WorkerHandle } from '../../crawler/coordination/primary-ports.ts';
import { FETCH_DEFAULTS, fetchLimits } from '../../crawler/fetch/fetcher.ts';
import { openCrawlStorage } from '../../db/engine.ts';
import { loadConfig } from '../../shared/config.ts';
import { InstantWorkers } from '../frontier/instant-workers.ts';
import { clock, cpuMs, Sample, sleep, timeCalls, timers } from '../frontier/measure.ts';
import type { Percentiles } from '../frontier/scheduler-parts.ts';

/** How the bench starts a node (its argv, as JSON). */
export interface LeaseNodeOptions {
  url: string;
  /** The node's id (CRAWL_NODE_ID), or null for leases off. */
  node: string | null;
  workers: number;
}

/** What the bench sends a node. */
export type ToLeaseNode = { type: 'status' } | { type: 'measure'; seconds: number } | { type: 'stop' };

/** A node's answer to `status`. */
export interface LeaseNodeStatus {
  type: 'status';
  /** Groups it holds now (0 with leases off). */
  held: number;
  /** Lease rounds run so far, and the longest one's CPU on the primary's thread (ms). */
  rounds: number;
  longestRoundCpuMs: number;
  dispatches: number;
}

/** What a node measured over a window (answer to `measure`). */
export interface LeaseNodeFigures {
  type: 'figures';
  node: string | null;
  seconds: number;
  held: number;
  dispatches: number;
  /** Each hand-out (DispatchLoop.handOutOne that handed a job out), CPU and wall ms. */
  cpu: Percentiles;
  wall: Percentiles;
  /** The process's CPU over the window divided by the jobs handed out (ms): everything included. */
  cpuPerJobMs: number;
  /** Lease rounds in the window, each one's CPU on the primary's thread (ms), and their wall time (ms). */
  rounds: number;
  roundCpu: Percentiles;
  roundWall: Percentiles;
  /** The longest synchronous stretch of a round (ms of wall time: the event loop blocked by it). */
  longestRoundBlockMs: number;
  /** GroupLeases.facts over every held group, as each round's beforePlan walks them (ms, CPU). */
  factsCpu: Percentiles;
  /** The event loop's longest delay over the window (ms, monitorEventLoopDelay). */
  loopDelayMaxMs: number;
  loopDelayP99Ms: number;
}

/** The private parts of a LeaseLoop this node times (its round and the awaits that split it). */
interface LoopInternals {
  roundOnce: () => Promise<void>;
  attempt: <T>(work: () => Promise<T>) => Promise<T | null>;
  o: { beforePlan?: () => void };
}

/** Runs one node until told to stop (see the module comment). */
export async function runLeaseNode(opts: LeaseNodeOptions): Promise<void> {
  const send = (m: unknown) => process.send?.(m);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-lease-work-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DATABASE_URL: opts.url,
    CRAWL_WORKERS: String(opts.workers),
    CRAWL_ALLOW_PRIVATE: '1',
    CRAWL_POLITENESS_GROUP: 'host',
    ...(opts.node === null ? {} : { CRAWL_NODE_ID: opts.node }),
  });
  const storage = await openCrawlStorage(config);
  let leases: NodeLeases | null = null;
  const transport = new InstantWorkers();
  // What the primary and its lease loop say (faults included) goes to the bench's stderr, as a node's would.
  transport.log = (line) => void process.stderr.write(`lease-work node ${opts.node ?? 'off'}: ${line}\n`);
  // Workers start when work is due (worker-lifecycle.ts grow): a leased node has none before its first take, so
  // each fake worker says it is ready as it is forked, as a real one does once loaded.
  const forkWorker = transport.forkWorker.bind(transport);
  transport.forkWorker = () => {
    const worker = forkWorker();
    setImmediate(() => primary?.onWorkerMessage(worker.id, { type: 'ready' }));
    return worker;
  };
  const lease: CoordinatorOptions['lease'] =
    opts.node === null
      ? undefined
      : {
          node: opts.node,
          dropped: (l, writes) => transport.log(`lost ${l.group} (epoch ${l.epoch}); ${writes} writes dropped`),
          noted: (groups) => leases?.workNoted(groups),
          machineTime: (t) => t + (machineNow() - clock()),
          unsent: (url, why) => transport.log(why),
        };
  const coordinator = new Coordinator(storage.store, config, `lease-work-${opts.node ?? 'off'}`, { lease });
  let primary: CrawlPrimary<WorkerHandle> | undefined;
  if (opts.node !== null && coordinator.leases !== null && storage.pool !== null && storage.store.leases) {
    leases = new NodeLeases({
      pool: storage.pool,
      store: storage.store.leases,
      node: opts.node,
      config,
      leases: coordinator.leases,
      clock,
      log: (line) => transport.log(line),
      changed: () => primary?.pump(),
    });
  }
  await coordinator.start(clock());
  const settings: WorkerSettings = {
    userAgent: config.userAgent,
    allowPrivate: true,
    ...fetchLimits(config.crawlTimeoutMs),
  };
  primary = new CrawlPrimary<WorkerHandle>({
    coordinator,
    config,
    settings,
    slotsPerWorker: FETCH_DEFAULTS.fetchesPerWorker,
    clock,
    timers,
    transport,
    pid: process.pid,
    pollSeedsMs: leases === null ? undefined : NODE_SEED_POLL_MS,
    readDisk: () => ({ freeBytes: null, dbBytes: 0 }),
    release: async () => {
      await leases?.stop();
      await storage.close();
    },
  });
  transport.primary = primary;

  // Each hand-out, whole, as the pump calls it.
  const wall = new Sample();
  const cpu = new Sample();
  const loop = (primary as unknown as { loop: { handOutOne: (now: number) => FetchJob | undefined } }).loop;
  timeCalls(loop, 'handOutOne', (w, c, out) => {
    if (out === undefined) return;
    wall.push(w);
    cpu.push(c);
  });

  // Each lease round's synchronous stretches: from its start to its first await, from each await's answer to the
  // next, and from the last to its end (the awaits are the loop's `attempt`s, one statement or a survey each).
  const roundCpu = new Sample();
  const roundWall = new Sample();
  const factsCpu = new Sample();
  let rounds = 0;
  let longestRoundCpu = 0;
  let longestBlock = 0;
  if (leases !== null) {
    const inner = leases.loop as unknown as LoopInternals;
    let segment: { cpu: NodeJS.CpuUsage; at: number } | null = null;
    let spent = 0;
    const begin = () => {
      segment = { cpu: process.cpuUsage(), at: performance.now() };
    };
    const end = () => {
      if (segment === null) return;
      spent += cpuMs(process.cpuUsage(segment.cpu));
      longestBlock = Math.max(longestBlock, performance.now() - segment.at);
      segment = null;
    };
    const roundOnce = inner.roundOnce.bind(leases.loop);
    inner.roundOnce = () => {
      spent = 0;
      const t0 = performance.now();
      begin();
      return roundOnce().finally(() => {
        end();
        rounds++;
        longestRoundCpu = Math.max(longestRoundCpu, spent);
        roundCpu.push(spent);
        roundWall.push(performance.now() - t0);
      });
    };
    const attempt = inner.attempt.bind(leases.loop);
    inner.attempt = <T>(work: () => Promise<T>) => {
      end();
      return attempt(work).finally(begin) as Promise<T | null>;
    };
    const beforePlan = inner.o.beforePlan;
    if (beforePlan !== undefined) {
      inner.o.beforePlan = () => {
        const c0 = process.cpuUsage();
        beforePlan();
        factsCpu.push(cpuMs(process.cpuUsage(c0)));
      };
    }
  }

  primary.start();
  await leases?.start(null);
  const held = () => coordinator.leases?.groups().length ?? 0;

  process.on('message', (m: ToLeaseNode) => {
    if (m.type === 'status') {
      const status: LeaseNodeStatus = {
        type: 'status',
        held: held(),
        rounds,
        longestRoundCpuMs: longestRoundCpu,
        dispatches: wall.n,
      };
      send(status);
    } else if (m.type === 'measure') {
      void measure(m.seconds).then(send);
    } else if (m.type === 'stop') {
      void primary?.shutdown('the bench is over').then(() => {
        rmSync(dataDir, { recursive: true, force: true });
        process.exit(0);
      });
    }
  });
  send({ type: 'started' });

  async function measure(seconds: number): Promise<LeaseNodeFigures> {
    for (const s of [wall, cpu, roundCpu, roundWall, factsCpu]) s.reset();
    const roundsBefore = rounds;
    longestBlock = 0;
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await sleep(seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    const spent = cpuMs(process.cpuUsage(c0));
    delay.disable();
    return {
      type: 'figures',
      node: opts.node,
      seconds: elapsed,
      held: held(),
      dispatches: wall.n,
      cpu: cpu.stats(),
      wall: wall.stats(),
      cpuPerJobMs: spent / Math.max(1, wall.n),
      rounds: rounds - roundsBefore,
      roundCpu: roundCpu.stats(),
      roundWall: roundWall.stats(),
      longestRoundBlockMs: longestBlock,
      factsCpu: factsCpu.stats(),
      loopDelayMaxMs: delay.max / 1e6,
      loopDelayP99Ms: delay.percentile(99) / 1e6,
    };
  }
}
