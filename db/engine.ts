/**
 * The one place that knows Lantern has two storage engines: DATABASE_URL unset is SQLite in DATA_DIR (the
 * embedded default), set is PostgreSQL. Everything else talks to the ports it answers (db/server-store.ts).
 * Until the crawler's storage runs on PostgreSQL too, a Lantern started with DATABASE_URL would store seeds
 * no crawler reads: `refuseUnfinishedEngine` stops `npm start` before anything is opened.
 */
import type { Database } from 'better-sqlite3';
import { ConfigError } from '../shared/config-error.ts';
import type { Config } from '../shared/config.ts';
import { openPgServerStore } from './pg/pg-server-store.ts';
import type { ServerStore } from './server-store.ts';
import { sqliteServerStore } from './sqlite-server-store.ts';

/**
 * The server's storage ports on the configured engine: SQLite on `db` (the DATA_DIR file, opened by the
 * caller, which closes it), or PostgreSQL at DATABASE_URL (migrated on opening; `close()` ends its pool).
 */
export async function openServerStore(config: Pick<Config, 'databaseUrl'>, db: Database): Promise<ServerStore> {
  return config.databaseUrl === null ? sqliteServerStore(db) : openPgServerStore(config.databaseUrl);
}

/**
 * Refuses a configuration that names an engine not yet complete: on PostgreSQL the server's storage and search
 * run, and the crawler's storage is built, but the crawler primary is not started on it yet (issue 28), so
 * DATABASE_URL set is a ConfigError that says so.
 */
export function refuseUnfinishedEngine(config: Pick<Config, 'databaseUrl'>): void {
  if (config.databaseUrl === null) return;
  throw new ConfigError(
    "engine: DATABASE_URL is set, but Lantern's PostgreSQL engine is not complete: the server's storage and search run on it, the crawler's storage is built, but the crawler does not run on it yet, so Lantern does not start on it; unset DATABASE_URL to run on SQLite in DATA_DIR",
  );
}
