/**
 * One crawler node's leases as data, and the step that keeps them (issue 29, docs/scaling.md "Many crawler nodes").
 * Pure: the caller reads the time from a monotonic clock and passes it in; no timers, no I/O. The wiring
 * (lease-loop.ts) runs each action it answers as one statement of db/pg/pg-leases.ts and hands the answer back.
 *
 * The rounds go: `planLeases` (given now, the live nodes and the groups with work) answers what to send: the
 * leases lost since (their local deadline came; reported so their queued jobs leave the scheduler), the renewals
 * due, the groups to release (above the fair share, or without work; never one in flight) and how many to take
 * (below the share). The caller sends each, reading the time just before the send, and applies the answer:
 * `afterTake` (rows -> leases counted from the take's send, clocks continued by lease-clock.ts), `afterRenew`
 * (deadlines moved from the renewal's send; "not held", or an answer after the deadline, loses the lease; a failure
 * holds it to the old deadline only), `afterRelease`. A group being renewed is still dispatched to its deadline; a
 * group being released is not dispatched at all, and one whose release failed is dropped as lost (the release may
 * have committed, so another node may hold it). `mayDispatch` answers the groups a request may start for now, and
 * `nextActAt` when the keeper next needs a round, so that the wiring sets one timer. Each step runs on a copy of a
 * LeaseBook (lease-book.ts), which the lease loop steps in place instead.
 */
import type { HeldLease, TakenGroup } from '../../db/pg/pg-leases.ts';
import type { LocalGroupClock } from './lease-clock.ts';
import { LeaseBook } from './lease-book.ts';
import { type Lease, type LeaseTiming, leaseAt, mayStart, renewalDueAt } from './lease-rules.ts';

/** The settings a keeper runs with (checked by lease-rules.ts checkLeaseTiming before use). */
export interface KeeperSettings {
  timing: LeaseTiming;
  /** Every request is aborted at this timeout; a request starts only if it ends a margin before the deadline. */
  requestTimeoutMs: number;
  /** At most this many groups are taken in one statement. */
  maxTake: number;
}

/** A lease this node holds, with what the scheduler said about its group. */
export interface KeptLease {
  readonly lease: Lease;
  /** A request of the group is running: it is never released meanwhile. */
  readonly inFlight: boolean;
  /** The group still has queued work; one without work is released when idle. */
  readonly hasWork: boolean;
  /** The group's clock on this node (from the takeover, then as the scheduler reports it). */
  readonly clock: LocalGroupClock;
  /** A renewal covering this lease was planned at this time and not answered yet; null: none. */
  readonly renewingSince: number | null;
  /** A release of the group was planned and not answered yet: no request starts for it. */
  readonly releasing: boolean;
}

/** The keeper's whole state: its settings, its leases by group, and whether a take is on its way. */
export interface KeeperState {
  readonly settings: KeeperSettings;
  readonly leases: ReadonlyMap<string, KeptLease>;
  /** A take was planned and not answered yet (one at a time). */
  readonly taking: boolean;
}

/** What the cluster looks like this round (db/pg/pg-leases.ts liveNodes and groupsWithWork); null: unknown. */
export interface ClusterFacts {
  liveNodes: number;
  groupsWithWork: number;
}

/** A group to give back, with the clock and work flag the release writes. */
export interface GroupToRelease extends HeldLease {
  clock: LocalGroupClock;
  hasWork: boolean;
}

/** What a round asks the caller to do, in this order; empty lists and a take of 0 mean nothing to send. */
export interface KeeperPlan {
  /** Lost since the last round (deadline passed): already dropped here; drop their queued jobs too. */
  lost: HeldLease[];
  /** Send one renewal for these leases. */
  renew: HeldLease[];
  /** Send one release for these groups (their clocks stored relative to that statement's send). */
  release: GroupToRelease[];
  /** Send one take of at most this many groups (0: none). */
  take: number;
}

export { LeaseBook, LeaseKeeperError } from './lease-book.ts';

/** A keeper with no leases. */
export function newKeeper(settings: KeeperSettings): KeeperState {
  return new LeaseBook(settings);
}

/**
 * The next round at `now`: drops the leases whose local deadline came (answered as lost), then plans renewals
 * (once a lease's renewal is due, every lease whose renewal is due within half a renewal interval, so that leases
 * taken together, or over a span of rounds, are renewed in one statement), and, when the cluster's facts are known,
 * the fair share's take or release. Groups without work and nothing in flight are released whatever the share.
 * On a copy (LeaseBook.plan steps a book in place).
 */
export function planLeases(
  state: KeeperState,
  now: number,
  facts: ClusterFacts | null,
): { state: KeeperState; plan: KeeperPlan } {
  const book = LeaseBook.of(state);
  const plan = book.plan(now, facts);
  return { state: book, plan };
}

/**
 * Applies a take sent at `sentAt` whose rows arrived at `arrivedAt` (null rows: the take failed; whatever it may
 * have taken expires on the database). Each row becomes a lease counted from the send, with its clock continued
 * from the row. A row for a group already held here at another epoch replaces it (the old one was lost).
 */
export function afterTake(
  state: KeeperState,
  sentAt: number,
  arrivedAt: number,
  rows: readonly TakenGroup[] | null,
): KeeperState {
  const book = LeaseBook.of(state);
  book.took(sentAt, arrivedAt, rows);
  return book;
}

