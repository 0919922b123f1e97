/**
 * One crawler node's leases kept in place (issue 29, docs/scaling.md "The keeper and the loop"): the keeper's rules
 * (lease-keeper.ts) as steps on a book the lease loop owns, with what a round needs counted as the leases change, so
 * that a round's work on the primary's thread follows what changed, not the groups held. Pure: the caller passes the
 * time (a monotonic clock) and every answer; no timers, no I/O.
 */
import type { HeldLease, TakenGroup } from '../../db/pg/pg-leases.ts';
import { fairShare, type HeldGroup, shareOf, takeToShare } from './fair-share.ts';
import { type LocalGroupClock, takeoverClock } from './lease-clock.ts';
import type {
  ClusterFacts,
  GroupNote,
  GroupToRelease,
  KeeperPlan,
  KeeperSettings,
  KeeperState,
  KeptLease,
} from './lease-keeper.ts';
import { afterRenewal, grantLease, LeaseRuleError, type LeaseTiming, leaseAt, renewalDueAt } from './lease-rules.ts';

/** A keeper asked to apply an answer it did not plan (a bug of the caller). */
export class LeaseKeeperError extends Error {
  override readonly name = 'LeaseKeeperError';
}

/** Whether `kept` is the lease `h` names (same group and epoch). */
const same = (kept: KeptLease | undefined, h: HeldLease): kept is KeptLease =>
  kept !== undefined && kept.lease.epoch === h.epoch;

/** Whether two clocks say the same (a note that repeats the clock the keeper has changes nothing). */
function sameClock(a: LocalGroupClock, b: LocalGroupClock): boolean {
  return (
    a === b ||
    (a.nextStartAt === b.nextStartAt &&
      a.gapMs === b.gapMs &&
      a.crawlDelayMs === b.crawlDelayMs &&
      a.backoffUntil === b.backoffUntil &&
      a.backoffMs === b.backoffMs &&
      a.backoffReason === b.backoffReason &&
      a.pace.responseMs === b.pace.responseMs &&
      a.pace.slowdown === b.pace.slowdown &&
      a.pace.strained === b.pace.strained)
  );
}

/**
 * The keeper's leases kept in place, with what a round needs of them counted as they change, so that a round's
 * work is proportional to what changed, not to the groups held (10,000 groups: a copy of the leases and a walk of
 * every group each second blocked the primary's event loop 76.5 ms a round, docs/benchmarks.md). The lease loop
 * owns one and changes it with its methods; lease-keeper.ts (planLeases, afterTake, ...) gives the same steps
 * on a copy, for callers that keep each state. What is counted: the settled groups (not being released) with work,
 * those idle (settled, no work, nothing in flight), a time before which no lease is due a renewal or at its
 * deadline (`wakeAt`, exact after each walk, only ever too early between), and a version raised whenever a lease's
 * group, epoch, deadline or release changes (what the windows and the held list are made of).
 */
export class LeaseBook implements KeeperState {
  readonly leases = new Map<string, KeptLease>();
  taking = false;
  /** Raised at every change of a held group, its epoch, its deadline or its release. */
  version = 0;
  /** Raised at every change of a held group, its epoch or its release (not at a renewal's new deadline). */
  heldVersion = 0;
  /** No lease is due a renewal or at its deadline before this (local ms); Infinity with none. */
  wakeAt = Infinity;
  private withWork = 0;
  private readonly idle = new Set<string>();
  /** Groups whose backoff moved (a 429, a 503, a Retry-After) since their clock was last written to the lease row. */
  private readonly unrecorded = new Set<string>();

  constructor(readonly settings: KeeperSettings) {
    if (!Number.isInteger(settings.maxTake) || settings.maxTake < 1)
      throw new LeaseRuleError(`lease-keeper: maxTake ${settings.maxTake} must be a whole number of groups above 0`);
  }

