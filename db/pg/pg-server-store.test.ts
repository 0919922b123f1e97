/**
 * The server's storage contract (db/server-store-contract.ts) on PostgreSQL: a throwaway cluster for this
 * file (test-support/postgres.ts), a fresh database per test, migrated as Lantern opens it.
 */
import { after, before } from 'node:test';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { serverStoreContract } from '../server-store-contract.ts';
import { openPgServerStore } from './pg-server-store.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

serverStoreContract('postgres', async () => {
  const url = await cluster.createDatabase();
  const store = await openPgServerStore(url);
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  return {
    store,
    exec: async (sql) => void (await raw.query(sql)),
    async insertPage(columns) {
      const names = Object.keys(columns);
      await raw.query(
        `INSERT INTO pages (${names.join(', ')}) VALUES (${names.map((_, i) => `$${i + 1}`).join(', ')})`,
        Object.values(columns),
      );
    },
    async close() {
      await raw.end();
      await store.close();
    },
  };
});