/**
 * Applies a renewal of `sent` sent at `sentAt` and answered at `now`: `held` the groups the database still holds
 * for this node, or null when it failed. Held and answered before the deadline: the deadline moves to the send
 * plus the lease less the margin. Not held, or answered at or after the deadline: lost, dropped, and answered
 * so that the caller drops its jobs. Failed: held to the old deadline only (planLeases drops it then).
 */
export function afterRenew(
  state: KeeperState,
  sent: readonly HeldLease[],
  sentAt: number,
  now: number,
  held: ReadonlySet<string> | null,
): { state: KeeperState; lost: HeldLease[] } {
  const book = LeaseBook.of(state);
  const lost = book.renewed(sent, sentAt, now, held);
  return { state: book, lost };
}

/**
 * Applies a release of `sent`: `released` the groups the database freed, or null when it failed. Every group
 * sent is dropped here; those the database did not free (another node had it) or that may or may not have been
 * freed (a failure) are answered as lost, so that the caller drops their jobs and never dispatches them again.
 */
export function afterRelease(
  state: KeeperState,
  sent: readonly HeldLease[],
  released: ReadonlySet<string> | null,
): { state: KeeperState; lost: HeldLease[] } {
  const book = LeaseBook.of(state);
  const lost = book.released(sent, released);
  return { state: book, lost };
}

/** What the scheduler knows of a held group: a request running or not, work left or not, its clock. */
export interface GroupNote {
  inFlight?: boolean;
  hasWork?: boolean;
  clock?: LocalGroupClock;
}

/** Notes what the scheduler knows of a held group: a request running or not, work left or not, its clock. */
export function noteGroup(state: KeeperState, group: string, now: GroupNote): KeeperState {
  return noteGroups(state, [[group, now]]);
}

/** Notes many groups at once, each as noteGroup notes it (on a copy; LeaseBook.note notes in place). */
export function noteGroups(state: KeeperState, notes: Iterable<readonly [string, GroupNote]>): KeeperState {
  const book = LeaseBook.of(state);
  for (const [group, now] of notes) book.note(group, now);
  return book;
}

/** The leases a request may start under at `now` (lease-rules.ts mayStart), not being released, by group. */
export function mayDispatch(state: KeeperState, now: number): HeldLease[] {
  const { requestTimeoutMs, timing } = state.settings;
  return [...state.leases.values()]
    .filter((k) => !k.releasing && mayStart(k.lease, now, requestTimeoutMs, timing.marginMs))
    .map((k) => ({ group: k.lease.group, epoch: k.lease.epoch }))
    .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/**
 * The leases this node acts for at `now`: not lost (even if too close to the deadline to start a request) and not
 * being released (once a release is sent, another node may hold the group as soon as it commits), by group.
 */
export function heldAt(state: KeeperState, now: number): HeldLease[] {
  return [...state.leases.values()]
    .filter((k) => !k.releasing && !leaseAt(k.lease, now).lost)
    .map((k) => ({ group: k.lease.group, epoch: k.lease.epoch }))
    .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/**
 * When the keeper next needs a round, on its own account: the earliest renewal due (of a lease not being renewed)
 * or local deadline; null with no leases (the wiring then plans again at its survey interval).
 */
export function nextActAt(state: KeeperState): number | null {
  const t = state.settings.timing;
  let at: number | null = null;
  for (const k of state.leases.values()) {
    const due = k.renewingSince === null && !k.releasing ? renewalDueAt(k.lease, t) : Infinity;
    const when = Math.min(due, k.lease.deadline);
    at = at === null ? when : Math.min(at, when);
  }
  return at;
}

/** A lease as the scheduler uses it: until when a request may start under it, and the clock it was taken with. */
export interface StartWindow extends HeldLease {
  /** The last moment a request may start (mayStart: deadline less timeout and margin); -Infinity while releasing. */
  startsUntil: number;
  /**
   * The last moment a request handed out may be written by its worker (the deadline less the timeout: cut at its
   * timeout, it ends by the deadline); a job handed out in time that reaches its worker later is not sent
   * (FetchJob.sendBy). Kept while releasing: the jobs already handed out may still go.
   */
  sendsUntil: number;
  clock: LocalGroupClock;
}

/**
 * The leases held at `now` (not lost: heldAt's and those being released) with their start limits, by group: what
 * the node's scheduler may dispatch (lease-rules.ts mayStart, as a time rather than a yes or no).
 */
export function startWindows(state: KeeperState, now: number): StartWindow[] {
  const { requestTimeoutMs, timing } = state.settings;
  return [...state.leases.values()]
    .filter((k) => !leaseAt(k.lease, now).lost)
    .map((k) => ({
      group: k.lease.group,
      epoch: k.lease.epoch,
      startsUntil: k.releasing ? -Infinity : k.lease.deadline - requestTimeoutMs - timing.marginMs,
      sendsUntil: k.lease.deadline - requestTimeoutMs,
      clock: k.clock,
    }))
    .sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : 0));
}

/**
 * Whether two lists of startWindows (each by group) give the same leases the same start limits. Their clocks are
 * not compared: a window's clock is used only when its group or epoch is new to the scheduler.
 */
export function sameStartWindows(a: readonly StartWindow[], b: readonly StartWindow[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.group !== y.group || x.epoch !== y.epoch || x.startsUntil !== y.startsUntil || x.sendsUntil !== y.sendsUntil)
      return false;
  }
  return true;
}
