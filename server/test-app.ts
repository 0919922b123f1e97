import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { openServerStore } from '../db/engine.ts';
import { buildApp } from './app.ts';
import { loadConfig } from '../shared/config.ts';
import { CrawlerLink } from './crawler-link.ts';
import type { SearchFeed } from './search-copy/search-feed.ts';
import { openSearchSide, type SearchSideOptions } from './search-copy/search-side.ts';

/** What a route test may set beyond the environment. */
export interface TestAppOptions {
  /** A built web app to serve (a folder with index.html); none by default. */
  webRoot?: string;
  /** The clock of sign-in sessions and their rate limit (Date.now by default). */
  now?: () => number;
  /** Sees every route as it is added (a test that every route is protected). */
  onRoute?: (route: RouteOptions) => void;
  /** With DATABASE_URL: the search feed's poll interval and chunk, and whether it LISTENs. */
  feed?: SearchSideOptions['feed'];
  /** With DATABASE_URL: where the search feed reports (nowhere by default). */
  feedLog?: SearchSideOptions['log'];
}

/** The port of `app.inject`'s default `Host: localhost:80`, given to the test app as its PORT. */
export const INJECT_PORT = 80;

/**
 * A real app on a real temporary database for route tests (driven through `app.inject`); the crawler
 * link is never started, as if the crawler were restarting. Its PORT is 80, as if it listened there:
 * `app.inject` sends `Host: localhost:80`, one of the names Lantern answers to on that port. With DATABASE_URL
 * in `env`, search reads the search copy in the temporary DATA_DIR, and its feed follows PostgreSQL.
 */
export async function createTestApp(
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<{ app: FastifyInstance; dataDir: string; feed: SearchFeed | undefined; close(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-app-'));
  const config = loadConfig({ DATA_DIR: dataDir, PORT: String(INJECT_PORT), ...env });
  const quiet = { info: () => undefined, warn: () => undefined };
  const side = await openSearchSide(config, { log: options.feedLog ?? quiet, feed: options.feed });
  const { db, search } = side;
  const store = await openServerStore(config, db); // DATABASE_URL in `env`: the routes' storage on PostgreSQL
  side.feed?.start();
  const crawler = new CrawlerLink(
    { warn: () => undefined, error: () => undefined },
    () => search.refresh(),
    config,
    {},
  );
  const app = await buildApp({
    config,
    db,
    store,
    search,
    crawler,
    feed: side.feed,
    webRoot: options.webRoot ?? path.join(dataDir, 'no-web'),
    now: options.now,
    onRoute: options.onRoute,
  });
  return {
    app,
    dataDir,
    feed: side.feed,
    async close() {
      await app.close();
      await store.close();
      await side.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
