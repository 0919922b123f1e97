/**
 * The pure scheduler's parts of the frontier benchmark: generated jobs, no I/O, an injected clock.
 * Each part runs in a child process of its own (frontier-bench.ts), so its heap figure is its own.
 *
 * A crawl is simulated event by event: `slots` requests in flight at most, each taking 50-500 ms of
 * simulated time; whenever a slot is free and a group is due, `next(now)` hands out a job, and every
 * request that ends is `complete`d. Only the scheduler's own calls are timed (performance.now around
 * each), so the figures are the cost of deciding, which the primary pays on its one thread.
 */
import { performance } from 'node:perf_hooks';
import { BinaryHeap } from '../../crawler/politeness/heap.ts';
import { Scheduler, type SchedulerOptions, type ServerSignal } from '../../crawler/politeness/scheduler.ts';

/** One part's figures, sent back to the parent as JSON. */
export interface SchedulerFigures {
  label: string;
  hosts: number;
  groups: number;
  urlsPerHost: number;
  queued: number;
  addMs: number;
  /** CPU time (user + system) of the adds: on a shared machine, wall time includes waiting for a core. */
  addCpuMs: number;
  /** Heap growth (MiB) after a full GC: the generated jobs, and the scheduler's own structures on top. */
  jobsHeapMiB: number;
  schedulerHeapMiB: number;
  dispatches: number;
  /**
   * CPU time (ms) of the whole simulated crawl per dispatch: next() (including the call that finds
   * nothing due), complete(), nextWakeAt() and the simulation's own bookkeeping. Unlike the wall-clock
   * percentiles it does not count time spent waiting for a core on a shared machine.
   */
  cycleCpuMs: number;
  next: Percentiles;
  complete: Percentiles;
}

