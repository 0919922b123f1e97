import { BinaryHeap } from './heap.ts';

/** What the scheduler needs of a job: when it may run at the earliest (for retries). */
export interface SchedulerJob {
  notBefore: number;
}

interface Delayed<J> {
  job: J;
  notBefore: number;
  seq: number;
}

/**
 * One of a host's queues (its ordinary queue or its priority lane), ordered so that the job due the
 * longest goes first: by max(notBefore, 0), then by arrival. Jobs due at once (notBefore ≤ 0, nearly
 * all of them) wait in a FIFO, O(1) in and out; jobs that must wait (retries, notBefore > 0) wait in a
 * heap ordered by (notBefore, arrival), so neither a retry far in the future nor many of them cost a
 * scan: the lane's earliest time is the FIFO's (0) or the heap's top, and taking a job looks at two
 * heads. Times are milliseconds ≥ 0 (epoch time or a test clock). Pure.
 */
export class JobLane<J extends SchedulerJob> {
  private fifo: J[] = [];
  private head = 0;
  private readonly delayed = new BinaryHeap<Delayed<J>>(
    (a, b) => a.notBefore < b.notBefore || (a.notBefore === b.notBefore && a.seq < b.seq),
  );

  /** Jobs waiting in the lane. */
  get length(): number {
    return this.fifo.length - this.head + this.delayed.size;
  }

  /** Adds a job; `seq` is its arrival number, increasing over the whole scheduler. */
  add(job: J, seq: number): void {
    if (job.notBefore > 0) this.delayed.push({ job, notBefore: job.notBefore, seq });
    else this.fifo.push(job);
  }

  /** When the lane's first job may run: 0 for a job due at once, Infinity when the lane is empty. */
  earliest(): number {
    if (this.head < this.fifo.length) return 0;
    return this.delayed.peek()?.notBefore ?? Infinity;
  }

  /** Takes out the job due the longest at `now`, or undefined if none is due yet. */
  take(now: number): J | undefined {
    if (this.head < this.fifo.length) {
      const job = this.fifo[this.head];
      this.fifo[this.head++] = undefined as unknown as J; // let it be collected
      if (this.head === this.fifo.length) {
        this.fifo = [];
        this.head = 0;
      } else if (this.head >= 1024 && this.head * 2 >= this.fifo.length) {
        this.fifo = this.fifo.slice(this.head);
        this.head = 0;
      }
      return job;
    }
    const top = this.delayed.peek();
    if (top === undefined || top.notBefore > now) return undefined;
    this.delayed.pop();
    return top.job;
  }

  /** Takes out and returns every job for which `predicate` holds, in no particular order; O(jobs of the lane). */
  removeWhere(predicate: (job: J) => boolean): J[] {
    const removed: J[] = [];
    const kept: J[] = [];
    for (let i = this.head; i < this.fifo.length; i++) (predicate(this.fifo[i]) ? removed : kept).push(this.fifo[i]);
    if (removed.length > 0) {
      this.fifo = kept;
      this.head = 0;
    }
    for (const d of this.delayed.removeWhere((d) => predicate(d.job))) removed.push(d.job);
    return removed;
  }
}
