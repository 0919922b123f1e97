/**
 * The crawler primary's dispatch loop: `pump` hands every due job to a worker with a free slot, then sets
 * the one wake-up timer for the moment the next host becomes due. Handing out one job (`handOutNext`) is
 * the scheduler releasing the next due job, JobDispatch deciding what becomes of it (job-dispatch.ts), the
 * IntentApplier applying that decision (intent-applier.ts `dispatched`), again until a job is to be sent;
 * the WorkerPool says which worker takes it. Nobody polls: a result, a ready worker, a stored batch or that
 * timer runs the pump again. A job that is due with every slot taken (or no worker at all) makes the
 * worker lifecycle start workers (`grow`); while it could, the wake-up timer is kept even with no free
 * slot, since no result may come to run the pump. While the database refuses writes (WriteOutage), while
 * the disk or the database is past its budget (DiskWatch), or once the crawl is stopping, no work is
 * handed out; nor while a flush is in flight (its post-commit reads see the queue as its batch left it:
 * a lease taken meanwhile is not written yet), the flush pumps once it settled. On SQLite a flush settles
 * within one turn of the event loop, so no pump ever meets one.
 */
import type { Coordinator } from './coordinator.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { JobDispatch } from './job-dispatch.ts';
import type { IntentApplier } from './intent-applier.ts';
import type { FlushPacer } from './flush-pacer.ts';
import type { Clock, PrimaryTransport, TimerHandle, Timers, WorkerHandle } from './primary-ports.ts';
import type { FetchJob } from '../common/protocol.ts';
import type { WorkerPool } from './worker-pool.ts';
import type { WriteOutage } from './write-outage.ts';

/** What handing out a job reads and changes (the Coordinator's parts: Coordinator.handOut). */
export interface HandOutParts {
  /** Releases the next due job (one request in flight per politeness group). */
  scheduler: Pick<Scheduler<CrawlJob>, 'next'>;
  /** Counts the rows of removed seeds one hand-out passes over (see WINDOW.passOverPerStep). */
  window: Pick<FrontierWindow, 'resetPassedOver'>;
  /** Decides what becomes of a released job (reads only). */
  dispatcher: Pick<JobDispatch, 'decide'>;
  /** Applies that decision to the scheduler, the windows, the hosts' book and the jobs in flight. */
  applier: Pick<IntentApplier, 'dispatched'>;
}

/**
 * The next job to hand an idle worker at `now`, or undefined if no host is due (or this call passed over
 * its share of a removed seed's jobs): each job the scheduler releases is decided (dropped, held for
 * robots.txt, skipped, or sent with its lease and validators) and the decision applied before the next.
 */
export function handOutNext(parts: HandOutParts, now: number): FetchJob | undefined {
  parts.window.resetPassedOver();
  for (;;) {
    const released = parts.scheduler.next(now);
    if (!released) return undefined;
    const { job, origin } = released;
    const out = parts.applier.dispatched(origin, job, parts.dispatcher.decide(job, origin, now), now);
    if (out !== 'next') return out;
  }
}

/** What a DispatchLoop is given. */
export interface DispatchLoopParts<W extends WorkerHandle> {
  clock: Clock;
  timers: Timers;
  coordinator: Pick<Coordinator, 'handOut' | 'nextWakeAt' | 'hasWrites' | 'flushing'>;
  pool: WorkerPool<W>;
  outage: WriteOutage;
  /** Paused: the disk or the database is past its budget (the watch pumps again on resume). */
  disk: { readonly paused: boolean };
  flusher: FlushPacer;
  /** Starts workers when work is due and no slot is free (worker-lifecycle.ts); `canGrow` says whether it would. */
  workers: { canGrow(): boolean; grow(): void };
  /** Where each job goes to its worker (message `fetch`). */
  transport: Pick<PrimaryTransport<W>, 'toWorker'>;
}

/** The pump and its wake-up timer (see the module comment). */
export class DispatchLoop<W extends WorkerHandle> {
  private wakeTimer: TimerHandle | null = null;
  private wakeAt = Infinity;
  private stopped = false;

  constructor(private readonly parts: DispatchLoopParts<W>) {}

  /** Hands every due job to a worker with a free slot, then sets the one timer for the next due host. */
  pump(): void {
    const { coordinator, pool } = this.parts;
    if (this.stopped || this.parts.outage.waiting || coordinator.flushing()) return;
    if (this.parts.disk.paused) {
      if (coordinator.hasWrites()) this.parts.flusher.soon(); // what is queued (a seed's removal) is still stored
      return;
    }
    const t = this.parts.clock();
    try {
      while (pool.hasFreeSlot()) {
        const job = this.handOutOne(t);
        if (!job) break;
        this.parts.transport.toWorker(pool.assign(job.origin, job.jobId)!, { type: 'fetch', job });
      }
    } catch (err) {
      this.parts.outage.failed(err, 'handing out work'); // not a storage error (a dispatch writes nothing): fatal
      return;
    }
    this.parts.outage.succeeded(); // the pump runs only with no retry pending: the last write went through
    if (coordinator.hasWrites()) this.parts.flusher.soon();
    const free = pool.hasFreeSlot();
    const due = free || this.parts.workers.canGrow() ? coordinator.nextWakeAt() : undefined;
    if (!free && due !== undefined && due <= t) this.parts.workers.grow(); // its ready workers run the pump
    // With no free slot, a timer only for work due later that a new worker could take.
    const next = free || (due !== undefined && due > t && this.parts.workers.canGrow()) ? due : undefined;
    if (next === undefined) {
      this.clearWake();
      return;
    }
    if (this.wakeTimer !== null && next >= this.wakeAt) return; // the timer set already comes first
    this.clearWake();
    this.wakeAt = next;
    this.wakeTimer = this.parts.timers.setTimeout(
      () => {
        this.wakeTimer = null;
        this.wakeAt = Infinity;
        this.pump();
      },
      Math.max(0, Math.ceil(next - this.parts.clock())),
    );
  }

  /** One job handed out at `now` (handOutNext over the Coordinator's parts); one method, so a benchmark can time it. */
  handOutOne(now: number): FetchJob | undefined {
    return handOutNext(this.parts.coordinator.handOut, now);
  }

  /** No more work is handed out (the crawl is stopping). */
  stop(): void {
    this.stopped = true;
    this.clearWake();
  }

  private clearWake(): void {
    if (this.wakeTimer !== null) this.parts.timers.clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAt = Infinity;
  }
}