/** Milliseconds per call. */
export interface Percentiles {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

interface BenchJob {
  notBefore: number;
  id: number;
}

/** The part's shape: how many hosts and URLs, grouping, pacing, retries (the scheduler is crawler/politeness/scheduler.ts). */
export interface SchedulerWorkload {
  label: string;
  hosts: number;
  urlsPerHost: number;
  /** Names per registrable domain (1: every host its own domain). */
  namesPerDomain: number;
  options: SchedulerOptions;
  /** Share of URLs queued as retries (notBefore in the coming hour). */
  retryShare: number;
  /** Stop after this many dispatches (the rest stays queued). */
  dispatches: number;
  slots: number;
}

/** A small deterministic generator (mulberry32), so every run generates the same crawl. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** p50, p99, max and mean of a sample (nearest rank). */
export function percentiles(xs: Float64Array): Percentiles {
  const sorted = Float64Array.from(xs).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  let sum = 0;
  for (const x of sorted) sum += x;
  return {
    p50: at(0.5),
    p99: at(0.99),
    max: sorted[sorted.length - 1] ?? 0,
    mean: sorted.length ? sum / sorted.length : 0,
  };
}

function heapMiB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc)
    throw new Error(
      'scheduler-parts: run with node --expose-gc (npm run bench:frontier does) so heap figures are measured after a full GC',
    );
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** Runs one workload and returns its figures. */
export function runSchedulerWorkload(w: SchedulerWorkload): SchedulerFigures {
  const random = rng(42);
  const delayMs = 1000;
  const origins = Array.from({ length: w.hosts }, (_, i) => {
    const domain = Math.floor(i / w.namesPerDomain);
    return w.namesPerDomain === 1
      ? `https://site${i}.example`
      : `https://n${i % w.namesPerDomain}.site${domain}.example`;
  });
  const base = heapMiB();
  // Allocated host by host, so each host's jobs lie together in memory (as the removed scanning scheduler's
  // figures were measured, see frontier-report.ts); jobs[h * urlsPerHost + k].
  const jobs: BenchJob[] = new Array(w.hosts * w.urlsPerHost);
  for (let i = 0; i < jobs.length; i++) {
    jobs[i] = { notBefore: random() < w.retryShare ? 1 + Math.floor(random() * 3_600_000) : 0, id: i };
  }
  const withJobs = heapMiB();
  const s = new Scheduler<BenchJob>(delayMs, w.options);
  // Round robin over hosts, as a crawl discovers them; every host exists before the first dispatch.
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let k = 0; k < w.urlsPerHost; k++) {
    for (let h = 0; h < w.hosts; h++) s.add(origins[h], jobs[h * w.urlsPerHost + k]);
  }
  const addMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const addCpuMs = (cpu.user + cpu.system) / 1000;
  const withScheduler = heapMiB();
  jobs.length = 0;

  const nextTimes = new Float64Array(w.dispatches);
  const completeTimes = new Float64Array(w.dispatches);
  const running = new BinaryHeap<{ origin: string; start: number; end: number }>((a, b) => a.end < b.end);
  let now = 0;
  let dispatched = 0;
  let completed = 0;
  const cycle0 = process.cpuUsage();
  while (dispatched < w.dispatches) {
    while (running.size < w.slots && dispatched < w.dispatches) {
      const a = performance.now();
      const d = s.next(now);
      const b = performance.now();
      if (!d) break;
      nextTimes[dispatched++] = b - a;
      running.push({ origin: d.origin, start: now, end: now + 50 + Math.floor(random() * 450) });
    }
    const wake = s.nextWakeAt();
    const firstEnd = running.peek()?.end ?? Infinity;
    now = Math.min(firstEnd, running.size < w.slots && wake !== undefined ? Math.max(wake, now) : Infinity);
    if (now === Infinity) break;
    while (running.size > 0 && running.peek()!.end <= now) {
      const r = running.pop()!;
      const signal: ServerSignal = { responseMs: r.end - r.start, load: random() < 0.02 ? 'strained' : 'ok' };
      const a = performance.now();
      s.complete(r.origin, r.end, signal);
      if (completed < completeTimes.length) completeTimes[completed++] = performance.now() - a;
    }
  }
  const cycleCpu = process.cpuUsage(cycle0);
  const cycleCpuMs = (cycleCpu.user + cycleCpu.system) / 1000 / Math.max(1, dispatched);
  const groups = new Set(origins.map((o) => s.groupOf(o))).size;
  return {
    label: w.label,
    hosts: w.hosts,
    groups,
    urlsPerHost: w.urlsPerHost,
    queued: w.hosts * w.urlsPerHost,
    addMs,
    addCpuMs,
    jobsHeapMiB: withJobs - base,
    schedulerHeapMiB: withScheduler - withJobs,
    dispatches: dispatched,
    cycleCpuMs,
    next: percentiles(nextTimes.subarray(0, dispatched)),
    complete: percentiles(completeTimes.subarray(0, completed)),
  };
}

/** The pure scheduler's workloads, by name: the figures issue 15 asks for, and many URLs on few hosts. */
export const SCHEDULER_WORKLOADS: Record<string, SchedulerWorkload> = {
  'heap-10k-hosts': {
    label: "heap scheduler, 10,000 hosts × 100 URLs, host grouping, no pacing (today's defaults)",
    hosts: 10_000,
    urlsPerHost: 100,
    namesPerDomain: 1,
    options: {},
    retryShare: 0,
    dispatches: 300_000,
    slots: 64,
  },
  'heap-10k-domains-paced': {
    label: 'heap scheduler, 10,000 hosts in 2,500 domains × 100 URLs, domain grouping, pacing 5, 10 % retries',
    hosts: 10_000,
    urlsPerHost: 100,
    namesPerDomain: 4,
    options: { grouping: 'domain', pacing: { factor: 5 } },
    retryShare: 0.1,
    dispatches: 300_000,
    slots: 64,
  },
  'heap-100-hosts': {
    label: 'heap scheduler, 100 hosts × 10,000 URLs, host grouping, no pacing',
    hosts: 100,
    urlsPerHost: 10_000,
    namesPerDomain: 1,
    options: {},
    retryShare: 0,
    dispatches: 100_000,
    slots: 64,
  },
};