  /** A book of its own with `state`'s leases (a copy: what lease-keeper.ts's steps change). */
  static of(state: KeeperState): LeaseBook {
    const book = new LeaseBook(state.settings);
    book.taking = state.taking;
    for (const [group, kept] of state.leases) book.put(group, kept);
    book.version = 0;
    book.heldVersion = 0;
    return book;
  }

  /** See planLeases. Visits every lease only once one is due a renewal or at its deadline (`wakeAt`). */
  plan(now: number, facts: ClusterFacts | null): KeeperPlan {
    const t = this.settings.timing;
    const lost: HeldLease[] = [];
    const renew: HeldLease[] = [];
    if (now >= this.wakeAt) {
      for (const [group, kept] of this.leases)
        if (leaseAt(kept.lease, now).lost) lost.push({ group, epoch: kept.lease.epoch });
      for (const l of lost) this.drop(l.group);
      // Nothing is renewed before some lease is due; then every lease due within half a renewal interval is. Leases
      // taken over a span (a lone node takes 50 a statement) then converge on one renewal, not a slice each round.
      const early = (t.leaseMs * t.renewFraction) / 2;
      let due = false;
      for (const kept of this.leases.values()) if (renewable(kept) && now >= renewalDueAt(kept.lease, t)) due = true;
      for (const [group, kept] of due ? this.leases : []) {
        if (!renewable(kept) || now + early < renewalDueAt(kept.lease, t)) continue;
        renew.push({ group, epoch: kept.lease.epoch });
        this.put(group, { ...kept, renewingSince: now });
      }
      this.wakeAt = Infinity;
      for (const kept of this.leases.values()) this.wakeAt = Math.min(this.wakeAt, wakeOf(kept, t));
    }
    const release: GroupToRelease[] = [];
    let take = 0;
    if (facts !== null) {
      const share = shareOf(facts);
      const idle = this.idle.size === 0 ? [] : [...this.leases.keys()].filter((g) => this.idle.has(g));
      let over: string[] = [];
      if (this.withWork <= share) take = takeToShare(share, this.withWork, this.settings.maxTake);
      else {
        const held: HeldGroup[] = [];
        for (const k of this.leases.values())
          if (!k.releasing && k.hasWork)
            held.push({ group: k.lease.group, inFlight: k.inFlight, dueAt: k.clock.nextStartAt });
        over = fairShare({ ...facts, held, maxTake: this.settings.maxTake }).release;
      }
      for (const group of [...idle, ...over]) {
        const kept = this.leases.get(group) as KeptLease;
        release.push({ group, epoch: kept.lease.epoch, clock: kept.clock, hasWork: kept.hasWork });
        this.put(group, { ...kept, releasing: true });
      }
      if (this.taking || release.length > 0) take = 0;
    }
    this.taking ||= take > 0;
    return { lost, renew, release, take };
  }

  /** See afterTake. */
  took(sentAt: number, arrivedAt: number, rows: readonly TakenGroup[] | null): void {
    if (!this.taking) throw new LeaseKeeperError('lease-keeper: a take was answered but none was planned');
    for (const r of rows ?? []) {
      this.put(r.group, {
        lease: grantLease(r.group, r.epoch, sentAt, this.settings.timing),
        inFlight: false,
        hasWork: true,
        clock: takeoverClock(r, arrivedAt),
        renewingSince: null,
        releasing: false,
      });
    }
    this.taking = false;
  }

  /** See afterRenew: answers the leases lost. */
  renewed(sent: readonly HeldLease[], sentAt: number, now: number, held: ReadonlySet<string> | null): HeldLease[] {
    const lost: HeldLease[] = [];
    for (const h of sent) {
      const kept = this.leases.get(h.group);
      if (!same(kept, h)) continue; // dropped or replaced meanwhile: this answer is not about it
      const answer = held === null ? 'failed' : held.has(h.group) ? 'held' : 'not-held';
      const lease = afterRenewal(kept.lease, sentAt, answer, now, this.settings.timing);
      if (lease.lost) {
        this.drop(h.group);
        lost.push(h);
      } else this.put(h.group, { ...kept, lease, renewingSince: null });
    }
    return lost;
  }

