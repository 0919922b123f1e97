/**
 * The server's search, on either engine: the SQLite database SearchService reads and what keeps it current.
 * On SQLite (DATABASE_URL unset) that is DATA_DIR's lantern.db itself, the record, kept current by the crawler.
 * On PostgreSQL it is the search copy in DATA_DIR/search-copy (db/search-copy.ts), built and kept current from
 * PostgreSQL by the feed (search-feed.ts); a copy missing, unreadable or made from another database is rebuilt.
 */
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import type { Config } from '../../shared/config.ts';
import { MigrationError } from '../../db/migrate.ts';
import { openDatabase } from '../../db/open.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { cursorPossible, readPgIdentity } from '../../db/pg/pg-change-feed.ts';
import { describeDatabaseUrl, PgUnavailableError } from '../../db/pg/pg-server-store.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { openSearchCopy, type RebuildReason, SEARCH_COPY_DIR } from '../../db/search-copy.ts';
import { SearchService } from '../search/search-service.ts';
import { TITLE_SNAPSHOT_FILE } from '../search/title-index.ts';
import { type FeedLog, SearchFeed, type SearchFeedOptions } from './search-feed.ts';

/** Why a copy was rebuilt, as the log says it. */
const WHY: Readonly<Record<Exclude<RebuildReason, 'missing'>, string>> = {
  unreadable: 'unreadable',
  'another-schema': "of another Lantern's schema",
  'another-database': 'made from another database',
  'ahead-of-database': 'ahead of the database (restored from an older backup?)',
};

/** Search and the database it reads, on the configured engine. */
export interface SearchSide {
  /** What SearchService reads: lantern.db on SQLite (the record), the search copy on PostgreSQL. */
  readonly db: Database;
  readonly search: SearchService;
  /** The feed that keeps the copy current (PostgreSQL only). */
  readonly feed: SearchFeed | undefined;
  /** Starts the search service (its title index) and the feed. */
  start(): void;
  /** Stops the feed and the search service, and closes what this side opened. */
  close(): Promise<void>;
}

/** Options of openSearchSide. */
export interface SearchSideOptions {
  log: FeedLog;
  /** Keep the title index's snapshot file (`npm start`; tests leave it out). */
  snapshot?: boolean;
  /** The feed's poll interval and chunk (tests); FEED_POLL_MS and FEED_CHUNK by default. */
  feed?: Pick<SearchFeedOptions, 'pollMs' | 'chunk' | 'listen'>;
}

/**
 * Opens search on the engine `config` names. On PostgreSQL it migrates the database (as the server's store does,
 * whichever comes first), reads its identity, and opens the search copy for it (rebuilding a copy that is not
 * this database's: the log says why); the feed runs from `start()`.
 */
export async function openSearchSide(
  config: Pick<Config, 'dataDir' | 'databaseUrl'>,
  opts: SearchSideOptions,
): Promise<SearchSide> {
  if (config.databaseUrl === null) {
    const db = openDatabase(config.dataDir);
    const search = new SearchService(db, {
      snapshot: opts.snapshot
        ? { file: path.join(config.dataDir, TITLE_SNAPSHOT_FILE), warn: (m) => opts.log.warn(m) }
        : undefined,
    });
    return {
      db,
      search,
      feed: undefined,
      start: () => search.start(),
      async close() {
        search.close();
        db.close();
      },
    };
  }
  const url = config.databaseUrl;
  const pool = openPgPool(url, { max: 2, warn: (m) => opts.log.warn(m) });
  let identity: Awaited<ReturnType<typeof readPgIdentity>>;
  try {
    await migratePg(pool);
    identity = await readPgIdentity(pool);
  } catch (err) {
    await pool.end();
    if (err instanceof MigrationError) throw err;
    throw new PgUnavailableError(
      `search-side: cannot open PostgreSQL at ${describeDatabaseUrl(url)} for the search copy: ${(err as Error).message}; start the server, or check DATABASE_URL`,
      { cause: err },
    );
  }
  let { copy, rebuilt } = openSearchCopy(config.dataDir, identity);
  let possible: boolean;
  try {
    possible = rebuilt !== undefined || (await cursorPossible(pool, copy.cursor));
  } catch (err) {
    copy.close();
    await pool.end();
    throw new PgUnavailableError(
      `search-side: cannot read PostgreSQL at ${describeDatabaseUrl(url)} for the search copy: ${(err as Error).message}; start the server, or check DATABASE_URL`,
      { cause: err },
    );
  }
  if (!possible) {
    copy.close();
    ({ copy, rebuilt } = openSearchCopy(config.dataDir, identity, 'ahead-of-database'));
  }
  const where = path.join(config.dataDir, SEARCH_COPY_DIR);
  if (rebuilt === 'missing') opts.log.info(`search-side: no search copy in ${where} yet; building it from PostgreSQL`);
  else if (rebuilt !== undefined) {
    opts.log.warn(
      `search-side: the search copy in ${where} was ${WHY[rebuilt]}; removed, and rebuilding it from PostgreSQL`,
    );
  }
  const search = new SearchService(copy.db, {
    snapshot: opts.snapshot
      ? { file: path.join(copy.folder, TITLE_SNAPSHOT_FILE), warn: (m) => opts.log.warn(m) }
      : undefined,
  });
  const feed = new SearchFeed({ url, pool, copy, onApplied: () => search.refresh(), log: opts.log, ...opts.feed });
  return {
    db: copy.db,
    search,
    feed,
    start() {
      search.start();
      feed.start();
    },
    async close() {
      await feed.stop();
      search.close();
      copy.close();
      await pool.end();
    },
  };
}
