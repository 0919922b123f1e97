/**
 * Which worker fetches which job (pure: no processes, no IPC; worker-lifecycle.ts fills it as workers come and go).
 *
 * A worker runs up to `slots` fetches at once: most of a fetch is waiting on the network, and a site
 * that answers slowly (or drips its body until the timeout) must not hold a whole worker. With one
 * fetch per worker, N slow hosts would stop the crawl of every other host for up to CRAWL_TIMEOUT_MS.
 * A host still has at most one request in flight: that is the scheduler's rule, not the pool's.
 *
 * A job goes to the worker that last fetched from its host when that worker has a free slot (its
 * keep-alive connection to the site is probably still open), otherwise to the worker with the most
 * free slots (the least loaded; among equals, the one given work longest ago).
 */
export class WorkerPool<W extends { id: number }> {
  private readonly workers = new Map<number, { worker: W; jobs: Set<number> }>();
  private readonly lastWorkerOf = new Map<string, number>();

  constructor(private readonly slots: number) {
    if (!Number.isInteger(slots) || slots < 1)
      throw new Error(`worker-pool: slots must be a positive integer, got ${slots}`);
  }

  /** A worker said it is ready: its slots are free. */
  add(worker: W): void {
    if (!this.workers.has(worker.id)) this.workers.set(worker.id, { worker, jobs: new Set() });
  }

  /** A worker is gone: returns the jobs it was running (they go back to the queue). */
  remove(workerId: number): number[] {
    const entry = this.workers.get(workerId);
    this.workers.delete(workerId);
    return entry ? [...entry.jobs] : [];
  }

  /** Whether any ready worker has a free slot. */
  hasFreeSlot(): boolean {
    for (const { jobs } of this.workers.values()) if (jobs.size < this.slots) return true;
    return false;
  }

  /** Gives `jobId` (a job of `origin`) a slot and returns the worker that runs it; undefined if every slot is taken. */
  assign(origin: string, jobId: number): W | undefined {
    const preferred = this.workers.get(this.lastWorkerOf.get(origin) ?? -1);
    let chosen = preferred && preferred.jobs.size < this.slots ? preferred : undefined;
    if (!chosen) {
      for (const entry of this.workers.values()) {
        if (entry.jobs.size < this.slots && (!chosen || entry.jobs.size < chosen.jobs.size)) chosen = entry;
      }
    }
    if (!chosen) return undefined;
    chosen.jobs.add(jobId);
    this.lastWorkerOf.set(origin, chosen.worker.id);
    // Least recently given work first among equals: move the chosen worker to the end of the order.
    this.workers.delete(chosen.worker.id);
    this.workers.set(chosen.worker.id, chosen);
    return chosen.worker;
  }

  /** A worker reported the job done: its slot is free again. */
  release(workerId: number, jobId: number): void {
    this.workers.get(workerId)?.jobs.delete(jobId);
  }

  /** Jobs a ready worker is running (0 for a worker not in the pool). */
  jobsOf(workerId: number): number {
    return this.workers.get(workerId)?.jobs.size ?? 0;
  }

  /** Ready workers. */
  readyCount(): number {
    return this.workers.size;
  }

  /** Jobs running over all workers. */
  runningCount(): number {
    let n = 0;
    for (const { jobs } of this.workers.values()) n += jobs.size;
    return n;
  }
}
