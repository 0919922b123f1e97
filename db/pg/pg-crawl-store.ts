/**
 * The crawler primary's storage on PostgreSQL (DATABASE_URL): the asynchronous port (db/async-crawl-store.ts)
 * on a `pg` pool. Outside a transaction each module's statement runs on the pool (inside one, the store's own
 * modules run in it too, as on SQLite's one connection); `transaction` takes one
 * pooled connection for BEGIN ... COMMIT, the modules bound to it hold the writes nobody reads back and send
 * them with the next statement that answers something or with the COMMIT (db/pg/pg-runner.ts), and the link
 * targets the batch's pages gathered are written at its end, as on SQLite. A page stored for its links
 * (storePage, as the primary stores every page) is such a held write too: its links are gathered by its url
 * and its id read with the link targets at the end, so a batch of pages costs no round trip per page.
 * Every error leaves classified
 * (db/storage-error.ts): PostgreSQL out of reach is retryable (the primary's WriteOutage waits it out),
 * a constraint violated is a bug.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type pg from 'pg';
import type { AsyncCrawlModules, AsyncCrawlStore } from '../async-crawl-store.ts';
import { pgStorageError } from '../storage-error.ts';
import { pgCrawlerStopQueries } from './pg-crawler-stop.ts';
import { pgCrawlSeedQueries } from './pg-crawl-seeds.ts';
import { pgFrontierQueries } from './pg-frontier.ts';
import { pgGroupWorkQueries } from './pg-group-work.ts';
import { pgHostQueries } from './pg-hosts.ts';
import { pgLinkTargetQueries } from './pg-link-targets.ts';
import { pgPageWriteQueries } from './pg-page-writes.ts';
import { pgRevisitQueries } from './pg-revisits.ts';
import { type PgRunner, poolRunner, TxRunner } from './pg-runner.ts';
import { pgSeedHostQueries } from './pg-seed-hosts.ts';
import { pgSitemapJobQueries } from './pg-sitemap-jobs.ts';

/** The modules on one runner, with the link targets' own handle (written at a transaction's end). */
function modulesOn(db: PgRunner): { modules: AsyncCrawlModules; links: ReturnType<typeof pgLinkTargetQueries> } {
  const links = pgLinkTargetQueries(db);
  const pages = pgPageWriteQueries(db);
  return {
    links,
    modules: {
      frontier: pgFrontierQueries(db),
      pages: {
        ...pages,
        // The upsert held (no round trip), its links gathered by the page's url: the id is read with the targets.
        async storePage(p, out) {
          await pages.holdPage(p);
          await links.gatherLinksOf(p.url, out);
        },
      },
      linkTargets: links,
      hosts: pgHostQueries(db),
      sitemapJobs: pgSitemapJobQueries(db),
      seeds: pgCrawlSeedQueries(db),
      seedHosts: pgSeedHostQueries(db),
      stops: pgCrawlerStopQueries(db),
      revisits: pgRevisitQueries(db),
      leases: pgGroupWorkQueries(db),
      // Pages on PostgreSQL have no full-text tables: each Lantern server derives its search index in its own
      // DATA_DIR from the change feed, and compacts it there. Nothing to merge here, ever.
      compactSearchIndexStep: async () => false,
    },
  };
}

/** What a transaction's runner reports when it ends (benchmarks count round trips). */
export interface PgTransactionReport {
  roundTrips: number;
}

/**
 * The crawl store on `pool` (see the module comment). `onTransaction` hears how each transaction went
 * (benchmarks); the pool is the caller's to end.
 */
export function pgCrawlStore(
  pool: pg.Pool,
  opts: { onTransaction?: (report: PgTransactionReport) => void } = {},
): AsyncCrawlStore {
  /** The transaction (or read) whose callback is running, in that callback's async context. */
  const active = new AsyncLocalStorage<{
    runner: PgRunner;
    links: ReturnType<typeof pgLinkTargetQueries>;
    modules: AsyncCrawlModules;
  }>();
  /** Runs `work` on one connection between `opening` and COMMIT, ROLLBACK if it throws (its error thrown on). */
  const onOneConnection = async <T>(
    opening: string,
    during: string,
    work: (runner: TxRunner) => Promise<T>,
  ): Promise<T> => {
    let client: pg.PoolClient;
    try {
      client = await pool.connect();
    } catch (err) {
      throw pgStorageError(err, `connecting for ${during}`);
    }
    // A connection lost while checked out is reported to its pending statement, and the next one fails with
    // "not queryable"; pg also emits it on the client, which without a listener would end the process.
    let lost: Error | undefined;
    const onLost = (err: Error) => {
      lost = err;
    };
    client.on('error', onLost);
    const runner = new TxRunner(client, opening);
    let broken: Error | undefined;
    try {
      const out = await work(runner);
      await runner.commit();
      return out;
    } catch (err) {
      try {
        await runner.rollback();
      } catch (rollbackErr) {
        broken = rollbackErr as Error; // a connection that cannot roll back is closed, not pooled again
      }
      throw err; // PostgreSQL's errors are classified where they happen (pg-runner.ts); the caller's stay its own
    } finally {
      client.off('error', onLost);
      client.release(broken ?? lost);
      opts.onTransaction?.({ roundTrips: runner.roundTrips });
    }
  };

  const pooled = poolRunner(pool);
  // The store's own modules, called while a transaction or read runs (from its callback's async context),
  // run in it, as SQLite's one connection does: code written for `transaction(async () => store.x())` and
  // code using the `tx` it is given both work. Elsewhere they run on the pool.
  const routed: PgRunner = {
    rows: (s, values) => (active.getStore()?.runner ?? pooled).rows(s, values),
    changed: (s, values) => (active.getStore()?.runner ?? pooled).changed(s, values),
    write: (s, values) => (active.getStore()?.runner ?? pooled).write(s, values),
  };
  const own = modulesOn(routed);
  return {
    ...own.modules,
    // Inside a transaction a page's links are gathered for its end; outside, there is no end to wait for:
    // they are written at once.
    linkTargets: {
      ...own.links,
      async gatherLinks(sourceId, links) {
        const tx = active.getStore();
        if (tx !== undefined) return tx.links.gatherLinks(sourceId, links);
        await own.links.gatherLinks(sourceId, links);
        await own.links.writeGathered();
      },
    },
    pages: {
      ...own.modules.pages,
      async storePage(p, links) {
        const tx = active.getStore();
        if (tx !== undefined) return tx.modules.pages.storePage(p, links);
        await own.modules.pages.storePage(p, links);
        await own.links.writeGathered();
      },
    },
    transaction: (write) =>
      onOneConnection('BEGIN', 'a write transaction', async (runner) => {
        const tx = modulesOn(runner);
        await active.run({ runner, ...tx }, () => write(tx.modules));
        await tx.links.writeGathered();
      }),
    read: (read) =>
      onOneConnection('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', 'a read transaction', (runner) => {
        const tx = modulesOn(runner);
        return active.run({ runner, ...tx }, () => read(tx.modules));
      }),
  };
}
