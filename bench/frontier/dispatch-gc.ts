/**
 * Where the dispatches' CPU goes beyond their own code, for the frontier benchmark's crawl (primary-parts.ts).
 * A dispatch (DispatchLoop.handOutOne) runs on the primary's one thread and touches no storage, yet the
 * process.cpuUsage it is timed with counts, beside its own code, a collection it happened to set off (under
 * `npm start`'s flags the young generation is 1 MiB: a scavenge every MiB allocated, by whatever allocated
 * it: a flush's rows, a refill's, a snapshot's) and what V8's helper threads spent meanwhile (concurrent
 * marking and sweeping, a scavenge's parallel tasks): process-wide CPU can exceed the call's wall time.
 * So each measured dispatch is matched with the main thread's GC pauses (PerformanceObserver 'gc' entries),
 * and the CPU of the dispatches that met a pause and of those that met none are reported apart; and, as
 * one thread spends no more CPU than the wall time it runs, each dispatch's CPU is bounded by its wall
 * time plus the timing's own cost (the median of CPU minus wall: the cpuUsage calls, a few µs) to tell
 * its own CPU from what other threads spent meanwhile.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { type Percentiles, percentiles } from './scheduler-parts.ts';
import type { Sample } from './measure.ts';

/** The dispatches' CPU split by what they met (ms; see the module comment). */
export interface DispatchCpuSplit {
  dispatches: number;
  /** The main thread's GC pauses over the measured dispatches, and their time in all (ms). */
  gcPauses: number;
  gcPauseMs: number;
  /** Dispatches during which a GC pause began or ran, and the CPU percentiles of those and of the others. */
  metGc: number;
  cpuMetGc: Percentiles;
  cpuNoGc: Percentiles;
  /**
   * The dispatches at or above the CPU p99 of all: how many, how many met a GC pause, how many counted more
   * CPU than their wall time and the timing's cost by over 5 µs (other threads' CPU).
   */
  top: number;
  topMetGc: number;
  topOverWall: number;
  /** CPU minus wall time: its median over all dispatches (the timing's own cost), and over those at the p99 or above. */
  overheadMs: number;
  topExcessMs: number;
  /** Each dispatch's CPU bounded by its wall time plus `overheadMs`: what its own thread can have spent (other threads left out). */
  ownCpu: Percentiles;
}

/** The main thread's GC pauses, recorded from `start` to `stop`, as [start, end] in performance.now() ms. */
export class GcPauses {
  private readonly pauses: Array<[number, number]> = [];
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) this.pauses.push([e.startTime, e.startTime + e.duration]);
  });

  /** Starts recording. */
  start(): void {
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** Stops recording; answers the pauses, in the order they began. */
  stop(): ReadonlyArray<readonly [number, number]> {
    this.observer.disconnect();
    return [...this.pauses].sort((a, b) => a[0] - b[0]);
  }
}

/**
 * The first `n` dispatches (each ended at `endAt`, took `wall` ms and `cpu` ms of process CPU) split by
 * whether a GC pause of `pauses` overlapped them. Pure.
 */
export function dispatchCpuSplit(
  n: number,
  endAt: Sample,
  wall: Sample,
  cpu: Sample,
  pauses: ReadonlyArray<readonly [number, number]>,
): DispatchCpuSplit {
  const all = new Float64Array(n);
  const excess = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    all[i] = cpu.at(i);
    excess[i] = cpu.at(i) - wall.at(i);
  }
  const p99 = percentiles(all).p99;
  const overheadMs = Math.max(0, percentiles(excess).p50 ?? 0);
  const own = new Float64Array(n);
  for (let i = 0; i < n; i++) own[i] = Math.min(cpu.at(i), wall.at(i) + overheadMs);
  const topExcess: number[] = [];
  const met: number[] = [];
  const clean: number[] = [];
  let top = 0;
  let topMetGc = 0;
  let topOverWall = 0;
  let g = 0;
  const first = n > 0 ? endAt.at(0) - wall.at(0) : 0;
  const last = n > 0 ? endAt.at(n - 1) : 0;
  const within = pauses.filter(([s, e]) => e >= first && s <= last);
  for (let i = 0; i < n; i++) {
    const end = endAt.at(i);
    const start = end - wall.at(i);
    while (g < within.length && within[g]![1] < start) g++;
    const gc = g < within.length && within[g]![0] <= end;
    const c = cpu.at(i);
    (gc ? met : clean).push(c);
    if (c < p99) continue;
    top++;
    topExcess.push(c - wall.at(i));
    if (gc) topMetGc++;
    if (c > wall.at(i) + overheadMs + 0.005) topOverWall++;
  }
  return {
    dispatches: n,
    gcPauses: within.length,
    gcPauseMs: within.reduce((sum, [s, e]) => sum + e - s, 0),
    metGc: met.length,
    cpuMetGc: percentiles(Float64Array.from(met)),
    cpuNoGc: percentiles(Float64Array.from(clean)),
    top,
    topMetGc,
    topOverWall,
    overheadMs,
    topExcessMs: percentiles(Float64Array.from(topExcess)).p50 ?? 0,
    ownCpu: percentiles(own),
  };
}
