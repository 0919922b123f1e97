/**
 * The scheduler's side of the frontier's windows (frontier-window.ts): how a host's page jobs enter the
 * scheduler's queue and leave it, and how the host's cursor moves with them (placed at or before it, trimmed
 * back before what a full window lets go, rewound to the queue's start). Apart from the FrontierWindow, which
 * decides when hosts are read and what waits for a commit, because these are the steps that keep its rule
 * (every queued row at or before the cursor is an entry, taken, or of a removed seed) one entry at a time.
 * No storage and no time: only the scheduler, the host windows and the removed seeds' ledger are touched.
 */
import type { FrontierRow } from '../../db/frontier.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { afterCursor, type HostWindow, pageJob, START_AT } from './host-window.ts';
import type { HostWindows } from './host-windows.ts';
import type { RemovedSeedLedger } from './removed-seed-ledger.ts';
import type { WindowSizes } from './window-sizes.ts';

/** What WindowEntries acts on, shared with its FrontierWindow. */
export interface WindowEntriesParts {
  /** The scheduler whose queues hold the windows' entries. */
  scheduler: Pick<Scheduler<CrawlJob>, 'add' | 'remove'>;
  sizes: WindowSizes;
  /** The hosts' windows and their shares (host-windows.ts). */
  hosts: HostWindows;
  /** The removed seeds' hosts and the pass-over budget (removed-seed-ledger.ts). */
  removed: RemovedSeedLedger;
  /** Whether a seed is known and not removed. */
  isLive(seedId: number): boolean;
  /** Whether the host's group is held by this node (FrontierWindowParts.isHeld). */
  isHeld(origin: string): boolean;
}

/** The windows' entries in the scheduler and the cursors that go with them (see the module comment). */
export class WindowEntries {
  /** Hosts whose window holds more than `size` entries: trimmed by `trimOverflowing`. */
  private readonly overflowing = new Set<HostWindow>();

  constructor(private readonly parts: WindowEntriesParts) {}

  /** Whether a window overflows (the next commit trims it). */
  get overflows(): boolean {
    return this.overflowing.size > 0;
  }

  /** Places a committed queued row: an entry at or before the cursor, or after it when the window holds the whole queue and has room. */
  place(h: HostWindow, at: number, id: number, job: () => CrawlJob): void {
    if (!this.parts.isHeld(h.origin)) {
      h.more = true; // its node reads it
      return;
    }
    if (!afterCursor(h, at, id)) {
      this.enter(h, at, id, job());
    } else if (!h.more && h.entries.size < this.parts.hosts.cap()) {
      this.enter(h, at, id, job());
      h.tailAt = at;
      h.tailId = id;
    } else {
      h.more = true;
    }
  }

  /** Enters a page job in the host's window and the scheduler's queue (an overflowing window is trimmed later). */
  enter(h: HostWindow, at: number, id: number, job: CrawlJob): void {
    h.entries.set(id, at);
    this.parts.removed.entered(job.seedId, h);
    this.parts.scheduler.add(h.origin, job);
    if (h.entries.size > this.parts.sizes.size) this.overflowing.add(h);
  }

  /** A row read on the host's cursor: entered (true), or passed over if its seed was removed (false). */
  enterRow(h: HostWindow, row: FrontierRow): boolean {
    if (!this.parts.isHeld(h.origin)) return true; // lost during the read: `acquire` reads it from its start again
    if (!this.parts.isLive(row.seedId)) {
      this.parts.removed.passOver(row.seedId, h);
      return false;
    }
    this.enter(h, row.nextAttemptAt, row.id, pageJob(row, h.origin));
    return true;
  }

  /** Takes the host's entries of seed `seedId` out of the scheduler's queue; whether there were any. */
  evictSeed(h: HostWindow, seedId: number): boolean {
    const gone = this.parts.scheduler.remove(h.origin, (job) => job.kind === 'page' && job.seedId === seedId);
    if (gone.length === 0) return false;
    for (const job of gone) h.entries.delete(job.frontierId);
    return true;
  }

  /** Takes the given entries out of the scheduler's queue. */
  evict(h: HostWindow, ids: ReadonlySet<number>): void {
    if (ids.size === 0) return;
    this.parts.scheduler.remove(h.origin, (job) => job.kind === 'page' && ids.has(job.frontierId));
    for (const id of ids) h.entries.delete(id);
  }

  /** Trims every overflowing window back to `size` entries (see trim). */
  trimOverflowing(): void {
    for (const h of this.overflowing) this.trim(h);
    this.overflowing.clear();
  }

  /** Moves the host's cursor back to the start of its queue (its entries go back to the database), to be read again. */
  rewind(h: HostWindow): void {
    this.evict(h, new Set(h.entries.keys()));
    h.tailAt = START_AT;
    h.tailId = 0;
    h.more = true;
  }

  /** Rewinds the host and forgets that its window overflowed (its group is no longer held here, or was just taken). */
  forget(h: HostWindow): void {
    this.rewind(h);
    this.overflowing.delete(h);
  }

  /** Keeps the `size` first entries in queue order; the cursor moves back before the others, which wait in the database. */
  private trim(h: HostWindow): void {
    const size = this.parts.sizes.size;
    if (h.entries.size <= size) return;
    const sorted = [...h.entries].sort(([ia, a], [ib, b]) => a - b || ia - ib);
    const [lastId, lastAt] = sorted[size - 1];
    this.evict(h, new Set(sorted.slice(size).map(([id]) => id)));
    h.tailAt = lastAt;
    h.tailId = lastId;
    h.more = true;
  }
}
