/**
 * The crawler primary's workers from fork to exit: a worker forked is live; once loaded it says `ready`,
 * gets the settings and its fetch slots join the WorkerPool; when it exits, the jobs it was running are
 * handed back to the caller (which returns them to their queues and forks a replacement unless the
 * crawl is stopping). At the end, `stopAll` asks every live worker to exit (SIGTERM) and kills those
 * still there PRIMARY_TIMING.workerExitMs later (SIGKILL).
 */
import { PRIMARY_TIMING, type PrimaryTransport, type Timers, type WorkerHandle } from './primary-ports.ts';
import type { WorkerSettings } from './protocol.ts';
import { WorkerPool } from './worker-pool.ts';

/** What a WorkerLifecycle is given. */
export interface WorkerLifecycleParts<W extends WorkerHandle> {
  transport: PrimaryTransport<W>;
  timers: Timers;
  settings: WorkerSettings;
  /** Fetches a worker runs at once (FETCH_DEFAULTS.fetchesPerWorker). */
  slotsPerWorker: number;
}

/** Live workers and their slots (see the module comment). */
export class WorkerLifecycle<W extends WorkerHandle> {
  readonly pool: WorkerPool<W>;
  private readonly live = new Map<number, W>();
  /** Set by stopAll: resolves it once the last live worker exited. */
  private allExited: (() => void) | null = null;

  constructor(private readonly p: WorkerLifecycleParts<W>) {
    this.pool = new WorkerPool<W>(p.slotsPerWorker);
  }

  /** Starts one worker. */
  fork(): void {
    const worker = this.p.transport.forkWorker();
    this.live.set(worker.id, worker);
  }

  /** A worker said it is loaded: it gets the settings, and its slots are free. False for a worker not live. */
  ready(workerId: number): boolean {
    const worker = this.live.get(workerId);
    if (!worker) return false;
    this.p.transport.toWorker(worker, { type: 'settings', settings: this.p.settings });
    this.pool.add(worker);
    return true;
  }

  /** A worker reported a job done: its slot is free. */
  done(workerId: number, jobId: number): void {
    this.pool.release(workerId, jobId);
  }

  /** A worker exited: returns the jobs it was running (they go back to the queue). */
  exited(workerId: number): number[] {
    this.live.delete(workerId);
    const jobs = this.pool.remove(workerId);
    if (this.live.size === 0) this.allExited?.();
    return jobs;
  }

  /** The live worker with this id, if any. */
  worker(workerId: number): W | undefined {
    return this.live.get(workerId);
  }

  /** SIGTERM to every live worker, SIGKILL to those still there after workerExitMs; resolves once all have exited. */
  stopAll(): Promise<void> {
    const stopping = [...this.live.values()];
    if (stopping.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const killer = this.p.timers.setTimeout(() => {
        for (const w of stopping) if (this.live.has(w.id)) this.p.transport.killWorker(w, 'SIGKILL');
      }, PRIMARY_TIMING.workerExitMs);
      this.allExited = () => {
        this.allExited = null;
        this.p.timers.clearTimeout(killer);
        resolve();
      };
      for (const w of stopping) this.p.transport.killWorker(w, 'SIGTERM');
    });
  }
}
