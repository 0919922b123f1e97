/**
 * The politeness groups this crawler node holds, as its Coordinator's memory follows them (issue 29, docs/scaling.md
 * "Many crawler nodes"). The lease loop (crawler/cluster/lease-loop.ts) decides which groups the node holds and
 * until when a request may start for each; this applies that to the scheduler and the frontier's windows, and
 * answers what the loop and the writes need back. Pure: no timers, no I/O; the wiring (crawler/cluster/node-leases.ts)
 * reads the database when a group is taken and hands the answer to `loaded`.
 *
 *  - A group held: its requests may start from its takeover clock's next start until its start limit (the lease's
 *    local deadline less a request's timeout and the margin: lease-rules.ts mayStart), moved at each renewal.
 *  - A group newly taken (or taken again at a new epoch): held at once, and once `loaded` its hosts' queues are
 *    read from their start (another node may have queued or fetched URLs since this node last read them).
 *  - A group no longer held (lost, or being released): no request starts for it, its page jobs leave the scheduler
 *    (they stay queued in the database for the node that takes it), and results of requests already running are
 *    written under the epoch they started with, which the batch's fence refuses (intent-applier.ts).
 */
import type { GroupLeaseRef } from '../../db/crawl-store.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { LocalGroupClock } from '../politeness/scheduler-clocks.ts';

export type { LocalGroupClock };

/** A lease as the loop holds it now: its group and epoch, and when requests may start under it. */
export interface LeaseWindow extends GroupLeaseRef {
  /** Until this time (the node's clock) a request may start; -Infinity while the group is being released. */
  startsUntil: number;
  /** Until this time (the node's clock) a request handed out may be written by its worker (FetchJob.sendBy). */
  sendsUntil: number;
  /** The group's clock as the lease took it over (used only when the group or its epoch is new here). */
  clock: LocalGroupClock;
}

/** What the lease loop is told of a held group before it plans (lease-keeper.ts noteGroup). */
export interface GroupFacts {
  inFlight: boolean;
  hasWork: boolean;
  clock: LocalGroupClock;
}

/** What a GroupLeases changes and reads: the Coordinator's parts. */
export interface GroupLeaseParts {
  scheduler: Scheduler<CrawlJob>;
  window: Pick<FrontierWindow, 'acquire' | 'release' | 'waiting'>;
  hosts: Pick<HostBook, 'see'>;
  /** Writes of the group queued and not yet committed (IntentApplier.unsettled): it is not released meanwhile. */
  unsettled(group: string): number;
}

/** The groups this node holds (see the module comment). */
export class GroupLeases {
  private readonly held = new Map<string, { epoch: number; from: number; sendsUntil: number }>();
  /** Groups taken and not yet `loaded`: they count as having work (their queues are not read yet). */
  private readonly loading = new Set<string>();

  constructor(private readonly parts: GroupLeaseParts) {}

  /** Whether this node holds `group` now. */
  holds(group: string): boolean {
    return this.held.has(group);
  }

  /** Whether this node holds `lease` now (its group, at its epoch). */
  heldAt(lease: GroupLeaseRef): boolean {
    return this.held.get(lease.group)?.epoch === lease.epoch;
  }

  /** The group `origin` belongs to. */
  groupOfOrigin(origin: string): string {
    return this.parts.scheduler.groupOf(origin);
  }

  /** The hosts of `group` this node knows. */
  hostsOf(group: string): string[] {
    return this.parts.scheduler.hostsOf(group);
  }

  /** Whether this node holds the group of `origin` now. */
  holdsOrigin(origin: string): boolean {
    return this.held.has(this.parts.scheduler.groupOf(origin));
  }

  /** The lease a request to `origin` starts under now (its writes are fenced by it), or undefined if not held. */
  fenceOf(origin: string): GroupLeaseRef | undefined {
    const group = this.parts.scheduler.groupOf(origin);
    const h = this.held.get(group);
    return h === undefined ? undefined : { group, epoch: h.epoch };
  }

  /**
   * Until when (the node's clock) a request to `origin` handed out now may be written by its worker, or undefined
   * if its group is not held: see LeaseWindow.sendsUntil.
   */
  sendsUntil(origin: string): number | undefined {
    return this.held.get(this.parts.scheduler.groupOf(origin))?.sendsUntil;
  }

  /** The groups of these origins, each once. */
  groupsOf(origins: Iterable<string>): string[] {
    const groups = new Set<string>();
    for (const origin of origins) groups.add(this.parts.scheduler.groupOf(origin));
    return [...groups];
  }

