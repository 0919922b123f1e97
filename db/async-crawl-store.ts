/**
 * The crawler primary's storage as an asynchronous port, the shape both engines answer: db/crawl-store.ts's
 * modules with the same method names, arguments and results, each answering a Promise (a network engine
 * cannot answer at once), the frontier's set-based batch methods included (db/frontier.ts). PostgreSQL's
 * is db/pg/pg-crawl-store.ts; SQLite's, here, wraps the SQLite query modules, and is what the storage
 * contract (db/crawl-store-contract.ts) holds PostgreSQL's to.
 */
import type { Database } from 'better-sqlite3';
import type { CrawlQueries, CrawlStore } from './crawl-store.ts';
import { crawlerStopQueries } from './crawler-stop.ts';
import { frontierQueries } from './frontier.ts';
import { hostQueries } from './hosts.ts';
import { type LinkOut, linkTargetQueries } from './link-targets.ts';
import { pageQueries, type PageQueries } from './pages.ts';
import { revisitQueries } from './revisits.ts';
import { searchIndexCompaction } from './search-compaction.ts';
import { seedHostQueries } from './seed-hosts.ts';
import { seedQueries } from './seeds.ts';
import { sitemapJobQueries } from './sitemap-jobs.ts';

/** `T`'s methods, each answering a Promise of what it answered. */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/**
 * Every method of the crawl tables' query modules, asynchronous: the crawler's port (db/crawl-store.ts
 * CrawlQueries) and the reads the storage contract checks what it did with (seeds added, pages counted,
 * a link target read back), which the crawler does not use.
 */
export interface CrawlModuleReads {
  frontier: Async<ReturnType<typeof frontierQueries>>;
  /** The crawler's writes of pages, and the reads that check them. */
  pages: Async<
    Pick<
      PageQueries,
      'upsertPage' | 'markPageGone' | 'markPageCurrent' | 'retireSeedPages' | 'countPages' | 'getPage' | 'validators'
    >
  >;
  /** Gathered during a transaction, written at its end; `target` reads one back. */
  linkTargets: Async<Pick<ReturnType<typeof linkTargetQueries>, 'gatherLinks' | 'target'>>;
  hosts: Async<ReturnType<typeof hostQueries>>;
  sitemapJobs: Async<ReturnType<typeof sitemapJobQueries>>;
  seeds: Async<
    Pick<
      ReturnType<typeof seedQueries>,
      'upsertSeed' | 'getSeed' | 'seedsChangedSince' | 'markSeedRemoved' | 'isRemoved' | 'deleteRemovedSeed'
    >
  >;
  seedHosts: Async<ReturnType<typeof seedHostQueries>>;
  stops: Async<ReturnType<typeof crawlerStopQueries>>;
  revisits: Async<ReturnType<typeof revisitQueries>>;
}

/** The query modules as the contract uses them: the crawler's port's, with the contract's reads. */
export type AsyncCrawlModules = CrawlQueries & CrawlModuleReads;

/**
 * The crawler's storage on either engine (see the module comment): the crawler's port (CrawlStore) with the
 * contract's reads, so that what the contract holds both engines to is the port the primary runs on. The
 * modules outside a transaction run on their own.
 */
export type AsyncCrawlStore = AsyncTransactions & CrawlStore & CrawlModuleReads;

/** A store's transactions, handing out the modules with the contract's reads. */
interface AsyncTransactions {
  /**
   * Runs `write` in one transaction, given the modules bound to it (the store's own modules, called from
   * `write`, run in it too); the link targets it gathered are written at its end. If it throws (or the
   * database fails), nothing of it is stored and the error is thrown on. One at a time.
   */
  transaction(write: (tx: AsyncCrawlModules) => Promise<void>): Promise<void>;
  /** Runs `read` in one read transaction: its reads see one state of the database. */
  read<T>(read: (tx: AsyncCrawlModules) => Promise<T>): Promise<T>;
}

/** `queries` with each method answering a Promise (SQLite's answers are there at once). */
export function promised<T extends object>(queries: T): Async<T> {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(queries)) {
    if (typeof method === 'function') out[name] = async (...args: unknown[]) => method(...args);
  }
  return out as Async<T>;
}

/**
 * The asynchronous port on one SQLite connection: the same modules as sqliteCrawlStore
 * (db/sqlite-crawl-store.ts), a transaction as BEGIN IMMEDIATE ... COMMIT around the awaited `write`. One transaction at a time (the
 * connection is one): the crawler primary writes its batches one after another.
 */
export function sqliteAsyncCrawlStore(db: Database): AsyncCrawlStore {
  const pages = pageQueries(db, { deferSearch: true });
  const linkTargets = linkTargetQueries(db);
  const compaction = searchIndexCompaction(db);
  // Inside a transaction a page's links are gathered for its end; outside, there is no end to wait for:
  // they are written at once (as on PostgreSQL).
  const gatherLinks = (sourceId: number, links: readonly LinkOut[]): void => {
    if (db.inTransaction) linkTargets.gatherLinks(sourceId, links);
    else db.transaction(() => linkTargets.recordLinks(sourceId, links))();
  };
  const modules: AsyncCrawlModules = {
    compactSearchIndexStep: async () => compaction.compactSearchIndexStep(),
    frontier: promised(frontierQueries(db)),
    pages: { ...promised(pages), storePage: async (p, links) => gatherLinks(pages.upsertPage(p), links) },
    linkTargets: promised(linkTargets),
    hosts: promised(hostQueries(db)),
    sitemapJobs: promised(sitemapJobQueries(db)),
    seeds: promised(seedQueries(db)),
    seedHosts: promised(seedHostQueries(db)),
    stops: promised(crawlerStopQueries(db)),
    revisits: promised(revisitQueries(db)),
  };
  return {
    ...modules,
    linkTargets: { ...modules.linkTargets, gatherLinks: async (sourceId, links) => gatherLinks(sourceId, links) },
    async transaction(write) {
      db.exec('BEGIN IMMEDIATE');
      try {
        await write(modules);
        linkTargets.writeGathered();
        pages.writeSearchEntries();
        db.exec('COMMIT');
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        linkTargets.discardGathered();
        pages.discardSearchEntries();
        throw err;
      }
    },
    async read(read) {
      db.exec('BEGIN');
      try {
        return await read(modules);
      } finally {
        if (db.inTransaction) db.exec('COMMIT');
      }
    },
    compactSearchIndexStep: async () => compaction.compactSearchIndexStep(),
  };
}
