/** The server's storage contract (db/server-store-contract.ts) on SQLite: a fresh DATA_DIR per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from './open.ts';
import { serverStoreContract } from './server-store-contract.ts';
import { sqliteServerStore } from './sqlite-server-store.ts';

serverStoreContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-store-'));
  const db = openDatabase(dir);
  const store = sqliteServerStore(db);
  return {
    store,
    exec: async (sql) => void db.prepare(sql).run(),
    async insertPage(columns) {
      const names = Object.keys(columns);
      db.prepare(
        `INSERT INTO pages (${names.join(', ')}, seq) VALUES (${names.map((n) => `@${n}`).join(', ')}, (SELECT coalesce(max(seq), 0) + 1 FROM pages))`,
      ).run(columns);
    },
    async close() {
      await store.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
