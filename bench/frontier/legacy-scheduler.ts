/**
 * The scheduler as it was before the heaps (commit 0b010c5, crawler/politeness/scheduler.ts), kept
 * word for word below this comment (but for the class's name) only so that `npm run bench:frontier` can measure what the heaps
 * replaced: every next() and nextWakeAt() scans every host and every queued job. Not used by Lantern
 * and not a test oracle (that is test-support/reference-scheduler.ts, which states the new rules).
 */

/** What the scheduler needs of a job: when it may run at the earliest (for retries). */
export interface SchedulerJob {
  notBefore: number;
}

/** A host's clock and queues, readable for reports (/api/domains). */
export interface HostClock<J> {
  readonly origin: string;
  queue: J[];
  priority: J[];
  inFlight: number;
  lastStart: number;
  lastEnd: number;
  crawlDelayMs: number | undefined;
  backoffUntil: number;
  paused: boolean;
}

/** A job the scheduler released, with its host. */
export interface Dispatch<J> {
  origin: string;
  job: J;
  priority: boolean;
}

/** Per-host queues and clocks; see the module comment for the rules. */
export class LegacyScheduler<J extends SchedulerJob> {
  private readonly hosts = new Map<string, HostClock<J>>();

  constructor(private defaultDelayMs: number) {}

  /** The host's clock, created (unpaused, never contacted) on first use. */
  host(origin: string): HostClock<J> {
    let h = this.hosts.get(origin);
    if (!h) {
      h = {
        origin,
        queue: [],
        priority: [],
        inFlight: 0,
        lastStart: -Infinity,
        lastEnd: -Infinity,
        crawlDelayMs: undefined,
        backoffUntil: 0,
        paused: false,
      };
      this.hosts.set(origin, h);
    }
    return h;
  }

  /** Every host the scheduler knows. */
  allHosts(): IterableIterator<HostClock<J>> {
    return this.hosts.values();
  }

  /** Queues a job at the back of its host's queue (or in the priority lane, served first and even while paused). */
  add(origin: string, job: J, priority = false): void {
    const h = this.host(origin);
    (priority ? h.priority : h.queue).push(job);
  }

  /** Removes and returns the queued jobs of a host that match `predicate` (e.g. now disallowed by robots.txt). */
  remove(origin: string, predicate: (job: J) => boolean): J[] {
    const h = this.hosts.get(origin);
    if (!h) return [];
    const removed: J[] = [];
    h.queue = h.queue.filter((j) => {
      if (!predicate(j)) return true;
      removed.push(j);
      return false;
    });
    return removed;
  }

  /** Pauses or resumes a host's ordinary queue; priority jobs still run while paused. */
  setPaused(origin: string, paused: boolean): void {
    this.host(origin).paused = paused;
  }

  /** Sets the robots.txt Crawl-delay; it only ever lengthens the default delay, never shortens it. */
  setCrawlDelay(origin: string, crawlDelayMs: number | undefined): void {
    this.host(origin).crawlDelayMs = crawlDelayMs;
  }

  /** No request to the host starts before `until` (Retry-After or backoff); 0 clears it. */
  setBackoffUntil(origin: string, until: number): void {
    this.host(origin).backoffUntil = until;
  }

  /** Restores a host's clock after a restart, so a restart is not a burst. */
  restoreClock(origin: string, lastEnd: number): void {
    const h = this.host(origin);
    h.lastEnd = Math.max(h.lastEnd, lastEnd);
  }

  /** Changes the default delay (CRAWL_DELAY_MS). */
  setDefaultDelay(ms: number): void {
    this.defaultDelayMs = ms;
  }

  /** The delay the host gets between the end of one request and the start of the next, and why. */
  effectiveDelay(origin: string): { ms: number; source: 'default' | 'crawl-delay' } {
    const h = this.host(origin);
    const crawl = h.crawlDelayMs ?? 0;
    return crawl > this.defaultDelayMs
      ? { ms: crawl, source: 'crawl-delay' }
      : { ms: this.defaultDelayMs, source: 'default' };
  }

  /** The earliest time the host's clock allows a new request (ignoring whether it has work). */
  dueAt(origin: string): number {
    const h = this.host(origin);
    return Math.max(h.lastEnd + this.effectiveDelay(origin).ms, h.backoffUntil);
  }

  /** The earliest time this host could start its next job, or undefined if it has nothing it may run. */
  private readyAt(h: HostClock<J>): number | undefined {
    if (h.inFlight > 0) return undefined;
    let earliestJob = Infinity;
    for (const j of h.priority) earliestJob = Math.min(earliestJob, j.notBefore);
    if (!h.paused) {
      for (const j of h.queue) {
        earliestJob = Math.min(earliestJob, j.notBefore);
        if (earliestJob === -Infinity) break;
      }
    }
    if (earliestJob === Infinity) return undefined;
    return Math.max(this.dueAt(h.origin), earliestJob);
  }

  private take(lane: J[], now: number): J | undefined {
    const i = lane.findIndex((j) => j.notBefore <= now);
    return i < 0 ? undefined : lane.splice(i, 1)[0];
  }

  /**
   * Releases the next job whose host is due at `now`, marking the host in flight, or undefined if no
   * host is due. Call it repeatedly to fill every idle worker.
   */
  next(now: number): Dispatch<J> | undefined {
    let best: HostClock<J> | undefined;
    let bestAt = Infinity;
    for (const h of this.hosts.values()) {
      const at = this.readyAt(h);
      if (at !== undefined && at <= now && at < bestAt) {
        best = h;
        bestAt = at;
      }
    }
    if (!best) return undefined;
    let job = this.take(best.priority, now);
    const priority = job !== undefined;
    if (!job && !best.paused) job = this.take(best.queue, now);
    if (!job) return undefined;
    best.inFlight++;
    best.lastStart = now;
    return { origin: best.origin, job, priority };
  }

  /** Records that the host's request ended at `endedAt`; its next request is measured from there. */
  complete(origin: string, endedAt: number): void {
    const h = this.host(origin);
    h.inFlight = Math.max(0, h.inFlight - 1);
    h.lastEnd = Math.max(h.lastEnd, endedAt);
  }

  /** When the next job becomes due (for the single wake-up timer), or undefined if nothing is waiting. */
  nextWakeAt(): number | undefined {
    let earliest: number | undefined;
    for (const h of this.hosts.values()) {
      const at = this.readyAt(h);
      if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at;
    }
    return earliest;
  }

  /** Whether the host has jobs waiting (an unknown host has none). */
  hasQueued(origin: string): boolean {
    const h = this.hosts.get(origin);
    return h !== undefined && h.queue.length + h.priority.length > 0;
  }

  /** Jobs waiting (not in flight) over all hosts. */
  queuedCount(): number {
    let n = 0;
    for (const h of this.hosts.values()) n += h.queue.length + h.priority.length;
    return n;
  }

  /** Requests in flight over all hosts. */
  inFlightCount(): number {
    let n = 0;
    for (const h of this.hosts.values()) n += h.inFlight;
    return n;
  }
}
