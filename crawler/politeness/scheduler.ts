/**
 * The one place that decides when any host may be contacted. Pure: no timers, no I/O; every method
 * takes the current time. Hosts (scheme + host + port) belong to politeness groups
 * (politeness-group.ts: one per host by default, or one per registrable domain); per group:
 *  - at most one request in flight;
 *  - the next request to its host H starts no earlier than the end of the group's previous request
 *    plus max(default delay, H's robots.txt Crawl-delay, the group's pacing), and never before H's
 *    backoff or the group's backoff ends; hosts of a group take turns (delay-reason.ts has the rule
 *    in full, pacing.ts the pacing);
 *  - while a host is paused (robots.txt not yet known, or unreachable), only its priority jobs
 *    (robots.txt fetches) may run.
 * Among groups that are due, the one that has been due the longest goes first (ties: the one seen
 * first), so every group gets its turn and every idle worker gets a job whenever any group is due.
 *
 * Cost: groups wait in a binary heap ordered by when they are due, each group's hosts in a heap
 * ordered by whose turn it is, each host's jobs in lanes (job-lane.ts) whose retries wait in a heap
 * of their own; so dispatching, adding, completing, pausing, backing off and changing a host's delay
 * cost O(log groups + log hosts of the group + log retries of the host), and no path run per dispatch
 * or per result scans hosts or jobs. Only setDefaultDelay and setPacing re-order every group (O(groups)).
 */
import { DueOrder } from './due-order.ts';
import type { SchedulerJob } from './job-lane.ts';
import { politenessGroup, type GroupMode } from './politeness-group.ts';
import {
  checkPacing,
  nextPace,
  type Pace,
  pacingMs,
  PACING,
  type PacingSettings,
  type ServerSignal,
} from './pacing.ts';
import { explainDelay, gapMs, type BackoffSource, type DelayReason } from './delay-reason.ts';
import { GroupState, HostState, type GroupClock, type HostClock } from './scheduler-clocks.ts';
import { crawlDelayKept, type GroupHandover, handoverOf } from './group-handover.ts';

export type { SchedulerJob } from './job-lane.ts';
export type { GroupMode } from './politeness-group.ts';
export type { ServerSignal } from './pacing.ts';
export type { BackoffSource, DelayReason } from './delay-reason.ts';
export type { GroupClock, HostClock } from './scheduler-clocks.ts';
export type { GroupHandover } from './group-handover.ts';

/** A job the scheduler released, with its host and group. */
export interface Dispatch<J> {
  origin: string;
  group: string;
  job: J;
  priority: boolean;
}

/** How a Scheduler groups hosts and paces them; each part defaults to today's behaviour. */
export interface SchedulerOptions {
  /** 'host' (default): one clock per origin; 'domain': one per registrable domain. */
  grouping?: GroupMode;
  /** Pacing by response time (pacing.ts); factor 0 (the default) adds nothing. */
  pacing?: Partial<PacingSettings>;
  /**
   * Leased (a crawler node on PostgreSQL, issue 29): a group starts requests only within the window its lease
   * gives (setStartWindow), none before one is given. Unleased (the default): every group, always.
   */
  leased?: boolean;
}

/** The scheduler was used against its own rules (a bug in the caller or here, never a site's doing). */
export class SchedulerError extends Error {
  override readonly name = 'SchedulerError';
}

/** Per-host queues and per-group clocks; see the module comment for the rules. */
export class Scheduler<J extends SchedulerJob> {
  private readonly hosts = new Map<string, HostState<J>>();
  private readonly groups = new Map<string, GroupState<J>>();
  /** The hosts' turns and the groups due, kept in step with the clocks (due-order.ts). */
  private readonly order = new DueOrder<J>((h) => this.gap(h));
  private pacing: PacingSettings;
  private jobSeq = 0;
  private queued = 0;
  private inFlightTotal = 0;
  /** How hosts are grouped (fixed for the scheduler's life). */
  readonly grouping: GroupMode;
  /** Whether groups start requests only within their lease's window (SchedulerOptions.leased). */
  readonly leased: boolean;

