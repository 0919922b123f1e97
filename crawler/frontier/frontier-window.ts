/**
 * The frontier's window: the frontier lives in storage, and the crawler primary's scheduler holds only the
 * next few page jobs of each host (WINDOW.size); as a host's window runs low, the next rows are read in
 * the host's queue order (db/frontier.ts queuedAfter: due at once first, in the order they were found,
 * then retries by next_attempt_at). So the primary's memory follows the number of hosts and of jobs in
 * flight, not the number of queued URLs, and a restart reads each host's first window, not the frontier.
 *
 * Per host it keeps the entries (its page jobs in the scheduler's queue), a cursor (the queue position up
 * to which rows were read), whether queued rows may follow the cursor (`more`), and how many of the
 * host's URLs wait (Domains' count: the database's, not the window's). Every method keeps this rule:
 *
 *   every row of the host that is queued in the database at or before the cursor is an entry, or was
 *   taken since the last commit (handed out, or skipped with its write pending), or is of a removed seed.
 *
 * Rows become queued in two ways, and each keeps the rule its own way. A row already committed (a new URL
 * after the flush that stored it, a seed's URL queued again) `arrived`: at or before the cursor it
 * becomes an entry; after it, an entry only if the window holds the whole queue and has room, else it
 * waits in the database (`more`). A job going back to its queue (`retry`, after a failure or a worker's
 * death) is written with the next batch: at or before the cursor it becomes an entry at once (so a retry
 * is never lost to a refill that read past it while its write was pending), else it is placed once its
 * batch committed (`committed`).
 *
 * The windows' total is bounded too: each host's window is filled to its share of WINDOW.total among the
 * hosts with URLs waiting (host-windows.ts).
 *
 * A window may overflow (entries that had to be entered before the cursor); `committed` trims it back,
 * moving the cursor before what it let go (window-entries.ts moves entries and cursors together). Rows of
 * removed seeds are not entered; which hosts passed them over, and how many one step may pass over, is kept
 * in removed-seed-ledger.ts. A read that passed rows over makes the next one of the same fill twice as long
 * (a host of 100 removed rows is crossed in a few seeks, not 25). Only the database and the scheduler are
 * touched; time plays no part.
 *
 * Storage is read only in `load` (at start) and `committed` (after each batch), both awaited by their
 * caller; a host that needs rows at another moment (its request ended with its window empty: `readyAgain`)
 * is marked and read first by the next `committed`, so no read happens within a dispatch or a result.
 * The hosts either reads are read together, in rounds of one storage read each (window-fill.ts): a
 * flush's refills are a round trip or two on PostgreSQL, not one per host.
 */
import type { DroppedUrl, FrontierRow } from '../../db/frontier.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { WINDOW, type WindowSizes } from './window-sizes.ts';
import { afterCursor, type HostWindow, pageJob } from './host-window.ts';
import { HostWindows } from './host-windows.ts';
import { RemovedSeedLedger } from './removed-seed-ledger.ts';
import type { WindowSource } from './store-window-source.ts';
import { WindowEntries } from './window-entries.ts';
import { fillRounds, hostFill } from './window-fill.ts';

export { WINDOW, type WindowSizes } from './window-sizes.ts';
export { pageJob } from './host-window.ts';

/** What a FrontierWindow is given. */
export interface FrontierWindowParts {
  scheduler: Pick<Scheduler<CrawlJob>, 'add' | 'remove'>;
  source: WindowSource;
  /** Whether the seed is known and not removed: rows of other seeds are never entered. */
  isLive(seedId: number): boolean;
  /** The sizes; WINDOW's by default (tests use small ones). */
  sizes?: Partial<WindowSizes>;
  /**
   * Whether this node may crawl the host now (its politeness group's lease is held, issue 29); default: every
   * host. A host not held gets no entries: its rows wait in the database for the node that holds it.
   */
  isHeld?(origin: string): boolean;
}

/** The per-host windows over the frontier (see the module comment). */
export class FrontierWindow {
  private readonly sizes: WindowSizes;
  /** The hosts' windows and their shares (host-windows.ts). */
  private readonly hosts: HostWindows;
  /** Hosts below `low` with rows to read: refilled by `committed`. */
  private readonly hungry = new Set<HostWindow>();
  /** Hosts that may be due again with fewer than `syncBelow` entries: refilled first by the next `committed`. */
  private readonly starving = new Set<HostWindow>();
  private readonly withRetries = new Set<HostWindow>();
  /** The removed seeds' hosts and the pass-over budget (removed-seed-ledger.ts). */
  private readonly removed: RemovedSeedLedger;
  /** The entries in the scheduler and the cursors that go with them (window-entries.ts). */
  private readonly entries: WindowEntries;
  private loaded = false;

