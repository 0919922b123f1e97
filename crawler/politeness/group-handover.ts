/**
 * What a politeness group's lease hands on between crawler nodes (issue 29), as a Scheduler (scheduler.ts)
 * reads it off its clocks, and the Crawl-delay a host keeps after a takeover until this node reads its
 * robots.txt. Apart from the Scheduler because both are pure rules over one group's state: the lease wiring
 * (coordination/group-leases.ts) reads the first, and the gap before every request (delay-reason.ts rule 2)
 * is measured with the second.
 */
import { gapMs } from './delay-reason.ts';
import type { SchedulerJob } from './job-lane.ts';
import { type Pace, type PacingSettings, pacingMs } from './pacing.ts';
import type { GroupState, HostState } from './scheduler-clocks.ts';

/** A politeness group's state as a lease hands it on (LocalGroupClock's parts). */
export interface GroupHandover {
  /** No request of the group starts before this (its last end plus its gap, or its backoff). */
  nextStartAt: number;
  /** The gap kept after each request: default delay, longest Crawl-delay of its hosts, pacing. */
  gapMs: number;
  /** The longest Crawl-delay of its hosts, or null. */
  crawlDelayMs: number | null;
  /** The group's backoff end, or null. */
  backoffUntil: number | null;
  pace: Pace;
  /** Requests of the group in flight. */
  inFlight: number;
  /** Jobs of its hosts waiting here. */
  queued: number;
}

/**
 * The Crawl-delay `h` keeps: its own once read here; before that, at least the one its group's lease handed on
 * (a takeover, Scheduler.continueGroup), so that its robots.txt read again is no faster than the site asked of
 * the last owner.
 */
export function crawlDelayKept<J extends SchedulerJob>(h: HostState<J>): number | undefined {
  const floor = h.groupState.crawlDelayFloorMs;
  if (h.crawlDelayRead || floor === null) return h.crawlDelayMs;
  return Math.max(h.crawlDelayMs ?? 0, floor);
}

/**
 * What a lease hands on of group `g` (GroupHandover) under the default delay `defaultMs` and the pacing
 * settings: its clock, what is in flight and what waits. O(its hosts).
 */
export function handoverOf<J extends SchedulerJob>(
  g: GroupState<J>,
  defaultMs: number,
  pacing: PacingSettings,
): GroupHandover {
  let crawl: number | undefined;
  let queued = 0;
  for (const h of g.members) {
    const own = crawlDelayKept(h);
    if (own !== undefined) crawl = Math.max(crawl ?? 0, own);
    queued += h.queue.length + h.priority.length;
  }
  if (g.members.length === 0 && g.crawlDelayFloorMs !== null) crawl = g.crawlDelayFloorMs; // taken, none seen yet
  const gap = gapMs(defaultMs, crawl, pacingMs(g.pace, pacing));
  return {
    nextStartAt: Math.max(g.lastEnd + gap, g.backoffUntil),
    gapMs: gap,
    crawlDelayMs: crawl ?? null,
    backoffUntil: g.backoffUntil > 0 ? g.backoffUntil : null,
    pace: g.pace,
    inFlight: g.inFlight,
    queued,
  };
}
