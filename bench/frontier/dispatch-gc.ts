/**
 * Where the dispatches' CPU goes beyond their own code, for the frontier benchmark's crawl (primary-parts.ts).
 * A dispatch (DispatchLoop.handOutOne) runs on the primary's one thread and touches no storage, yet the
 * process.cpuUsage it is timed with counts, beside its own code, a collection it happened to set off (under
 * `npm start`'s flags the young generation is 1 MiB: a scavenge every MiB allocated, by whatever allocated
 * it: a flush's rows, a refill's, a snapshot's) and what V8's helper threads spent meanwhile (concurrent
 * marking and sweeping, a scavenge's parallel tasks): process-wide CPU can exceed the call's wall time.
 * So each measured dispatch is matched with the main thread's GC pauses (PerformanceObserver 'gc' entries),
 * and the CPU of the dispatches that met a pause and of those that met none are reported apart.
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
  /** The dispatches at or above the CPU p99 of all: how many, how many met a GC pause, how many counted more CPU than wall time (other threads). */
  top: number;
  topMetGc: number;
  topOverWall: number;
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
  for (let i = 0; i < n; i++) all[i] = cpu.at(i);
  const p99 = percentiles(all).p99;
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
    if (gc) topMetGc++;
    if (c > wall.at(i) + 0.001) topOverWall++;
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
  };
}