  /** Where the hosts' queues are read (db/frontier.ts). */
  private readonly source: WindowSource;
  /** Whether the host's group is held by this node (FrontierWindowParts.isHeld). */
  private readonly isHeld: (origin: string) => boolean;

  constructor(parts: FrontierWindowParts) {
    this.source = parts.source;
    this.isHeld = parts.isHeld ?? (() => true);
    this.sizes = { ...WINDOW, ...parts.sizes };
    this.hosts = new HostWindows(this.sizes);
    this.removed = new RemovedSeedLedger(this.sizes.passOverPerStep);
    const { scheduler, isLive } = parts;
    const { sizes, hosts, removed, isHeld } = this;
    this.entries = new WindowEntries({ scheduler, sizes, hosts, removed, isLive, isHeld });
  }

  /**
   * At start (leases returned, seeds known), given each host's count of queued rows: each host with
   * queued rows gets its count, the first `startHosts` their window (the flushes that follow read the
   * others'). Rows that arrived since the counts were taken (a new seed's) are in the database and
   * counted by `arrived`, so this reads them too.
   */
  async load(queued: ReadonlyArray<{ origin: string; n: number }>): Promise<void> {
    for (const { origin, n } of queued) {
      if (n === 0) continue;
      const h = this.hosts.of(origin);
      this.hosts.setWaiting(h, h.waiting + n);
    }
    for (const h of this.hosts.values()) {
      h.more = h.waiting > 0;
      if (h.more && this.isHeld(h.origin)) this.hungry.add(h);
    }
    this.loaded = true; // rows committed while the first windows are read are counted and placed (see arrived)
    await this.source.read(() => this.fill([], this.firstHungry(this.sizes.startHosts, new Set())));
  }

  /** A row committed as queued (a new URL, a URL queued again): an entry, or it waits beyond the cursor. */
  arrived(row: FrontierRow): void {
    const h = this.hosts.of(row.origin);
    this.hosts.setWaiting(h, h.waiting + 1);
    if (this.loaded) this.entries.place(h, row.nextAttemptAt, row.id, () => pageJob(row, h.origin));
  }

  /**
   * A page job of the host's queue, written back to the queue with the next batch (a retry, a request
   * whose worker died): an entry at once if it comes at or before the cursor, else placed after the commit.
   */
  retry(origin: string, job: CrawlJob): void {
    const h = this.hosts.of(origin);
    this.hosts.setWaiting(h, h.waiting + 1);
    if (!afterCursor(h, job.notBefore, job.frontierId) || (!h.more && h.entries.size < this.cap())) {
      this.entries.place(h, job.notBefore, job.frontierId, () => job);
      return;
    }
    h.retries.push(job);
    this.withRetries.add(h);
  }

  /**
   * The scheduler handed out a page job of the host: handed to a worker or skipped (`live`), or dropped
   * because its seed was removed (counted when its row is deleted). A window left below `low` reads on
   * after the next flush, the first among those when the host may be due again with fewer than
   * `syncBelow` entries (see readyAgain): never within the dispatch.
   */
  taken(origin: string, job: CrawlJob, live: boolean): void {
    const h = this.hosts.of(origin);
    h.entries.delete(job.frontierId);
    if (live) this.hosts.setWaiting(h, h.waiting - 1);
    else this.removed.passOver(job.seedId, h); // counted as passed over too
    if (h.more && h.entries.size < this.hosts.low()) this.hungry.add(h);
  }

  /**
   * The host may be due again (its request ended, or the job taken was not sent): a window left with
   * fewer than `syncBelow` entries is read first by the next `committed` (its caller asks for a flush:
   * `needsFlush`), so its next job waits one flush at most; a host with entries left loses nothing.
   */
  readyAgain(origin: string): void {
    const h = this.hosts.get(origin);
    if (h !== undefined && !this.isHeld(origin)) return;
    if (h?.more && h.entries.size < this.sizes.syncBelow) this.starving.add(h);
  }

  /** A job taken a moment ago goes back unchanged (it was not handed out after all: its row is still queued). */
  putBack(origin: string, job: CrawlJob): void {
    const h = this.hosts.of(origin);
    this.hosts.setWaiting(h, h.waiting + 1);
    this.entries.enter(h, job.notBefore, job.frontierId, job);
  }

