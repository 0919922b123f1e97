/**
 * When the crawler primary stores what it queued (the Coordinator judges results at once, result-judge.ts;
 * their writes wait in write-batch.ts): in batches, at most PRIMARY_TIMING.flushMs after the first result of a batch,
 * so a busy crawl commits a transaction per batch rather than per result; or at once when the batch
 * holds something a free worker could start on (an urgent batch, see Coordinator.takeUrgent). A batch
 * that stored or retired pages is told to the server (`pages-stored`: its title index catches up). A write
 * the database refuses goes to the WriteOutage, whose retry flushes again; a stored batch lets the
 * dispatch loop run (its new URLs may be due). A flush is awaited (storage answers Promises), and at
 * most one is in flight: a flush asked for meanwhile (`now`, or the timer) runs right after it, with
 * the intents queued in between.
 */
import {
  PRIMARY_TIMING,
  type PrimaryTransport,
  type TimerHandle,
  type Timers,
  type WorkerHandle,
} from './primary-ports.ts';
import type { WriteOutage } from './write-outage.ts';

/** What a FlushPacer is given. */
export interface FlushPacerParts {
  timers: Timers;
  outage: WriteOutage;
  /** Applies the queued writes in one transaction; resolves to the pages stored or retired (rejects if refused). */
  flush(): Promise<number>;
  /** Where the server hears that pages were stored or retired (message `pages-stored`: its title index reads them). */
  transport: Pick<PrimaryTransport<WorkerHandle>, 'toServer'>;
  /** Runs after a batch was stored (the dispatch loop: what it stored may be due). */
  afterFlush(): void;
}

/** The flush timer and the flush itself (see the module comment). */
export class FlushPacer {
  private timer: TimerHandle | null = null;
  /** The flush in flight, if any (settles once it and what follows it ran; never rejects). */
  private running: Promise<void> | null = null;
  /** A flush was asked for while one was in flight: it runs right after. */
  private again = false;
  /** The crawl is stopping: no more flushes from here (the final one is made by the caller). */
  private stopped = false;

  constructor(private readonly parts: FlushPacerParts) {}

  /** Whether a flush is in flight (its transaction or its reads not settled yet). */
  get inFlight(): boolean {
    return this.running !== null;
  }

  /** Resolves once no flush is in flight (at once if none is). */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Stores the queued writes within PRIMARY_TIMING.flushMs (one timer for the whole batch). */
  soon(): void {
    if (this.timer === null && !this.parts.outage.waiting && !this.stopped)
      this.timer = this.parts.timers.setTimeout(() => this.now(), PRIMARY_TIMING.flushMs);
  }

  /**
   * Stores the queued writes now, unless a retry of refused writes is pending (it will flush); with a
   * flush in flight, right after it.
   */
  now(): void {
    this.cancel();
    if (this.parts.outage.waiting || this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.again) {
        this.again = false;
        this.now();
      }
    });
  }

  /** One flush, then what follows it: the server told of pages stored, the dispatch loop run; a refusal to the outage. */
  private async run(): Promise<void> {
    let stored: number;
    try {
      stored = await this.parts.flush();
    } catch (err) {
      this.again = false; // the outage's retry flushes (everything is still queued)
      this.parts.outage.failed(err, 'storing results');
      return;
    }
    if (stored > 0) this.parts.transport.toServer({ type: 'pages-stored', count: stored });
    try {
      this.parts.afterFlush();
    } catch (err) {
      // Not the flush's: thrown on outside this promise, as when the flush was synchronous (the primary's crash handler).
      queueMicrotask(() => {
        throw err;
      });
    }
  }

  /** No more flushes (the crawl is stopping): the pending timer is dropped; the caller makes the final flush. */
  stop(): void {
    this.stopped = true;
    this.again = false;
    this.cancel();
  }

  /** Drops the pending flush timer, if any (the final flush at shutdown is made by the caller). */
  cancel(): void {
    if (this.timer !== null) this.parts.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
