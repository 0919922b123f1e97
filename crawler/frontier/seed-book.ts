import type { SeedChange } from '../../db/seeds.ts';
import type { Scope } from '../../shared/enumerations.ts';
import type { SeedScope } from './admission.ts';

/** A seed as the crawler primary keeps it in memory. */
export interface SeedInfo extends SeedScope {
  id: number;
  url: string;
  origin: string;
  scope: Scope;
  updatedAt: number;
}

/**
 * The seeds the crawler knows, and its cursor over the seeds table (the server writes seeds, the
 * primary reads what changed since its cursor), and the removed seeds whose URLs are still being deleted.
 * Pure: the caller reads the rows.
 */
export class SeedBook {
  private readonly seeds = new Map<number, SeedInfo>();
  /** Removed seeds whose URLs are still being deleted (seed-writes.ts), until that is done or they come back. */
  private readonly removing = new Set<number>();
  /** The highest `updatedAt` taken in: rows changed at or after it are read again. */
  cursor = 0;

  /**
   * Takes in changed seed rows; returns the seeds new or changed since they were taken in (a row read
   * again at the cursor with the same `updatedAt` is not), and the seeds the person removed (forgotten
   * here at once, so that their jobs and results are dropped from now on; a removed row is reported
   * each time it is read, until the crawler deletes it, and undoing its work is idempotent). A removed seed
   * counts as being removed (`isRemoving`) until `forgetRemoved` or `revive`.
   */
  apply(rows: readonly SeedChange[]): { changed: SeedInfo[]; removed: SeedInfo[] } {
    const changed: SeedInfo[] = [];
    const removed: SeedInfo[] = [];
    for (const r of rows) {
      this.cursor = Math.max(this.cursor, r.updatedAt);
      const known = this.seeds.get(r.id);
      const seed: SeedInfo = {
        id: r.id,
        url: r.url,
        origin: r.origin,
        depth: r.depth,
        scope: r.scope,
        updatedAt: r.updatedAt,
      };
      if (r.removedAt !== null) {
        this.seeds.delete(r.id);
        this.removing.add(r.id);
        removed.push(known ?? seed);
        continue;
      }
      if (known?.updatedAt === r.updatedAt) continue;
      this.seeds.set(r.id, seed);
      changed.push(seed);
    }
    return { changed, removed };
  }

  /** Whether the seed was removed and its URLs are still being deleted (a seed back meanwhile takes them as its own). */
  isRemoving(id: number): boolean {
    return this.removing.has(id);
  }

  /** A removed seed came back (its revival committed): its URLs being deleted are its own again; false if it was not being removed. */
  revive(id: number): boolean {
    return this.removing.delete(id);
  }

  /** The batch that deleted a removed seed's last URLs committed: nothing of it is left to delete. */
  forgetRemoved(id: number): void {
    this.removing.delete(id);
  }

  /** The seed with this id, if known. */
  get(id: number): SeedInfo | undefined {
    return this.seeds.get(id);
  }

  /** The seed on `origin` that reaches deepest (the one whose links a host's sitemaps count as), if any. */
  deepestOn(origin: string): SeedInfo | undefined {
    let best: SeedInfo | undefined;
    for (const s of this.seeds.values()) if (s.origin === origin && (!best || s.depth > best.depth)) best = s;
    return best;
  }
}
