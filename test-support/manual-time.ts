/**
 * Time run by hand for unit tests of code that takes a Clock and Timers (crawler/coordination/primary-ports.ts):
 * nothing happens until the test advances the clock; then every timer due runs in order of its due time,
 * with the clock set to that time. Tests read what is pending to assert which timers exist. After each timer
 * the event loop turns once (`settled`), so that what a timer started and awaits (a flush on storage that
 * answers at once, such as SQLite) has settled before the next timer runs and before the test looks.
 */
import type { Clock, TimerHandle, Timers } from '../crawler/coordination/primary-ports.ts';

interface Pending {
  at: number;
  fn: () => void;
  /** The period of an interval; null for a timeout. */
  every: number | null;
}

/** A clock and its timers, advanced only by `advance` / `advanceTo`. */
export class ManualTime implements Timers {
  private current: number;
  private seq = 0;
  private readonly timers = new Map<number, Pending>();
  /** The clock to inject. */
  readonly clock: Clock = () => this.current;

  constructor(start = 0) {
    this.current = start;
  }

  /** The current time. */
  get now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    this.timers.set(++this.seq, { at: this.current + Math.max(0, ms), fn, every: null });
    return this.seq;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    const every = Math.max(1, ms);
    this.timers.set(++this.seq, { at: this.current + every, fn, every });
    return this.seq;
  }

  clearInterval(handle: TimerHandle): void {
    this.timers.delete(handle as number);
  }

  /** When the pending timeouts are due, earliest first (intervals are not listed). */
  timeouts(): number[] {
    return [...this.timers.values()]
      .filter((t) => t.every === null)
      .map((t) => t.at)
      .sort((a, b) => a - b);
  }

  /** The periods of the running intervals, shortest first. */
  intervals(): number[] {
    return [...this.timers.values()].flatMap((t) => (t.every === null ? [] : [t.every])).sort((a, b) => a - b);
  }

  /** Moves the clock `ms` forward, running each timer due on the way at its own time. */
  advance(ms: number): Promise<void> {
    return this.advanceTo(this.current + ms);
  }

  /** Moves the clock to `to`, running each timer due on the way at its own time (timers they set included). */
  async advanceTo(to: number): Promise<void> {
    if (to < this.current) throw new Error(`manual-time: cannot go back from ${this.current} to ${to}`);
    await settled();
    for (;;) {
      let next: [number, Pending] | undefined;
      for (const entry of this.timers) if (entry[1].at <= to && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      const [id, timer] = next;
      this.current = timer.at;
      if (timer.every === null) this.timers.delete(id);
      else timer.at += timer.every;
      timer.fn();
      await settled();
    }
    this.current = to;
  }
}

/** Resolves after one turn of the event loop: every promise already settling (at once, with no I/O) has settled. */
export const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
