/**
 * The server's storage ports (db/server-store.ts) on PostgreSQL: one pool for all of them, the schema
 * migrated when the store opens.
 */
import type pg from 'pg';
import type { ServerStore } from '../server-store.ts';
import { MigrationError } from '../migrate.ts';
import { migratePg } from './migrate-pg.ts';
import { openPgPool } from './pool.ts';
import { pgClusterView } from './pg-cluster-view.ts';
import { pgPageStore } from './pg-pages.ts';
import { pgSeedBulkStore } from './pg-seed-bulk.ts';
import { pgSeedLabelStore } from './pg-seed-labels.ts';
import { pgSeedListStore } from './pg-seed-list.ts';
import { pgSeedStore } from './pg-seeds.ts';
import { pgSessionStore } from './pg-sessions.ts';

/** PostgreSQL could not be reached or refused Lantern at opening; the message names where, never the password. */
export class PgUnavailableError extends Error {
  override name = 'PgUnavailableError';
}

/** `url` as a person may see it: user, host, port and database, the password left out. */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.username === '' ? '' : `${decodeURIComponent(u.username)}@`}${u.host || 'the local socket'}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/**
 * A pool on `url` with the schema brought to the newest migration: what both the server's and the crawler's
 * storage open on. A newer schema is a MigrationError; anything else (no answer, refused) is a
 * PgUnavailableError whose message begins `<who>: cannot open PostgreSQL at <where><purpose>` and says what to do.
 */
export async function openMigratedPgPool(
  url: string,
  who: string,
  opts: { max?: number; purpose?: string } = {},
): Promise<pg.Pool> {
  const pool = openPgPool(url, opts.max === undefined ? {} : { max: opts.max });
  try {
    await migratePg(pool);
  } catch (err) {
    await pool.end();
    if (err instanceof MigrationError) throw err;
    throw new PgUnavailableError(
      `${who}: cannot open PostgreSQL at ${describeDatabaseUrl(url)}${opts.purpose ?? ''}: ${(err as Error).message}; start the server, or check DATABASE_URL`,
      { cause: err },
    );
  }
  return pool;
}

/** Opens a pool on `url`, brings the schema to the newest migration, and answers the server's ports on it. */
export async function openPgServerStore(url: string): Promise<ServerStore> {
  const pool = await openMigratedPgPool(url, 'pg-server-store');
  return {
    engine: 'postgres',
    seeds: pgSeedStore(pool),
    seedLabels: pgSeedLabelStore(pool),
    seedList: pgSeedListStore(pool),
    seedBulk: pgSeedBulkStore(pool),
    pages: pgPageStore(pool),
    sessions: pgSessionStore(pool),
    cluster: pgClusterView(pool),
    close: () => pool.end(),
  };
}
