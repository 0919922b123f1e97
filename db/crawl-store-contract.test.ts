/** The crawler's storage contract (db/crawl-store-contract.ts) on SQLite: a fresh DATA_DIR per test. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sqliteAsyncCrawlStore } from './async-crawl-store.ts';
import { crawlStoreContract } from './crawl-store-contract.ts';
import { openDatabase } from './open.ts';

crawlStoreContract('sqlite', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-store-'));
  const db = openDatabase(dir);
  return {
    store: sqliteAsyncCrawlStore(db),
    rows: async (sql) => db.prepare(sql).all() as Array<Record<string, unknown>>,
    async close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
