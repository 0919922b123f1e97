/**
 * The crawler primary's dispatch loop: `pump` hands every due job to a worker with a free slot (the
 * Coordinator says which job, the WorkerPool which worker), then sets the one wake-up timer for the
 * moment the next host becomes due. Nobody polls: a result, a ready worker, a stored batch or that
 * timer runs the pump again. A job that is due with every slot taken (or no worker at all) makes the
 * worker lifecycle start workers (`grow`); while it could, the wake-up timer is kept even with no free
 * slot, since no result may come to run the pump. While the database refuses writes (WriteOutage), while
 * the disk or the database is past its budget (DiskWatch), or once the crawl is stopping, no work is
 * handed out.
 */
import type { Coordinator } from './coordinator.ts';
import type { FlushPacer } from './flush-pacer.ts';
import type { Clock, TimerHandle, Timers, WorkerHandle } from './primary-ports.ts';
import type { FetchJob } from '../common/protocol.ts';
import type { WorkerPool } from './worker-pool.ts';
import type { WriteOutage } from './write-outage.ts';

/** What a DispatchLoop is given. */
export interface DispatchLoopParts<W extends WorkerHandle> {
  clock: Clock;
  timers: Timers;
  coordinator: Pick<Coordinator, 'dispatch' | 'nextWakeAt' | 'hasWrites'>;
  pool: WorkerPool<W>;
  outage: WriteOutage;
  /** Paused: the disk or the database is past its budget (the watch pumps again on resume). */
  disk: { readonly paused: boolean };
  flusher: FlushPacer;
  /** Starts workers when work is due and no slot is free (worker-lifecycle.ts); `canGrow` says whether it would. */
  workers: { canGrow(): boolean; grow(): void };
  /** Hands `job` to `worker`. */
  send(worker: W, job: FetchJob): void;
}

/** The pump and its wake-up timer (see the module comment). */
export class DispatchLoop<W extends WorkerHandle> {
  private wakeTimer: TimerHandle | null = null;
  private wakeAt = Infinity;
  private stopped = false;

  constructor(private readonly p: DispatchLoopParts<W>) {}

  /** Hands every due job to a worker with a free slot, then sets the one timer for the next due host. */
  pump(): void {
    if (this.stopped || this.p.outage.waiting) return;
    const { coordinator, pool } = this.p;
    if (this.p.disk.paused) {
      if (coordinator.hasWrites()) this.p.flusher.soon(); // what is queued (a seed's removal) is still stored
      return;
    }
    const t = this.p.clock();
    try {
      while (pool.hasFreeSlot()) {
        const job = coordinator.dispatch(t);
        if (!job) break;
        this.p.send(pool.assign(job.origin, job.jobId)!, job);
      }
    } catch (err) {
      this.p.outage.failed(err, 'handing out work'); // not a storage error (a dispatch writes nothing): fatal
      return;
    }
    this.p.outage.succeeded(); // the pump runs only with no retry pending: the last write went through
    if (coordinator.hasWrites()) this.p.flusher.soon();
    const free = pool.hasFreeSlot();
    const due = free || this.p.workers.canGrow() ? coordinator.nextWakeAt() : undefined;
    if (!free && due !== undefined && due <= t) this.p.workers.grow(); // its ready workers run the pump
    // With no free slot, a timer only for work due later that a new worker could take.
    const next = free || (due !== undefined && due > t && this.p.workers.canGrow()) ? due : undefined;
    if (next === undefined) {
      this.clearWake();
      return;
    }
    if (this.wakeTimer !== null && next >= this.wakeAt) return; // the timer set already comes first
    this.clearWake();
    this.wakeAt = next;
    this.wakeTimer = this.p.timers.setTimeout(
      () => {
        this.wakeTimer = null;
        this.wakeAt = Infinity;
        this.pump();
      },
      Math.max(0, Math.ceil(next - this.p.clock())),
    );
  }

  /** No more work is handed out (the crawl is stopping). */
  stop(): void {
    this.stopped = true;
    this.clearWake();
  }

  private clearWake(): void {
    if (this.wakeTimer !== null) this.p.timers.clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.wakeAt = Infinity;
  }
}
