import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { openDatabase } from '../db/open.ts';
import { buildApp } from './app.ts';
import { loadConfig } from '../shared/config.ts';
import { CrawlerLink } from './crawler-link.ts';
import { SearchService } from './search/search-service.ts';

/**
 * A real app on a real temporary database for route tests (driven through `app.inject`); the crawler
 * link is never started, as if the crawler were restarting.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<{ app: FastifyInstance; dataDir: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-app-'));
  const config = loadConfig({ DATA_DIR: dataDir, ...env });
  const db = openDatabase(dataDir);
  const search = new SearchService(db);
  const crawler = new CrawlerLink({ warn: () => undefined, error: () => undefined }, () => search.refresh(), config, {});
  const app = await buildApp({ config, db, search, crawler, webRoot: path.join(dataDir, 'no-web') });
  return {
    app,
    dataDir,
    async close() {
      await app.close();
      search.close();
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
