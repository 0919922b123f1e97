/**
 * When the crawler primary runs the steps of a seed's removal (a chunk of its URLs deleted, of its pages
 * taken out of search, seed-lifecycle.ts): one at a time, each in a transaction of its own between
 * dispatches, never inside the flushes that store results. Each is timed: the next chunk is sized so
 * that a step takes about PRIMARY_TIMING.removalStepMs, and the next step waits took / removalShare after
 * the start of the last (the way snapshots are spaced by their cost), so a removal of 100,000 URLs takes
 * a bounded share of the thread and other hosts are dispatched between its steps. A step the database
 * refuses goes to the WriteOutage (whose retry flushes, and the flush calls `soon` again).
 */
import { PRIMARY_TIMING, type Clock, type TimerHandle, type Timers } from './primary-ports.ts';
import type { WriteOutage } from './write-outage.ts';

/** What a StepPacer is given. */
export interface StepPacerParts {
  clock: Clock;
  timers: Timers;
  outage: WriteOutage;
  /** Whether a removal has a step to run. */
  hasStep(): boolean;
  /** Runs one step in its own transaction; returns the pages it took out of search (throws if refused). */
  step(): number;
  /** The last step took `ms`; the next should take about `targetMs`. */
  took(ms: number, targetMs: number): void;
  /** Tells the server that `count` pages left search. */
  retired(count: number): void;
  /** Runs after a step (the dispatch loop, which flushes what the window has to apply). */
  afterStep(): void;
}

/** The removal steps' timer (see the module comment). */
export class StepPacer {
  private timer: TimerHandle | null = null;
  /** No step before this time. */
  private dueAt = -Infinity;
  private stopped = false;

  constructor(private readonly p: StepPacerParts) {}

  /** Runs the next removal step when it is due (one timer), if there is one. */
  soon(): void {
    if (this.stopped || this.timer !== null || this.p.outage.waiting || !this.p.hasStep()) return;
    const wait = Math.max(0, Math.ceil(this.dueAt - this.p.clock()));
    this.timer = this.p.timers.setTimeout(() => {
      this.timer = null;
      this.run();
    }, wait);
  }

  /** No more steps (the crawl is stopping; a restart reads the removed seeds again and goes on). */
  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.p.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private run(): void {
    if (this.stopped || this.p.outage.waiting) return;
    const start = this.p.clock();
    let retired: number;
    try {
      retired = this.p.step();
    } catch (err) {
      this.p.outage.failed(err, 'removing a seed');
      return;
    }
    const took = this.p.clock() - start;
    this.p.took(took, PRIMARY_TIMING.removalStepMs);
    this.dueAt = start + took / PRIMARY_TIMING.removalShare;
    if (retired > 0) this.p.retired(retired);
    this.p.afterStep();
    this.soon();
  }
}
