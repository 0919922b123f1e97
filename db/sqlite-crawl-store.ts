/**
 * The crawler primary's storage (db/crawl-store.ts, the contract) on SQLite: each method the query module's
 * prepared statement (db/frontier.ts, db/pages.ts, ...) answered as a settled Promise, and the batch's
 * transaction issued by hand. Apart from the contract so that the port reads alone, as the server's ports do
 * (db/server-store.ts and db/sqlite-server-store.ts); PostgreSQL's engine is db/pg/pg-crawl-store.ts.
 */
import type { Database } from 'better-sqlite3';
import { type CrawlQueries, type CrawlStore, CrawlStoreBusyError } from './crawl-store.ts';
import { crawlerStopQueries } from './crawler-stop.ts';
import { frontierQueries } from './frontier.ts';
import { hostQueries } from './hosts.ts';
import { linkTargetQueries } from './link-targets.ts';
import { pageQueries } from './pages.ts';
import { revisitQueries } from './revisits.ts';
import { searchIndexCompaction } from './search-compaction.ts';
import { seedHostQueries } from './seed-hosts.ts';
import { seedQueries } from './seeds.ts';
import { sitemapJobQueries } from './sitemap-jobs.ts';

/**
 * The crawler primary's storage on one SQLite connection (see CrawlStore). better-sqlite3's own
 * `db.transaction` cannot span awaits, so BEGIN IMMEDIATE / COMMIT / ROLLBACK are issued by hand; the
 * statements inside run synchronously, so a batch settles in microtasks, never leaving the thread to
 * another event.
 */
export function sqliteCrawlStore(db: Database): CrawlStore {
  const pages = pageQueries(db, { deferSearch: true });
  const links = linkTargetQueries(db);
  const f = frontierQueries(db);
  const h = hostQueries(db);
  const sj = sitemapJobQueries(db);
  const s = seedQueries(db);
  const sh = seedHostQueries(db);
  const st = crawlerStopQueries(db);
  const r = revisitQueries(db);
  const compaction = searchIndexCompaction(db);
  const queries: CrawlQueries = {
    frontier: {
      addUrl: async (u, now) => f.addUrl(u, now),
      touchUrl: async (url) => f.touchUrl(url),
      knownUrls: async (urls) => f.knownUrls(urls),
      touchUrls: async (urls) => f.touchUrls(urls),
      addUrls: async (rows, now) => f.addUrls(rows, now),
      queuedAfter: async (origin, at, id, limit) => f.queuedAfter(origin, at, id, limit),
      queuedAfterMany: async (reads) => f.queuedAfterMany(reads),
      queuedCount: async (origin) => f.queuedCount(origin),
      returnAllLeases: async () => f.returnAllLeases(),
      leaseUrl: async (id, owner, now) => f.leaseUrl(id, owner, now),
      returnLease: async (id) => f.returnLease(id),
      finishUrl: async (id, state, error, now, countAttempt) => f.finishUrl(id, state, error, now, countAttempt),
      finishRedirect: async (id, target, note, now, state) => f.finishRedirect(id, target, note, now, state),
      redirectTarget: async (url) => f.redirectTarget(url),
      failRedirectLoop: async (url, message) => f.failRedirectLoop(url, message),
      retryUrl: async (id, attempts, at, error) => f.retryUrl(id, attempts, at, error),
      requeueUrl: async (url, depth, seedId) => f.requeueUrl(url, depth, seedId),
      requeueSeedChunk: async (seedId, maxDepth, state, afterId, limit) =>
        f.requeueSeedChunk(seedId, maxDepth, state, afterId, limit),
      requeueFinished: async (id) => f.requeueFinished(id),
      requeueFinishedAt: async (id, at) => f.requeueFinishedAt(id, at),
      seedCrawls: async () => f.seedCrawls(),
      dropSeedChunk: async (seedId, limit) => f.dropSeedChunk(seedId, limit),
      urlByUrl: async (url) => f.urlByUrl(url),
      urlCountsBySeedAndOrigin: async () => f.urlCountsBySeedAndOrigin(),
      countsByOrigin: async () => f.countsByOrigin(),
    },
    pages: {
      upsertPage: async (p) => pages.upsertPage(p),
      storePage: async (p, out) => links.gatherLinks(pages.upsertPage(p), out),
      markPageGone: async (url, status, at) => pages.markPageGone(url, status, at),
      markPageCurrent: async (url, at) => pages.markPageCurrent(url, at),
      retireSeedPages: async (seedId, limit, maxBytes) => pages.retireSeedPages(seedId, limit, maxBytes),
    },
    linkTargets: { gatherLinks: async (sourceId, out) => links.gatherLinks(sourceId, out) },
    hosts: {
      allHosts: async () => h.allHosts(),
      saveHost: async (row, now) => h.saveHost(row, now),
      saveRobotsFile: async (origin, body, rules) => h.saveRobotsFile(origin, body, rules),
    },
    sitemapJobs: {
      rememberSitemapJob: async (job) => sj.rememberSitemapJob(job),
      forgetSitemapJob: async (url) => sj.forgetSitemapJob(url),
      pendingSitemapJobs: async () => sj.pendingSitemapJobs(),
      allSitemapValidators: async () => sj.allSitemapValidators(),
      rememberSitemapValidators: async (url, v) => sj.rememberSitemapValidators(url, v),
    },
    seeds: {
      seedsChangedSince: async (at) => s.seedsChangedSince(at),
      isRemoved: async (id) => s.isRemoved(id),
      deleteRemovedSeed: async (id) => s.deleteRemovedSeed(id),
    },
    seedHosts: {
      saveSeedHosts: async (row) => sh.saveSeedHosts(row),
      allSeedHosts: async () => sh.allSeedHosts(),
      forgetSeedHosts: async (seedId) => sh.forgetSeedHosts(seedId),
    },
    stops: {
      lastStop: async () => st.lastStop(),
      markRunning: async (contactedBy) => st.markRunning(contactedBy),
      markCleanStop: async () => st.markCleanStop(),
    },
    revisits: {
      revisitOf: async (url) => r.revisitOf(url),
      revisitsOf: async (urls) => r.revisitsOf(urls),
      saveRevisit: async (url, state) => r.saveRevisit(url, state),
      noteSitemapLastmod: async (url, ms) => r.noteSitemapLastmod(url, ms),
      markChecked: async (url, at) => r.markChecked(url, at),
      refreshCandidates: async (seedId, maxDepth) => r.refreshCandidates(seedId, maxDepth),
    },
    compactSearchIndexStep: async () => compaction.compactSearchIndexStep(),
  };
  return {
    ...queries,
    async transaction(write) {
      if (db.inTransaction) throw new CrawlStoreBusyError();
      db.exec('BEGIN IMMEDIATE'); // a write may read first, and the server writes the same file
      try {
        await write(queries);
        links.writeGathered(); // each link target of the batch once, in id order (see gatherLinks)
        pages.writeSearchEntries();
        db.exec('COMMIT');
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK'); // some errors (SQLITE_FULL) roll back by themselves
        // What was gathered for its end belongs to it (the batch gathers it again when it runs again).
        links.discardGathered();
        pages.discardSearchEntries();
        throw err;
      }
    },
    async read(reads) {
      if (db.inTransaction) throw new CrawlStoreBusyError();
      db.exec('BEGIN');
      try {
        const answer = await reads(queries);
        db.exec('COMMIT');
        return answer;
      } catch (err) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw err;
      }
    },
  };
}
