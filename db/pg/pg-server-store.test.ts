/**
 * The server's storage contract (db/server-store-contract.ts) on PostgreSQL: a throwaway cluster for this
 * file (test-support/postgres.ts), a fresh database per test, migrated as Lantern opens it.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../../test-support/app-process.ts';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { serverStoreContract } from '../server-store-contract.ts';
import { openPgServerStore, PgUnavailableError } from './pg-server-store.ts';

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

test('a PostgreSQL that does not answer is a clear error naming where, without the password', async () => {
  const port = await freePort(); // nothing listens there
  await assert.rejects(openPgServerStore(`postgres://lantern:pw-not-shown@127.0.0.1:${port}/lantern`), (err: Error) => {
    assert.ok(err instanceof PgUnavailableError);
    assert.match(
      err.message,
      new RegExp(`^pg-server-store: cannot open PostgreSQL at lantern@127\\.0\\.0\\.1:${port}/lantern: .*ECONNREFUSED`),
    );
    assert.ok(!err.message.includes('pw-not-shown'), err.message);
    return true;
  });
});