  /** See afterRelease: answers the leases lost. */
  released(sent: readonly HeldLease[], released: ReadonlySet<string> | null): HeldLease[] {
    const lost: HeldLease[] = [];
    for (const h of sent) {
      if (!same(this.leases.get(h.group), h)) continue;
      this.drop(h.group);
      if (released === null || !released.has(h.group)) lost.push(h);
    }
    return lost;
  }

  /** See noteGroup. A note that says what the keeper has already changes nothing (and costs no copy). */
  note(group: string, now: GroupNote): void {
    const kept = this.leases.get(group);
    if (kept === undefined) return;
    const inFlight = now.inFlight ?? kept.inFlight;
    const hasWork = now.hasWork ?? kept.hasWork;
    const clock = now.clock ?? kept.clock;
    if (inFlight === kept.inFlight && hasWork === kept.hasWork && sameClock(clock, kept.clock)) return;
    if (clock.backoffUntil !== null && clock.backoffUntil !== kept.clock.backoffUntil) this.unrecorded.add(group);
    this.put(group, { ...kept, inFlight, hasWork, clock });
  }

  /**
   * The held groups (not being released: a release writes the clock anyway) whose backoff moved since their clock
   * was last written, each with its clock; they count as written from here (see recordFailed). The loop writes them
   * to the lease rows at its next round, so a node killed now hands its backoffs on (db/pg/pg-lease-clocks.ts).
   */
  clocksToRecord(): Array<HeldLease & { clock: LocalGroupClock }> {
    const out: Array<HeldLease & { clock: LocalGroupClock }> = [];
    for (const group of this.unrecorded) {
      const kept = this.leases.get(group);
      if (kept !== undefined && !kept.releasing) out.push({ group, epoch: kept.lease.epoch, clock: kept.clock });
    }
    this.unrecorded.clear();
    return out;
  }

  /** Writing these clocks failed: they are asked for again by the next clocksToRecord, if still held at that epoch. */
  recordFailed(sent: readonly HeldLease[]): void {
    for (const h of sent) if (same(this.leases.get(h.group), h)) this.unrecorded.add(h.group);
  }

  /** Keeps `kept` for `group`, its counts moved from what it replaces. */
  private put(group: string, kept: KeptLease): void {
    const before = this.leases.get(group);
    if (before !== undefined) this.uncount(group, before);
    this.leases.set(group, kept);
    if (!kept.releasing) {
      if (kept.hasWork) this.withWork++;
      else if (!kept.inFlight) this.idle.add(group);
    }
    this.wakeAt = Math.min(this.wakeAt, wakeOf(kept, this.settings.timing));
    if (before === undefined || before.lease !== kept.lease || before.releasing !== kept.releasing) this.version++;
    if (before === undefined || before.lease.epoch !== kept.lease.epoch || before.releasing !== kept.releasing)
      this.heldVersion++;
  }

  /** Drops `group`'s lease. */
  private drop(group: string): void {
    const before = this.leases.get(group);
    if (before === undefined) return;
    this.uncount(group, before);
    this.leases.delete(group);
    this.unrecorded.delete(group);
    this.version++;
    this.heldVersion++;
  }

  private uncount(group: string, kept: KeptLease): void {
    if (kept.releasing) return;
    if (kept.hasWork) this.withWork--;
    else this.idle.delete(group);
  }
}

/** A lease a renewal may be planned for: none on its way, not being released. */
const renewable = (k: KeptLease) => k.renewingSince === null && !k.releasing;

/** When `kept` next needs a round: its renewal due (if renewable) or its deadline. */
const wakeOf = (kept: KeptLease, t: LeaseTiming) =>
  Math.min(kept.lease.deadline, renewable(kept) ? renewalDueAt(kept.lease, t) : Infinity);
