/**
 * When the crawler primary stores what it queued (the Coordinator judges results at once, result-judge.ts;
 * their writes wait in write-batch.ts): in batches, at most PRIMARY_TIMING.flushMs after the first result of a batch,
 * so a busy crawl commits a transaction per batch rather than per result; or at once when the batch
 * holds something a free worker could start on (an urgent batch, see Coordinator.takeUrgent). A batch
 * that stored or retired pages is told to the server (`pages-stored`: its title index catches up). A write
 * the database refuses goes to the WriteOutage, whose retry flushes again; a stored batch lets the
 * dispatch loop run (its new URLs may be due).
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
  /** Applies the queued writes in one transaction; returns the pages stored or retired (throws if refused). */
  flush(): number;
  /** Where the server hears that pages were stored or retired (message `pages-stored`: its title index reads them). */
  transport: Pick<PrimaryTransport<WorkerHandle>, 'toServer'>;
  /** Runs after a batch was stored (the dispatch loop: what it stored may be due). */
  afterFlush(): void;
}

/** The flush timer and the flush itself (see the module comment). */
export class FlushPacer {
  private timer: TimerHandle | null = null;

  constructor(private readonly parts: FlushPacerParts) {}

  /** Stores the queued writes within PRIMARY_TIMING.flushMs (one timer for the whole batch). */
  soon(): void {
    if (this.timer === null && !this.parts.outage.waiting)
      this.timer = this.parts.timers.setTimeout(() => this.now(), PRIMARY_TIMING.flushMs);
  }

  /** Stores the queued writes now, unless a retry of refused writes is pending (it will flush). */
  now(): void {
    this.cancel();
    if (this.parts.outage.waiting) return;
    try {
      const stored = this.parts.flush();
      if (stored > 0) this.parts.transport.toServer({ type: 'pages-stored', count: stored });
    } catch (err) {
      this.parts.outage.failed(err, 'storing results');
      return;
    }
    this.parts.afterFlush();
  }

  /** Drops the pending flush timer, if any (the final flush at shutdown is made by the caller). */
  cancel(): void {
    if (this.timer !== null) this.parts.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
