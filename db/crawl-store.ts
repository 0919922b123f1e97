/**
 * The crawler primary's storage, as one port: the query modules its decisions' writes run through, and the
 * transaction a batch of them is written in. The crawler's applier (crawler/coordination/intent-applier.ts)
 * talks to storage only through this interface, so a second engine (PostgreSQL) plugs in here; this is the
 * SQLite one. The SQL stays in the query modules it gathers.
 */
import type { Database } from 'better-sqlite3';
import { frontierQueries } from './frontier.ts';
import { hostQueries } from './hosts.ts';
import { crawlerStopQueries } from './crawler-stop.ts';
import { sitemapJobQueries } from './sitemap-jobs.ts';
import { pageQueries, type PageQueries } from './pages.ts';
import { linkTargetQueries } from './link-targets.ts';
import { seedQueries } from './seeds.ts';
import { seedHostQueries } from './seed-hosts.ts';
import { revisitQueries } from './revisits.ts';
import { searchIndexCompaction } from './search-compaction.ts';

/** The crawler primary's storage (see the module comment). */
export interface CrawlStore {
  /**
   * Runs `write` in one transaction (IMMEDIATE: a write may read first, and the server writes the same
   * file); the full-text entries and link targets of the pages it stored are written at its end, each
   * index's back to back (migration 0018). If it throws, nothing of it is stored, those gathered entries
   * included, and the error is thrown on.
   */
  transaction(write: () => void): void;
  /** Runs `read` in one read transaction (many small reads at once). */
  inOneRead(read: () => void): void;
  frontier: ReturnType<typeof frontierQueries>;
  /** Pages, with new pages' full-text entries deferred to the end of `transaction`. */
  pages: PageQueries;
  linkTargets: Pick<ReturnType<typeof linkTargetQueries>, 'gatherLinks'>;
  hosts: ReturnType<typeof hostQueries>;
  sitemapJobs: ReturnType<typeof sitemapJobQueries>;
  seeds: ReturnType<typeof seedQueries>;
  seedHosts: ReturnType<typeof seedHostQueries>;
  stops: ReturnType<typeof crawlerStopQueries>;
  /** Each fetched page's revisit state (its rule: crawler/frontier/revisit.ts), read and written inside `transaction`. */
  revisits: ReturnType<typeof revisitQueries>;
  /** One bounded step of merging removed pages' entries out of the full-text indexes; false once none are left. */
  compactSearchIndexStep(): boolean;
}

/** The crawler primary's storage on one SQLite connection (see CrawlStore). */
export function sqliteCrawlStore(db: Database): CrawlStore {
  const pages = pageQueries(db, { deferSearch: true });
  const linkTargets = linkTargetQueries(db);
  const batch = db.transaction((write: () => void) => {
    write();
    linkTargets.writeGathered(); // each link target of the batch once, in id order (see gatherLinks)
    pages.writeSearchEntries();
  });
  return {
    transaction(write) {
      try {
        batch.immediate(write);
      } catch (err) {
        // Rolled back: what was gathered for its end belongs to it (the batch gathers it again when it runs again).
        linkTargets.discardGathered();
        pages.discardSearchEntries();
        throw err;
      }
    },
    inOneRead: (read) => db.transaction(read)(),
    frontier: frontierQueries(db),
    pages,
    linkTargets,
    hosts: hostQueries(db),
    sitemapJobs: sitemapJobQueries(db),
    seeds: seedQueries(db),
    seedHosts: seedHostQueries(db),
    stops: crawlerStopQueries(db),
    revisits: revisitQueries(db),
    compactSearchIndexStep: searchIndexCompaction(db).compactSearchIndexStep,
  };
}