  /**
   * The loop's leases now (every one it holds, none else): windows moved, groups no longer held dropped from the
   * scheduler and the windows. Answers the groups new here (or at a new epoch): read their hosts, then `loaded`.
   */
  apply(leases: readonly LeaseWindow[]): GroupLeaseRef[] {
    const { scheduler, window } = this.parts;
    const now = new Map(leases.map((l) => [l.group, l]));
    for (const [group, h] of this.held) {
      const l = now.get(group);
      if (l !== undefined && l.epoch === h.epoch) continue;
      this.held.delete(group);
      this.loading.delete(group);
      scheduler.setStartWindow(group, -Infinity, -Infinity);
      for (const origin of scheduler.hostsOf(group)) window.release(origin);
    }
    const taken: GroupLeaseRef[] = [];
    for (const l of leases) {
      const h = this.held.get(l.group);
      if (h === undefined) {
        const from = Math.max(l.clock.nextStartAt, l.clock.backoffUntil ?? -Infinity);
        this.held.set(l.group, { epoch: l.epoch, from, sendsUntil: l.sendsUntil });
        this.loading.add(l.group);
        scheduler.continueGroup(l.group, {
          pace: paceOf(l.clock),
          backoffUntil: l.clock.backoffUntil,
          crawlDelayMs: l.clock.crawlDelayMs,
        });
        scheduler.setStartWindow(l.group, from, l.startsUntil);
        taken.push({ group: l.group, epoch: l.epoch });
      } else {
        h.sendsUntil = l.sendsUntil;
        scheduler.setStartWindow(l.group, h.from, l.startsUntil);
      }
    }
    return taken;
  }

  /**
   * The hosts of a group taken were read: `origins`, with their queued URLs (a superset in 'domain' mode: only
   * those of the group count). Each is seen (its robots.txt known or asked for) and its queue read from its start.
   * `recorded`: the Crawl-delays any node recorded for those origins and the time they were read; one longer than
   * the lease handed on holds the group (Scheduler.holdForCrawlDelay). False, and nothing done, if the lease is no
   * longer held at that epoch.
   */
  loaded(
    lease: GroupLeaseRef,
    origins: ReadonlyArray<{ origin: string; n: number }>,
    recorded: { crawlDelays: ReadonlyMap<string, number>; now: number } = { crawlDelays: new Map(), now: 0 },
  ): boolean {
    if (!this.heldAt(lease)) return false;
    this.loading.delete(lease.group);
    const { scheduler, window, hosts } = this.parts;
    const known = new Set(scheduler.hostsOf(lease.group));
    let crawlDelay = 0;
    for (const { origin } of origins) {
      if (scheduler.groupOf(origin) === lease.group)
        crawlDelay = Math.max(crawlDelay, recorded.crawlDelays.get(origin) ?? 0);
    }
    const handedOn = scheduler.groupHandover(lease.group).crawlDelayMs ?? 0;
    if (crawlDelay > handedOn) {
      // A Crawl-delay recorded for its hosts that the lease row did not carry (a holder killed before releasing).
      const h = this.held.get(lease.group)!;
      h.from = Math.max(h.from, recorded.now + crawlDelay);
      scheduler.holdForCrawlDelay(lease.group, crawlDelay, h.from);
    }
    for (const { origin, n } of origins) {
      if (scheduler.groupOf(origin) !== lease.group) continue;
      known.delete(origin);
      hosts.see(origin);
      window.acquire(origin, n);
    }
    for (const origin of known) window.acquire(origin, 0); // nothing queued now: read anyway, from its start
    return true;
  }

  /** What the loop is told of `group` before it plans: a request running (or writes pending), work left, its clock. */
  facts(group: string): GroupFacts {
    const { scheduler, window } = this.parts;
    const g = scheduler.groupHandover(group);
    // Its hosts' waiting URLs are counted only if it has none queued: the lease loop asks this of every held group
    // before each plan (a list of its hosts per group, 10,000 a second, for an answer the queue already gave).
    const hasWork =
      g.queued > 0 || this.loading.has(group) || scheduler.hostsOf(group).some((origin) => window.waiting(origin) > 0);
    return {
      inFlight: g.inFlight > 0 || this.parts.unsettled(group) > 0,
      hasWork,
      clock: {
        nextStartAt: g.nextStartAt,
        gapMs: g.gapMs,
        crawlDelayMs: g.crawlDelayMs,
        backoffUntil: g.backoffUntil,
        backoffMs: 0,
        backoffReason: g.backoffUntil === null ? null : 'backoff',
        pace: { responseMs: g.pace.responseMs ?? null, slowdown: g.pace.slowdown, strained: g.pace.strained },
      },
    };
  }

  /** The groups held now. */
  groups(): string[] {
    return [...this.held.keys()];
  }
}

/** A stored pace as the scheduler keeps it (no answer yet: undefined). */
function paceOf(clock: LocalGroupClock) {
  return {
    responseMs: clock.pace.responseMs ?? undefined,
    slowdown: clock.pace.slowdown,
    strained: clock.pace.strained,
  };
}