  constructor(
    private defaultDelayMs: number,
    options: SchedulerOptions = {},
  ) {
    this.grouping = options.grouping ?? 'host';
    this.leased = options.leased ?? false;
    this.pacing = checkPacing({
      factor: options.pacing?.factor ?? PACING.factor,
      ceilingMs: options.pacing?.ceilingMs ?? PACING.ceilingMs,
    });
  }

  /** The host's clock, created (unpaused, never contacted) on first use. */
  host(origin: string): HostClock {
    return this.state(origin);
  }

  /** The key of the politeness group `origin` belongs to under this scheduler's grouping. */
  groupOf(origin: string): string {
    return this.hosts.get(origin)?.group ?? politenessGroup(origin, this.grouping);
  }

  /** The clock of the group `origin` belongs to (the host is created if new). */
  group(origin: string): GroupClock {
    return this.state(origin).groupState;
  }

  /** Every host the scheduler knows. */
  allHosts(): IterableIterator<HostClock> {
    return this.hosts.values();
  }

  /**
   * Queues a job in its host's queue (or in the priority lane, served first and even while paused): behind
   * the jobs due before it, so in arrival order unless it waits for a time of its own (job-lane.ts).
   */
  add(origin: string, job: J, priority = false): void {
    const h = this.state(origin);
    (priority ? h.priority : h.queue).add(job, this.jobSeq++);
    this.queued++;
    this.order.refresh(h);
  }

  /** Removes and returns the queued jobs of a host that match `predicate` (e.g. now disallowed by robots.txt). */
  remove(origin: string, predicate: (job: J) => boolean): J[] {
    const h = this.hosts.get(origin);
    if (!h) return [];
    const removed = h.queue.removeWhere(predicate);
    this.queued -= removed.length;
    this.order.refresh(h);
    return removed;
  }

  /** Pauses or resumes a host's ordinary queue; priority jobs still run while paused. */
  setPaused(origin: string, paused: boolean): void {
    const h = this.state(origin);
    h.paused = paused;
    this.order.refresh(h);
  }

  /** Sets the robots.txt Crawl-delay; it only ever lengthens the default delay, never shortens it. */
  setCrawlDelay(origin: string, crawlDelayMs: number | undefined): void {
    const h = this.state(origin);
    h.crawlDelayMs = crawlDelayMs;
    h.crawlDelayRead = true;
    this.order.refresh(h);
  }

  /** No request to the host starts before `until` (Retry-After or backoff); 0 clears it. Its siblings are not held. */
  setBackoffUntil(origin: string, until: number, source: BackoffSource = 'backoff'): void {
    const h = this.state(origin);
    h.backoffUntil = until;
    h.backoffSource = source;
    this.order.refresh(h);
  }

  /**
   * No request to any host of `origin`'s group starts before `until`: for an answer that says the
   * whole server is overloaded (backoff.ts backoffScope); 0 clears it. In 'host' grouping, the same as
   * setBackoffUntil except in what delayReason says.
   */
  setGroupBackoffUntil(origin: string, until: number, source: BackoffSource = 'backoff'): void {
    const g = this.state(origin).groupState;
    g.backoffUntil = until;
    g.backoffSource = source;
    this.order.refreshGroup(g);
  }

  /** Restores a host's clock after a restart, so a restart is not a burst (its group's clock too). */
  restoreClock(origin: string, lastEnd: number): void {
    const h = this.state(origin);
    h.lastEnd = Math.max(h.lastEnd, lastEnd);
    h.groupState.lastEnd = Math.max(h.groupState.lastEnd, lastEnd);
    this.order.refresh(h);
  }

