/**
 * The server's storage ports (db/server-store.ts) on PostgreSQL: one pool for all of them, the schema
 * migrated when the store opens.
 */
import type { ServerStore } from '../server-store.ts';
import { migratePg } from './migrate-pg.ts';
import { openPgPool } from './pool.ts';
import { pgPageStore } from './pg-pages.ts';
import { pgSeedBulkStore } from './pg-seed-bulk.ts';
import { pgSeedLabelStore } from './pg-seed-labels.ts';
import { pgSeedListStore } from './pg-seed-list.ts';
import { pgSeedStore } from './pg-seeds.ts';
import { pgSessionStore } from './pg-sessions.ts';

/** Opens a pool on `url`, brings the schema to the newest migration, and answers the server's ports on it. */
export async function openPgServerStore(url: string): Promise<ServerStore> {
  const pool = openPgPool(url);
  try {
    await migratePg(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    engine: 'postgres',
    seeds: pgSeedStore(pool),
    seedLabels: pgSeedLabelStore(pool),
    seedList: pgSeedListStore(pool),
    seedBulk: pgSeedBulkStore(pool),
    pages: pgPageStore(pool),
    sessions: pgSessionStore(pool),
    close: () => pool.end(),
  };
}
