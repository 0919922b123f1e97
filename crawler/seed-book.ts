import type { Scope } from '../db/seeds.ts';
import type { SeedScope } from './admission.ts';

/** A seed as the crawler primary keeps it in memory. */
export interface SeedInfo extends SeedScope { id: number; url: string; origin: string; scope: Scope; updatedAt: number }

/** A seed row as the seeds table gives it (db/seeds.ts `seedsChangedSince`). */
type SeedChange = Pick<SeedInfo, 'id' | 'url' | 'origin' | 'depth' | 'scope' | 'updatedAt'>;

/**
 * The seeds the crawler knows, and its cursor over the seeds table (the server writes seeds, the
 * primary reads what changed since its cursor). Pure: the caller reads the rows.
 */
export class SeedBook {
  private readonly seeds = new Map<number, SeedInfo>();
  /** The highest `updatedAt` taken in: rows changed at or after it are read again. */
  cursor = 0;

  /**
   * Takes in changed seed rows; returns the seeds new or changed since they were taken in (a row read
   * again at the cursor with the same `updatedAt` is not).
   */
  apply(rows: readonly SeedChange[]): SeedInfo[] {
    const changed: SeedInfo[] = [];
    for (const r of rows) {
      this.cursor = Math.max(this.cursor, r.updatedAt);
      if (this.seeds.get(r.id)?.updatedAt === r.updatedAt) continue;
      const seed: SeedInfo = { id: r.id, url: r.url, origin: r.origin, depth: r.depth, scope: r.scope, updatedAt: r.updatedAt };
      this.seeds.set(r.id, seed);
      changed.push(seed);
    }
    return changed;
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