  /**
   * A job of a removed seed whose worker died: its row goes back to the queue (the caller writes it) and
   * is passed over, to be read again only if its seed comes back.
   */
  droppedInFlight(origin: string, job: CrawlJob): void {
    this.removed.passOver(job.seedId, this.hosts.of(origin));
  }

  /**
   * Seed `seedId` was removed (no longer live): its page jobs leave the scheduler now, passed over, and the
   * hosts left short read on with the flushes' refills (at most passOverPerStep removed rows a flush). So
   * no dispatch meets them: dropped there one by one, a host's empty window read on at once, the removed
   * hosts (due since long, first in line) held every other host's dispatch while they were crossed
   * (measured: a dispatch call of 1.4 s with 100,000 removed URLs on 1,000 hosts, `npm run bench:frontier`).
   */
  seedRemoved(seedId: number): void {
    for (const h of this.removed.takeHostsOf(seedId)) {
      if (h.entries.size === 0) continue;
      if (!this.entries.evictSeed(h, seedId)) continue;
      this.removed.passOver(seedId, h);
      if (h.more && h.entries.size < this.hosts.low()) this.hungry.add(h);
    }
  }

  /** Rows of removed seed `seedId` were deleted (by a batch that committed): their entries leave, their count too. */
  deleted(seedId: number, rows: readonly DroppedUrl[]): void {
    this.removed.deleted(seedId, rows, (origin) => this.hosts.get(origin));
  }

  /** A removed seed came back before its rows were all deleted: hosts that passed its rows over read again. */
  revived(seedId: number): void {
    this.removed.revived(seedId);
  }

  /**
   * A removed seed's rows are all deleted (by a batch that committed): nothing of it is left to read again,
   * and the hosts it had rows on take their count from the database (exact whatever raced with the removal).
   */
  forgetSeed(seedId: number): void {
    this.removed.forget(seedId);
  }

  /** Starts counting the rows and jobs of removed seeds passed over (by one dispatch call, say). */
  resetPassedOver(): void {
    this.removed.resetPassedOver();
  }

  /**
   * Whether WINDOW.passOverPerStep rows and jobs of removed seeds were passed over since `resetPassedOver`:
   * the caller yields rather than hold every other host's dispatch (the rest is passed over on its next turn).
   */
  get passOverSpent(): boolean {
    return this.removed.passOverSpent;
  }

  /** Whether `committed` has work even without writes to commit (refills, trims). */
  get needsFlush(): boolean {
    return (
      this.hungry.size + this.starving.size + this.withRetries.size > 0 ||
      this.entries.overflows ||
      this.removed.pending
    );
  }

  /**
   * After a batch committed (and its new and re-queued rows `arrived`): retries written by it are placed,
   * deleted rows leave, windows read again or trimmed, hosts that may be due with an empty window refilled
   * first, then hosts running low, in one read transaction.
   */
  async committed(): Promise<void> {
    for (const h of this.withRetries) {
      const jobs = h.retries;
      h.retries = [];
      for (const job of jobs) this.entries.place(h, job.notBefore, job.frontierId, () => job);
    }
    this.withRetries.clear();
    this.applyDeleted();
    const recounts = this.removed.takeRecounts();
    const rewinds = this.removed.takeRewinds();
    const starving = [...this.starving];
    this.starving.clear();
    const trim = () => this.entries.trimOverflowing();
    if (recounts.size + rewinds.size + starving.length + this.hungry.size === 0) return trim(); // nothing to read
    try {
      await this.read(recounts, rewinds, starving, trim);
    } catch (err) {
      for (const h of starving) this.starving.add(h); // read by the next flush, which the caller's retry makes
      throw err;
    }
  }

  /**
   * The reads of `committed`, in one read transaction: the hosts read again from their start and those that
   * may be due with no job first, whatever is passed over, with up to `perFlush` hungry hosts, all in the same
   * rounds (window-fill.ts).
   */
  private async read(
    recounts: ReadonlySet<HostWindow>,
    rewinds: ReadonlySet<HostWindow>,
    starving: readonly HostWindow[],
    trim: () => void,
  ): Promise<void> {
    await this.source.read(async () => {
      for (const h of recounts) {
        this.hosts.setWaiting(h, (await this.source.queuedCount(h.origin)) + h.retries.length);
      }
      for (const h of rewinds) this.entries.rewind(h);
      trim();
      const urgent = new Set(rewinds);
      for (const h of starving) if (h.more && h.entries.size < this.sizes.syncBelow) urgent.add(h);
      await this.fill([...urgent], this.firstHungry(this.sizes.perFlush, urgent));
    });
  }

