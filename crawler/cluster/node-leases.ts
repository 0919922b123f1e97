/**
 * Wiring: makes a crawler primary on PostgreSQL a lease-holding crawler node (issue 29, docs/scaling.md "Many
 * crawler nodes"). It runs the node's LeaseLoop (lease-loop.ts) on the storage's pool with the monotonic clock the
 * Coordinator uses, and connects it to the Coordinator's GroupLeases (crawler/coordination/group-leases.ts):
 *  - before each plan, every held group's facts (request in flight or writes pending, work left, clock) are noted;
 *  - after every change, the held leases and their start limits go to the scheduler (a group lost or being
 *    released drops its queued jobs at once), and a group newly taken is loaded: the URLs its previous owner left
 *    leased go back to the queue, and its hosts' queues are read from their start by the next batch;
 *  - work noted for groups this node does not hold (URLs it admitted) wakes a round, so that a lone node takes
 *    its new groups at once rather than at the next survey.
 * `stop` leaves cleanly: the groups are released with their clocks, so another node continues them at once.
 */
import type pg from 'pg';
import type { Config } from '../../shared/config.ts';
import type { CrawlLeaseStore, GroupLeaseRef } from '../../db/crawl-store.ts';
import type { GroupLeases } from '../coordination/group-leases.ts';
import { leaveCleanly } from '../../db/pg/pg-leases.ts';
import { LeaseLoop } from './lease-loop.ts';
import { LEASE } from './lease-rules.ts';

/** The leases a take asks for at most in one statement. */
export const MAX_TAKE = 50;

/** A load of a taken group that failed is tried again after this long (while the lease holds). */
const LOAD_RETRY_MS = 1000;

/** What a NodeLeases is given. */
export interface NodeLeasesParts {
  /** The crawl storage's pool (db/engine.ts CrawlStorage.pool). */
  pool: pg.Pool;
  /** The crawl store's lease queries on that pool (CrawlStore.leases). */
  store: CrawlLeaseStore;
  node: string;
  config: Pick<Config, 'crawlLeaseMs' | 'crawlLeaseMarginMs' | 'crawlTimeoutMs' | 'crawlPolitenessGroup'>;
  /** The Coordinator's groups (Coordinator.leases). */
  leases: GroupLeases;
  /** The Coordinator's clock (monotonic, ms). */
  clock: () => number;
  log: (line: string) => void;
  /** The held groups or their limits changed, or a taken group was loaded: hand out work (CrawlPrimary.pump). */
  changed: () => void;
}

/** A crawler node's leases (see the module comment). */
export class NodeLeases {
  readonly loop: LeaseLoop;
  /** Groups whose work this node noted and asked a round for, not held since. */
  private readonly asked = new Set<string>();
  private stopped = false;

  constructor(private readonly parts: NodeLeasesParts) {
    const { config, leases } = parts;
    this.loop = new LeaseLoop({
      db: parts.pool,
      node: parts.node,
      settings: {
        timing: {
          leaseMs: config.crawlLeaseMs,
          marginMs: config.crawlLeaseMarginMs,
          renewFraction: LEASE.renewFraction,
        },
        requestTimeoutMs: config.crawlTimeoutMs,
        maxTake: MAX_TAKE,
      },
      now: parts.clock,
      onFault: (err) => parts.log(`crawler: lease ${err.message}`),
      beforePlan: () => {
        for (const group of leases.groups()) this.loop.note(group, leases.facts(group));
      },
      originsOf: (group) => parts.leases.hostsOf(group),
      groupWork: { mode: config.crawlPolitenessGroup, groupOf: (origin) => parts.leases.groupOfOrigin(origin) },
    });
    this.loop.onLeases((windows) => {
      const taken = leases.apply(windows);
      for (const l of taken) this.asked.delete(l.group);
      if (taken.length > 0) void this.load(taken);
      parts.changed();
    });
  }

  /**
   * Frees what `previous` (the node that ran on this DATA_DIR before, now dead: node-file.ts) and this node's own id
   * left held (each group due a gap from now, as a clean leave), then registers the node and runs its first round.
   */
  async start(previous: string | null): Promise<void> {
    for (const node of new Set([previous ?? this.parts.node, this.parts.node])) {
      const freed = await leaveCleanly(this.parts.pool, node);
      if (freed > 0) this.parts.log(`crawler: freed ${freed} group(s) node ${node} held before this start`);
    }
    await this.loop.start();
  }

  /** Groups with work were noted (URLs this node admitted): a round soon if it does not hold some of them. */
  workNoted(groups: readonly string[]): void {
    let fresh = false;
    for (const g of groups) {
      if (this.parts.leases.holds(g) || this.asked.has(g)) continue;
      this.asked.add(g);
      fresh = true;
    }
    if (fresh) this.loop.wake();
  }

  /** Leaves cleanly (see LeaseLoop.stop): call it after the last batch, before the pool ends. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop.stop();
  }

  /**
   * Loads groups just taken: the URLs left leased on their hosts go back to the queue (their previous owner's
   * requests are over: lease-rules.ts), then their hosts' queues are read from their start by the next batch.
   */
  private async load(taken: readonly GroupLeaseRef[]): Promise<void> {
    const { store, leases, config } = this.parts;
    try {
      const found = await store.originsOf(
        taken.map((l) => l.group),
        config.crawlPolitenessGroup,
      );
      const still = taken.filter((l) => leases.heldAt(l));
      const mine = found.filter((o) => still.some((l) => leases.groupOfOrigin(o.origin) === l.group));
      const leased = mine.filter((o) => o.leased > 0).map((o) => o.origin);
      if (leased.length > 0) await store.returnLeasesOf(leased);
      const crawlDelays = await store.crawlDelaysOf(mine.map((o) => o.origin));
      const now = this.parts.clock();
      for (const l of still) {
        const origins = mine
          .filter((o) => leases.groupOfOrigin(o.origin) === l.group)
          .map((o) => ({ origin: o.origin, n: o.queued + o.leased }));
        leases.loaded(l, origins, { crawlDelays, now });
      }
      this.parts.changed();
    } catch (err) {
      this.parts.log(
        `crawler: lease could not read the hosts of ${taken.length} group(s) it took (${(err as Error).message}); trying again in ${LOAD_RETRY_MS} ms`,
      );
      if (this.stopped) return;
      setTimeout(() => {
        const still = taken.filter((l) => leases.heldAt(l));
        if (still.length > 0 && !this.stopped) void this.load(still);
      }, LOAD_RETRY_MS);
    }
  }
}
