/**
 * What the frontier benchmark's primary parts (primary-parts.ts) measure with: the clock and timers the
 * primary is given, CPU time and memory in ms and MiB, method calls timed where they run, growable samples,
 * and the longest gap between jobs handed out.
 */
import { performance } from 'node:perf_hooks';
import type { Timers } from '../../crawler/coordination/primary-ports.ts';
import { percentiles, type Percentiles } from './scheduler-parts.ts';

/** The wall clock in ms since the epoch, at performance.now()'s resolution. */
export const clock = () => performance.timeOrigin + performance.now();
/** Node's own timers, as the primary's process uses them. */
export const timers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  setInterval: (fn, ms) => setInterval(fn, ms),
  clearInterval: (h) => clearInterval(h as NodeJS.Timeout),
};
/** Bytes in MiB. */
export const mib = (bytes: number) => bytes / 2 ** 20;
/** A process.cpuUsage() figure (µs of user and system time) in ms. */
export const cpuMs = (c: NodeJS.CpuUsage) => (c.user + c.system) / 1000;
/** Resolves after `ms`: the crawl's warm-up and measured spans, and the poll for the removed seed's row. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Wraps method `key` of `target`: every call is timed (wall and CPU ms) and given to `onCall` with what it
 * returned; a call that answers a Promise (a flush, a seed sync: storage is async) is timed until it
 * settles, and given what it resolved to.
 */
export function timeCalls<T extends object, K extends keyof T>(
  target: T,
  key: K,
  onCall: (wallMs: number, cpuMs: number, out: unknown) => void,
): void {
  const fn = (target[key] as (...args: unknown[]) => unknown).bind(target);
  (target as Record<K, unknown>)[key] = (...args: unknown[]) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const out = fn(...args);
    if (out instanceof Promise) {
      return out.then((value: unknown) => {
        onCall(performance.now() - t0, cpuMs(process.cpuUsage(c0)), value);
        return value;
      });
    }
    const wall = performance.now() - t0;
    onCall(wall, cpuMs(process.cpuUsage(c0)), out);
    return out;
  };
}

/** A growable sample of numbers. */
export class Sample {
  private xs = new Float64Array(1 << 16);
  n = 0;
  /** Adds `x`, growing the sample as needed. */
  push(x: number): void {
    if (this.n === this.xs.length) {
      const bigger = new Float64Array(this.xs.length * 2);
      bigger.set(this.xs);
      this.xs = bigger;
    }
    this.xs[this.n++] = x;
  }
  /** The `i`th number added. */
  at(i: number): number {
    return this.xs[i];
  }
  /** The percentiles of the numbers added. */
  stats(): Percentiles {
    return percentiles(this.xs.subarray(0, this.n));
  }
  /** Empties the sample (its memory is kept). */
  reset(): void {
    this.n = 0;
  }
}

/** The longest gap between consecutive jobs handed out to other hosts (`other` 1) between `since` and `until`, and how many. */
export function gaps(at: Sample, other: Sample, since: number, until: number): { maxGapMs: number; count: number } {
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
