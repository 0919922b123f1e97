/**
 * The crawler's storage contract (db/crawl-store-contract.ts) on PostgreSQL: a throwaway cluster for this
 * file (test-support/postgres.ts), a fresh database per test, migrated as Lantern opens it.
 */
import { after, before } from 'node:test';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { crawlStoreContract } from '../crawl-store-contract.ts';
import { migratePg } from './migrate-pg.ts';
import { pgCrawlStore } from './pg-crawl-store.ts';
import { openPgPool } from './pool.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

crawlStoreContract('postgres', async () => {
  const pool = openPgPool(await cluster.createDatabase(), { max: 3 });
  await migratePg(pool);
  return {
    store: pgCrawlStore(pool),
    rows: async (sql) => (await pool.query(sql)).rows as Array<Record<string, unknown>>,
    close: () => pool.end(),
  };
});
