/**
 * The clocks a Scheduler (scheduler.ts) keeps: one per host (its job lanes, its last request, Crawl-delay,
 * backoff and pause) and one per politeness group (the request in flight, the group's last request, its
 * backoff and pacing, and its hosts' turns). Read-only views (HostClock, GroupClock) for reports; the
 * mutable states only the Scheduler changes, keeping each in its place in its heaps. Pure data, no rules:
 * the rules that move these clocks are the Scheduler's.
 */
import { IndexedHeap, type HeapItem } from './heap.ts';
import { JobLane, type SchedulerJob } from './job-lane.ts';
import type { BackoffSource } from './delay-reason.ts';
import { NO_PACE, type Pace } from './pacing.ts';
import type { StoredGroupClock } from '../../db/pg/pg-leases.ts';

/** A host's clock and queues, readable for reports (/api/domains). */
export interface HostClock {
  readonly origin: string;
  /** The key of the host's politeness group. */
  readonly group: string;
  readonly queue: { readonly length: number };
  readonly priority: { readonly length: number };
  readonly inFlight: number;
  readonly lastStart: number;
  readonly lastEnd: number;
  readonly crawlDelayMs: number | undefined;
  readonly backoffUntil: number;
  readonly paused: boolean;
}

/** A politeness group's shared clock, readable for reports. */
export interface GroupClock {
  readonly key: string;
  readonly inFlight: number;
  readonly lastStart: number;
  readonly lastEnd: number;
  readonly backoffUntil: number;
  readonly pace: Pace;
}

/**
 * A group's clock on this node's monotonic clock (ms), as a lease hands it on between nodes (issue 29): here, since
 * both the scheduler's wiring (coordination/) and the lease rules (cluster/, which stands on it) use it.
 */
export interface LocalGroupClock {
  /** No request of the group starts before this. */
  nextStartAt: number;
  /** The delay kept after each request (default delay, Crawl-delay, pacing: the longest). */
  gapMs: number;
  crawlDelayMs: number | null;
  /** The group's backoff ends at this local time; null: none. */
  backoffUntil: number | null;
  backoffMs: number;
  backoffReason: StoredGroupClock['backoffReason'];
  pace: StoredGroupClock['pace'];
}

/** A politeness group's clock as the Scheduler keeps it: in flight, last request, backoff, pace, and its hosts' turns. */
export class GroupState<J extends SchedulerJob> implements GroupClock, HeapItem {
  inFlight = 0;
  lastStart = -Infinity;
  lastEnd = -Infinity;
  backoffUntil = 0;
  backoffSource: BackoffSource = 'backoff';
  pace: Pace = NO_PACE;
  /** When the group may next start a request (valid while it is in the due heap). */
  readyAt = Infinity;
  /**
   * The starts its node's lease allows (crawler/cluster, issue 29): none before `startsFrom` (a takeover's stored
   * clock), none after `startsUntil` (the lease's deadline less a request's timeout and the margin). Unleased:
   * -Infinity and Infinity; leased and not held: startsUntil -Infinity.
   */
  startsFrom = -Infinity;
  startsUntil = Infinity;
  /**
   * The Crawl-delay its lease row handed on at a takeover (the longest of its hosts' as the last owner knew them):
   * each host whose robots.txt this node has not read yet keeps at least this (HostState.crawlDelayRead), so that
   * reading its hosts' robots.txt again after a handover is no faster than the site asked. Null: none.
   */
  crawlDelayFloorMs: number | null = null;
  /** Its hosts, in the order they were seen. */
  readonly members: HostState<J>[] = [];
  heapPos = -1;
  /** Its hosts that have work they may run, by whose turn it is. */
  readonly turns = new IndexedHeap<HostState<J>>(
    (a, b) => a.turnAt < b.turnAt || (a.turnAt === b.turnAt && a.seq < b.seq),
  );
  constructor(
    readonly key: string,
    readonly seq: number,
  ) {}
}

/** A host's clock and job lanes as the Scheduler keeps it, with its place among its group's turns. */
export class HostState<J extends SchedulerJob> implements HostClock, HeapItem {
  readonly queue = new JobLane<J>();
  readonly priority = new JobLane<J>();
  inFlight = 0;
  lastStart = -Infinity;
  lastEnd = -Infinity;
  crawlDelayMs: number | undefined = undefined;
  /** Whether its Crawl-delay was read here (its robots.txt, or its stored rules at start): its group's floor no longer applies. */
  crawlDelayRead = false;
  backoffUntil = 0;
  backoffSource: BackoffSource = 'backoff';
  paused = false;
  /** When the host's own wait ends: its backoff, its earliest job, the end of its last request. */
  turnAt = Infinity;
  heapPos = -1;
  constructor(
    readonly origin: string,
    readonly groupState: GroupState<J>,
    readonly seq: number,
  ) {}
  get group(): string {
    return this.groupState.key;
  }
}
