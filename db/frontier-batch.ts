/**
 * The frontier's set-based batch methods on SQLite (addUrls, knownUrls, touchUrls), as PostgreSQL's
 * (db/pg/pg-frontier.ts) answer them: here each is db/frontier.ts's one-URL method in a loop, which is
 * cheap in-process and is, by construction, the meaning the PostgreSQL statements must match.
 */
import type { Database } from 'better-sqlite3';
import { frontierQueries, type FrontierRow } from './frontier.ts';

/** The batch methods on one SQLite connection (see the module comment). */
export function frontierBatchQueries(db: Database) {
  const frontier = frontierQueries(db);
  const known = db.prepare<[string], number>('SELECT 1 FROM frontier WHERE url = ?').pluck();
  return {
    /** addUrl for each URL in order: the rows of those it inserted; a known one (or one given twice) gains an inlink. */
    addUrls(
      urls: ReadonlyArray<{ url: string; origin: string; seedId: number; depth: number; redirects: number }>,
      now: number,
    ): FrontierRow[] {
      const added: FrontierRow[] = [];
      for (const u of urls) {
        const row = frontier.addUrl(u, now);
        if (row !== undefined) added.push(row);
      }
      return added;
    },
    /** The URLs of `urls` the frontier holds, each once, in the order given. */
    knownUrls(urls: readonly string[]): string[] {
      return [...new Set(urls)].filter((u) => known.get(u) !== undefined);
    },
    /** touchUrl for each URL: each known one gains an inlink per occurrence. */
    touchUrls(urls: readonly string[]): void {
      for (const u of urls) frontier.touchUrl(u);
    },
  };
}
