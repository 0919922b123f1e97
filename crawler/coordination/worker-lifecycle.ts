/**
 * The crawler primary's workers from fork to exit, started when there is work and gone when there is
 * none. No worker runs while nothing is due: when the dispatch loop has a due job and no free slot, it
 * asks `grow`, which starts workers up to CRAWL_WORKERS at once (a crawl that starts waits one worker
 * start-up, a fraction of a second, for its first fetch). A worker forked is live; once loaded it says
 * `ready`, gets the settings and its fetch slots join the WorkerPool. A ready worker that has had no job
 * for PRIMARY_TIMING.workerIdleMs is asked to leave (`retireIdle`, SIGTERM): it holds nothing, and its
 * exit is expected. A worker that exits otherwise (a crash, kill -9) hands back the jobs it was running
 * (the caller returns them to their queues and starts a replacement unless the crawl is stopping).
 * At the end, `stopAll` asks every live worker to exit (SIGTERM) and kills those still there
 * PRIMARY_TIMING.workerExitMs later (SIGKILL).
 */
import { PRIMARY_TIMING, type Clock, type PrimaryTransport, type Timers, type WorkerHandle } from './primary-ports.ts';
import type { WorkerSettings } from '../common/protocol.ts';
import { WorkerPool } from './worker-pool.ts';

/** What a WorkerLifecycle is given. */
export interface WorkerLifecycleParts<W extends WorkerHandle> {
  transport: PrimaryTransport<W>;
  timers: Timers;
  clock: Clock;
  settings: WorkerSettings;
  /** Fetches a worker runs at once (FETCH_DEFAULTS.fetchesPerWorker). */
  slotsPerWorker: number;
  /** Most workers alive at once (CRAWL_WORKERS). */
  maxWorkers: number;
}

/** How a worker's exit is taken. */
export interface WorkerExit {
  /** The jobs it was running (they go back to the queue). */
  jobs: number[];
  /** It was asked to leave (idle, or the crawl is stopping): no replacement, nothing to report. */
  expected: boolean;
}

/** Live workers and their slots (see the module comment). */
export class WorkerLifecycle<W extends WorkerHandle> {
  readonly pool: WorkerPool<W>;
  private readonly live = new Map<number, W>();
  /** Ready workers without a job: since when (the primary's clock). */
  private readonly idleSince = new Map<number, number>();
  /** Workers asked to leave; their exit is expected. */
  private readonly leaving = new Set<number>();
  /** Set by stopAll: resolves it once the last live worker exited. */
  private allExited: (() => void) | null = null;
  private stopping = false;

  constructor(private readonly parts: WorkerLifecycleParts<W>) {
    if (!Number.isInteger(parts.maxWorkers) || parts.maxWorkers < 1)
      throw new Error(`worker-lifecycle: maxWorkers must be a positive integer, got ${parts.maxWorkers}`);
    this.pool = new WorkerPool<W>(parts.slotsPerWorker);
  }

  /** Starts one worker (also a replacement for one that died). */
  fork(): void {
    if (this.stopping) return;
    const worker = this.parts.transport.forkWorker();
    this.live.set(worker.id, worker);
  }

  /** Whether `grow` would start a worker: fewer than maxWorkers are alive (or starting). */
  canGrow(): boolean {
    return !this.stopping && this.live.size - this.leaving.size < this.parts.maxWorkers;
  }

  /** Work is due and every slot is taken (or there is no worker): starts workers up to maxWorkers. */
  grow(): void {
    while (this.canGrow()) this.fork();
  }

  /** A worker said it is loaded: it gets the settings, and its slots are free. False for a worker not live. */
  ready(workerId: number): boolean {
    const worker = this.live.get(workerId);
    if (!worker || this.leaving.has(workerId)) return false;
    this.parts.transport.toWorker(worker, { type: 'settings', settings: this.parts.settings });
    this.pool.add(worker);
    this.idleSince.set(workerId, this.parts.clock());
    return true;
  }

  /** A worker reported a job done: its slot is free (and the worker idle from now, if that was its last job). */
  done(workerId: number, jobId: number): void {
    this.pool.release(workerId, jobId);
    if (this.pool.jobsOf(workerId) === 0) this.idleSince.set(workerId, this.parts.clock());
  }

  /**
   * Asks every ready worker that has had no job for PRIMARY_TIMING.workerIdleMs to leave: out of the
   * pool first (no job can reach it), then SIGTERM. Called on the primary's snapshot timer, so it needs
   * no timer of its own. Returns how many were asked.
   */
  retireIdle(now: number): number {
    if (this.stopping) return 0;
    let retired = 0;
    for (const [workerId, since] of this.idleSince) {
      const worker = this.live.get(workerId);
      if (!worker || this.pool.jobsOf(workerId) !== 0 || now - since < PRIMARY_TIMING.workerIdleMs) continue;
      this.idleSince.delete(workerId);
      this.pool.remove(workerId);
      this.leaving.add(workerId);
      this.parts.transport.killWorker(worker, 'SIGTERM');
      retired++;
    }
    return retired;
  }

  /** A worker exited: the jobs it was running, and whether it was asked to. */
  exited(workerId: number): WorkerExit {
    const expected = this.stopping || this.leaving.has(workerId);
    this.live.delete(workerId);
    this.leaving.delete(workerId);
    this.idleSince.delete(workerId);
    const jobs = this.pool.remove(workerId);
    if (this.live.size === 0) this.allExited?.();
    return { jobs, expected };
  }

  /** The live worker with this id, if any. */
  worker(workerId: number): W | undefined {
    return this.live.get(workerId);
  }

  /** SIGTERM to every live worker, SIGKILL to those still there after workerExitMs; resolves once all have exited. */
  stopAll(): Promise<void> {
    this.stopping = true;
    const stopping = [...this.live.values()];
    if (stopping.length === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const killer = this.parts.timers.setTimeout(() => {
        for (const w of stopping) if (this.live.has(w.id)) this.parts.transport.killWorker(w, 'SIGKILL');
      }, PRIMARY_TIMING.workerExitMs);
      this.allExited = () => {
        this.allExited = null;
        this.parts.timers.clearTimeout(killer);
        resolve();
      };
      for (const w of stopping) if (!this.leaving.has(w.id)) this.parts.transport.killWorker(w, 'SIGTERM');
    });
  }
}
