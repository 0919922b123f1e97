/**
 * The one place that knows Lantern has two storage engines: DATABASE_URL unset is SQLite in DATA_DIR (the
 * embedded default), set is PostgreSQL. Everything else talks to the ports it answers: the server's
 * (db/server-store.ts, `openServerStore`) and the crawler primary's (db/crawl-store.ts, `openCrawlStorage`).
 */
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import type { Config } from '../shared/config.ts';
import type { CrawlStore } from './crawl-store.ts';
import { sqliteCrawlStore } from './sqlite-crawl-store.ts';
import { DatabaseNotWritableError, openDatabase } from './open.ts';
import { pgCrawlStore } from './pg/pg-crawl-store.ts';
import { openMigratedPgPool, openPgServerStore } from './pg/pg-server-store.ts';
import type { ServerStore } from './server-store.ts';
import { sqliteServerStore } from './sqlite-server-store.ts';
import { databaseBytes } from './storage-size.ts';

/**
 * The server's storage ports on the configured engine: SQLite on `db` (the DATA_DIR file, opened by the
 * caller, which closes it), or PostgreSQL at DATABASE_URL (migrated on opening; `close()` ends its pool).
 */
export async function openServerStore(config: Pick<Config, 'databaseUrl'>, db: Database): Promise<ServerStore> {
  return config.databaseUrl === null ? sqliteServerStore(db) : openPgServerStore(config.databaseUrl);
}

/** The crawler primary's storage on the configured engine, with what the primary's disk budget reads. */
export interface CrawlStorage {
  readonly engine: 'sqlite' | 'postgres';
  readonly store: CrawlStore;
  /** PostgreSQL's pool (the crawler node's lease loop runs on it: crawler/cluster/node-leases.ts); null on SQLite. */
  readonly pool: pg.Pool | null;
  /**
   * The bytes the record holds, for CRAWL_MAX_DB_SIZE: SQLite's file, read at once; PostgreSQL's database,
   * as of the last size PostgreSQL answered (each call asks again in the background; 0 before the first answer).
   */
  databaseBytes(): number;
  /** Closes the connection (SQLite) or ends the pool (PostgreSQL). */
  close(): Promise<void>;
}

/**
 * Opens the crawler primary's storage: SQLite in `dataDir` (the primary's own connection to the DATA_DIR
 * file), or PostgreSQL at DATABASE_URL (a pool, the schema brought to the newest migration, which the server
 * has normally done already). Throws DatabaseNotWritableError, MigrationError or PgUnavailableError, each
 * saying what to do.
 */
export async function openCrawlStorage(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<CrawlStorage> {
  if (config.databaseUrl === null) {
    let db: Database;
    try {
      db = openDatabase(config.dataDir);
    } catch (err) {
      if (err instanceof DatabaseNotWritableError) throw err; // it names the folder and says what to do
      throw new Error(`engine: cannot open the database in ${config.dataDir}: ${(err as Error).message}`);
    }
    return {
      engine: 'sqlite',
      store: sqliteCrawlStore(db),
      pool: null,
      databaseBytes: () => databaseBytes(db),
      close: async () => {
        db.close();
      },
    };
  }
  // A few connections: the primary runs one transaction at a time (IntentApplier), plus reads at start, plus the
  // lease loop's statements (one at a time) and a taken group's reads.
  const pool = await openMigratedPgPool(config.databaseUrl, 'engine', { max: 6, purpose: ' for the crawler' });
  let bytes = 0;
  let asking = false;
  const askSize = () => {
    if (asking) return;
    asking = true;
    pool
      .query<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes')
      .then((r) => {
        bytes = r.rows[0]?.bytes ?? bytes;
      })
      // Unreachable now: the flush's own error reports the outage; the size stays the last one known.
      .catch(() => undefined)
      .finally(() => {
        asking = false;
      });
  };
  askSize();
  return {
    engine: 'postgres',
    store: pgCrawlStore(pool),
    pool,
    databaseBytes: () => {
      askSize();
      return bytes;
    },
    close: () => pool.end(),
  };
}