  /** Changes the default delay (CRAWL_DELAY_MS). Re-orders every group: O(groups). */
  setDefaultDelay(ms: number): void {
    this.defaultDelayMs = ms;
    this.order.reorderAll();
  }

  /** Changes the pacing settings (pacing.ts). Re-orders every group: O(groups). */
  setPacing(settings: Partial<PacingSettings>): void {
    this.pacing = checkPacing({ ...this.pacing, ...settings });
    this.order.reorderAll();
  }

  /** The configured part of a host's delay: the default or its robots.txt Crawl-delay, whichever is longer (see delayReason for pacing and backoff). */
  effectiveDelay(origin: string): { ms: number; source: 'default' | 'crawl-delay' } {
    const crawl = crawlDelayKept(this.state(origin)) ?? 0;
    return crawl > this.defaultDelayMs
      ? { ms: crawl, source: 'crawl-delay' }
      : { ms: this.defaultDelayMs, source: 'default' };
  }

  /** The delay in force before the host's next request, the rule that set it, and that in words (delay-reason.ts). */
  delayReason(origin: string, now: number): DelayReason {
    const h = this.state(origin);
    const g = h.groupState;
    return explainDelay({
      defaultMs: this.defaultDelayMs,
      crawlDelayMs: crawlDelayKept(h),
      pace: g.pace,
      pacing: this.pacing,
      hostBackoff: { until: h.backoffUntil, source: h.backoffSource },
      groupBackoff: { until: g.backoffUntil, source: g.backoffSource },
      group: g.key,
      lastEnd: g.lastEnd,
      now,
    });
  }

  /**
   * The lease of group `key` allows its requests to start from `from` until `until` (a leased scheduler; a node
   * that lost the group passes -Infinity as `until`). A group already due after `until` leaves the due ones until
   * the next window. O(log groups).
   */
  setStartWindow(key: string, from: number, until: number): void {
    const g = this.groupState(key);
    g.startsFrom = from;
    g.startsUntil = until;
    this.order.refreshGroup(g);
  }

  /**
   * Continues a group's clock taken over from another node (its lease row): its pacing and its backoff, which
   * every later request keeps (the first also waits for the window's `from`, setStartWindow), and its Crawl-delay,
   * which each of its hosts keeps until this node reads that host's robots.txt (GroupState.crawlDelayFloorMs).
   */
  continueGroup(key: string, clock: { pace: Pace; backoffUntil: number | null; crawlDelayMs?: number | null }): void {
    const g = this.groupState(key);
    g.pace = clock.pace;
    if (clock.backoffUntil !== null) g.backoffUntil = Math.max(g.backoffUntil, clock.backoffUntil);
    g.crawlDelayFloorMs = clock.crawlDelayMs ?? null;
    this.order.refreshGroup(g);
  }

  /**
   * Group `key`, just taken, has hosts whose robots.txt Crawl-delay some node recorded (`hosts` rows) and its lease
   * row did not hand on (its holder died before releasing it): each of its hosts keeps at least `crawlDelayMs` until
   * read here again, and nothing starts before `notBefore` (the taker's now plus that delay: the dead holder's last
   * request ended before now, since the lease it ran under had expired).
   */
  holdForCrawlDelay(key: string, crawlDelayMs: number, notBefore: number): void {
    const g = this.groupState(key);
    g.crawlDelayFloorMs = Math.max(g.crawlDelayFloorMs ?? 0, crawlDelayMs);
    g.startsFrom = Math.max(g.startsFrom, notBefore);
    this.order.refreshGroup(g);
  }

  /** The origins of group `key` this scheduler knows. */
  hostsOf(key: string): string[] {
    return (this.groups.get(key)?.members ?? []).map((h) => h.origin);
  }

  /** What a lease hands on of group `key` (GroupHandover): its clock, what is in flight and what waits. O(its hosts). */
  groupHandover(key: string): GroupHandover {
    return handoverOf(this.groupState(key), this.defaultDelayMs, this.pacing);
  }