  /** The first `n` hungry hosts (longest hungry first), leaving out `taken`. */
  private firstHungry(n: number, taken: ReadonlySet<HostWindow>): HostWindow[] {
    const out: HostWindow[] = [];
    for (const h of this.hungry) {
      if (out.length >= n) break;
      if (!this.isHeld(h.origin)) this.hungry.delete(h);
      else if (!taken.has(h)) out.push(h);
    }
    return out;
  }

  /** The host's URLs waiting to be handed out (queued in the database, or retries about to be). */
  waiting(origin: string): number {
    return this.hosts.get(origin)?.waiting ?? 0;
  }

  /** Of those, how many are not in the scheduler (beyond the window, or retries not yet placed). */
  beyond(origin: string): number {
    const h = this.hosts.get(origin);
    return h === undefined ? 0 : h.waiting - h.entries.size;
  }

  /** Page jobs in memory over all hosts (for the benchmark). */
  entryCount(): number {
    let n = 0;
    for (const h of this.hosts.values()) n += h.entries.size;
    return n;
  }

  /** How many jobs a host's window is filled to now (window-sizes.ts windowCap). */
  cap(): number {
    return this.hosts.cap();
  }

  /**
   * The host's group is no longer held here (its lease was lost or released): its entries leave the scheduler,
   * its retries are left to their batch, and its queue is read from its start should the group come back.
   */
  release(origin: string): void {
    const h = this.hosts.get(origin);
    if (h === undefined) return;
    this.forgetReads(h);
    this.hungry.delete(h);
  }

  /**
   * The host's group was taken by this node, with `queued` rows waiting in the database (some maybe queued by
   * other nodes): its queue is read from its start by the next `committed`, first among the reads.
   */
  acquire(origin: string, queued: number): void {
    const h = this.hosts.of(origin);
    this.forgetReads(h);
    this.hosts.setWaiting(h, queued);
    this.starving.add(h);
  }

  /** Evicts the host's entries and retries and moves its cursor to its queue's start, out of every set but `hungry`. */
  private forgetReads(h: HostWindow): void {
    this.entries.forget(h);
    h.retries = [];
    this.starving.delete(h);
    this.withRetries.delete(h);
  }

  /**
   * Reads the queues of the `urgent` hosts and of the `others` on from their cursors, all of them in one read
   * per round (window-fill.ts planRound), until each window is full, its queue read, or its read budget spent.
   * The urgent ones are read whatever is passed over; the others while the step may pass over removed rows
   * (passOverPerStep, counted from here). A host that passed rows of removed seeds over reads twice as far
   * the next round (within its budget); rows read past a full window are left beyond the cursor.
   */
  private async fill(urgent: readonly HostWindow[], others: readonly HostWindow[]): Promise<void> {
    this.resetPassedOver();
    const budget = this.sizes.readBudget;
    await fillRounds(
      [...urgent.map((h) => hostFill(h, budget, true)), ...others.map((h) => hostFill(h, budget, false))],
      this.cap(),
      {
        passOverLeft: () => this.removed.passOverLeft,
        read: (reads) => this.source.queuedAfterMany(reads),
        enter: (h, row) => this.entries.enterRow(h, row),
        done: (h) => this.filled(h),
      },
    );
  }

  /** The host's fill is over: out of the hungry set, and back at its end if still hungry (its budget spent on a removed seed's rows). */
  private filled(h: HostWindow): void {
    this.hungry.delete(h);
    if (h.more && h.entries.size < this.hosts.low() && this.isHeld(h.origin)) this.hungry.add(h);
  }

  /** Deleted rows leave (removed-seed-ledger.ts takeDeleted): an entry is taken out, and a row still waiting leaves the count. */
  private applyDeleted(): void {
    const { leaving, entries } = this.removed.takeDeleted((origin) => this.hosts.get(origin));
    for (const [h, n] of leaving) this.hosts.setWaiting(h, h.waiting - n);
    for (const [h, ids] of entries) {
      this.entries.evict(h, ids);
      if (h.more && h.entries.size < this.hosts.low()) this.hungry.add(h);
    }
  }
}
