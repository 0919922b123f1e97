/**
 * The leases a crawler node's writes are made under (PostgreSQL, issue 29, docs/scaling.md "The crawler node"):
 * a result's writes and a request's start carry the lease of the group the request was sent under; the batch that
 * writes them first asks the database which of those leases the node still holds (owner and epoch, locked until it
 * commits: db/pg/pg-group-work.ts stillHeld), and intent-applier.ts drops the writes of the others, never retried.
 * Per group it counts the fenced writes not yet committed (a group is not released with its result unwritten), and it
 * notes the groups of the URLs a batch queued as having work, in the batch's transaction. Without leases (SQLite)
 * nothing is tagged and every method is a no-op.
 */
import { type CrawlQueries, type GroupLeaseRef, leaseKey } from '../../db/crawl-store.ts';
import type { BatchEffects } from '../frontier/batch-effects.ts';
import type { WriteIntent } from './write-intents.ts';

/** How the applier fences a crawler node's writes by its leases (see IntentApplier.flush). */
export interface ApplierLeases {
  /** This node's id (group_leases.owner). */
  node: string;
  /** The lease a request to `origin` starts under now, undefined if its group is not held. */
  fenceOf(origin: string): GroupLeaseRef | undefined;
  /**
   * Until when, on the machine's monotonic clock (common/machine-clock.ts), a worker may write a request to `origin`
   * handed out now (FetchJob.sendBy), undefined if its group is not held.
   */
  sendBy(origin: string): number | undefined;
  /** The groups of these origins, each once. */
  groupsOf(origins: Iterable<string>): string[];
  /** Writes made under `lease` were dropped by a batch: the lease was lost (reported, never retried). */
  dropped(lease: GroupLeaseRef, writes: number): void;
  /** A committed batch noted these groups as having work (some maybe not held here: a node may take them). */
  noted(groups: readonly string[]): void;
}

/** A store for the leases was missing on a crawler node (a bug of the wiring: leases need PostgreSQL). */
export class WriteFenceError extends Error {
  override readonly name = 'WriteFenceError';
}

/** The fence of one node's writes (see the module comment). */
export class WriteFence {
  /** The lease each fenced write was made under. */
  private readonly fences = new WeakMap<WriteIntent, GroupLeaseRef>();
  /** Per group, its fenced writes queued and not yet committed (or dropped). */
  private readonly pendingByGroup = new Map<string, number>();

  constructor(private readonly leases: ApplierLeases | undefined) {}

  /** `w` was queued under `fence`. */
  tag(w: WriteIntent, fence: GroupLeaseRef): void {
    this.fences.set(w, fence);
    this.pendingByGroup.set(fence.group, (this.pendingByGroup.get(fence.group) ?? 0) + 1);
  }

  /** The lease `w` was queued under, if any. */
  of(w: WriteIntent): GroupLeaseRef | undefined {
    return this.fences.get(w);
  }

  /** Fenced writes of `group` queued and not yet committed. */
  unsettled(group: string): number {
    return this.pendingByGroup.get(group) ?? 0;
  }

  /**
   * In the batch's transaction: of the leases `writes` were made under, those this node no longer holds at their
   * epoch (by leaseKey); the others stay locked until the batch commits, so no other node takes them meanwhile.
   */
  async lost(tx: CrawlQueries, writes: readonly WriteIntent[]): Promise<Set<string>> {
    if (this.leases === undefined) return new Set();
    const refs = new Map<string, GroupLeaseRef>();
    for (const w of writes) {
      const fence = this.fences.get(w);
      if (fence !== undefined) refs.set(leaseKey(fence), fence);
    }
    if (refs.size === 0) return new Set();
    if (tx.leases === undefined)
      throw new WriteFenceError('write-fence: a crawler node holding leases needs a store with leases (PostgreSQL)');
    const held = await tx.leases.stillHeld(this.leases.node, [...refs.values()]);
    const lost = new Set<string>();
    for (const [key] of refs) if (!held.has(key)) lost.add(key);
    return lost;
  }

  /** In the batch's transaction: the groups of the URLs it queued are noted as having work (PostgreSQL). */
  async noteWork(tx: CrawlQueries, fx: BatchEffects): Promise<void> {
    if (this.leases === undefined || tx.leases === undefined || fx.queued.length === 0) return;
    await tx.leases.noteWork(this.leases.groupsOf(fx.queued.map((r) => r.origin)));
  }

  /** After the commit: the leases hear of the groups the batch noted as having work. */
  noted(fx: BatchEffects): void {
    if (this.leases !== undefined && fx.queued.length > 0)
      this.leases.noted(this.leases.groupsOf(fx.queued.map((r) => r.origin)));
  }

  /** The fenced writes of a committed batch are settled (written or dropped). */
  settled(writes: readonly WriteIntent[]): void {
    for (const w of writes) {
      const fence = this.fences.get(w);
      if (fence === undefined) continue;
      const n = (this.pendingByGroup.get(fence.group) ?? 0) - 1;
      if (n > 0) this.pendingByGroup.set(fence.group, n);
      else this.pendingByGroup.delete(fence.group);
    }
  }
}