  /** The earliest time the host's clock allows a new request (ignoring whether it has work, or whose turn it is). */
  dueAt(origin: string): number {
    const h = this.state(origin);
    const g = h.groupState;
    return Math.max(g.lastEnd + this.gap(h), h.backoffUntil, g.backoffUntil);
  }

  /**
   * Releases the next job whose group is due at `now`, marking its host and group in flight, or
   * undefined if no group is due. Call it repeatedly to fill every idle worker.
   */
  next(now: number): Dispatch<J> | undefined {
    let g = this.order.first();
    while (g !== undefined && g.readyAt <= now && now > g.startsUntil) {
      this.order.drop(g); // its lease allows no more starts: back among the due with its next window
      g = this.order.first();
    }
    if (!g || g.readyAt > now) return undefined;
    const h = g.turns.peek()!;
    let job = h.priority.take(now);
    const priority = job !== undefined;
    if (!job && !h.paused) job = h.queue.take(now);
    if (!job)
      throw new SchedulerError(
        `scheduler: ${h.origin} was due at ${g.readyAt} but had no job it may run at ${now}; this is a bug in the scheduler's bookkeeping`,
      );
    this.queued--;
    h.inFlight++;
    g.inFlight++;
    this.inFlightTotal++;
    h.lastStart = g.lastStart = now;
    this.order.refresh(h);
    return { origin: h.origin, group: g.key, job, priority };
  }

  /**
   * Records that the host's request ended at `endedAt`; the group's next request is measured from
   * there. `signal` (pacing.ts serverSignal), when given, feeds the group's pacing: the response time
   * and whether the server strained. A request dropped before contact passes -Infinity and no signal.
   */
  complete(origin: string, endedAt: number, signal?: ServerSignal): void {
    const h = this.state(origin);
    const g = h.groupState;
    if (h.inFlight > 0) {
      h.inFlight--;
      g.inFlight--;
      this.inFlightTotal--;
    }
    h.lastEnd = Math.max(h.lastEnd, endedAt);
    g.lastEnd = Math.max(g.lastEnd, endedAt);
    if (signal) g.pace = nextPace(g.pace, signal);
    this.order.refresh(h);
  }

  /** When the next job becomes due (for the single wake-up timer), or undefined if nothing is waiting. */
  nextWakeAt(): number | undefined {
    return this.order.first()?.readyAt;
  }

  /** Whether the host has jobs waiting (an unknown host has none). */
  hasQueued(origin: string): boolean {
    const h = this.hosts.get(origin);
    return h !== undefined && h.queue.length + h.priority.length > 0;
  }

  /** Jobs waiting (not in flight) over all hosts. */
  queuedCount(): number {
    return this.queued;
  }

  /** Requests in flight over all hosts. */
  inFlightCount(): number {
    return this.inFlightTotal;
  }

  private state(origin: string): HostState<J> {
    let h = this.hosts.get(origin);
    if (!h) {
      const key = politenessGroup(origin, this.grouping);
      const g = this.groupState(key);
      h = new HostState<J>(origin, g, this.hosts.size);
      this.hosts.set(origin, h);
      g.members.push(h);
    }
    return h;
  }

  /** The group of key `key`, created (with no hosts; not startable if leased) on first use. */
  private groupState(key: string): GroupState<J> {
    let g = this.groups.get(key);
    if (!g) {
      g = new GroupState<J>(key, this.groups.size);
      if (this.leased) g.startsUntil = -Infinity;
      this.groups.set(key, g);
    }
    return g;
  }

  /** Rule 2 of delay-reason.ts: the gap before a request to `h`, from the end of its group's last request. */
  private gap(h: HostState<J>): number {
    return gapMs(this.defaultDelayMs, crawlDelayKept(h), pacingMs(h.groupState.pace, this.pacing));
  }
}
