import { ConfigError, loadConfig } from '../shared/config.ts';
import { openServerStore } from '../db/engine.ts';
import type { ServerStore } from '../db/server-store.ts';
import { buildApp } from './app.ts';
import { CrawlerLink } from './crawler-link.ts';
import { openSearchSide, type SearchSide } from './search-copy/search-side.ts';
import { acquireServerLock, DataDirInUseError, releaseServerLock } from './server-lock.ts';

/**
 * `npm start`: parses the configuration, opens the database (and, on PostgreSQL, the search copy in DATA_DIR
 * with its feed: search-copy/search-side.ts), starts the search index build in the background, forks the
 * crawler primary, serves the API and the web app, then warms the search up. SIGINT/SIGTERM stop the HTTP
 * server first, then the crawler (which lets in-flight fetches finish), then the search side, then close the
 * database.
 */
async function main(): Promise<void> {
  // biome-ignore lint/suspicious/noImplicitAnyLet: set in the try below; its type is the one inferred there
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`lantern: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  try {
    acquireServerLock(config.dataDir);
  } catch (err) {
    if (err instanceof DataDirInUseError) {
      process.stderr.write(`lantern: ${err.message}\n`);
      process.exit(3);
    }
    throw err;
  }
  // The search side logs from its opening on, before the app (and its logger) exists: to stderr until then.
  let appLog: { info(msg: string): void; warn(msg: string): void } | undefined;
  const log = {
    info: (msg: string) => (appLog === undefined ? process.stderr.write(`lantern: ${msg}\n`) : appLog.info(msg)),
    warn: (msg: string) => (appLog === undefined ? process.stderr.write(`lantern: ${msg}\n`) : appLog.warn(msg)),
  };
  let side: SearchSide;
  let store: ServerStore;
  try {
    side = await openSearchSide(config, { log, snapshot: true });
  } catch (err) {
    releaseServerLock(config.dataDir);
    throw err;
  }
  try {
    store = await openServerStore(config, side.db);
  } catch (err) {
    await side.close();
    releaseServerLock(config.dataDir);
    throw err;
  }
  const { db, search } = side;
  const link = new CrawlerLink(
    { info: (msg) => app.log.info(msg), warn: (msg) => app.log.warn(msg), error: (msg) => app.log.error(msg) },
    () => search.refresh(),
    config,
    process.env, // the primary's environment (PATH, NODE_OPTIONS); its configuration is `config`
  );
  const app = await buildApp({ config, db, store, search, crawler: link, feed: side.feed, logger: { level: 'info' } });
  appLog = app.log;
  side.start();
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await store.close();
    await side.close();
    releaseServerLock(config.dataDir);
    throw new Error(
      `cannot listen on ${config.host}:${config.port}: ${(err as Error).message}; is another Lantern running? Set PORT to use another port`,
    );
  }
  link.start();
  // In the background (a thread of its own): the full-text index read once and its common words
  // decided, so the first searches after a start cost what later ones do (search/term-warm-up.ts).
  search.warmUp().then(
    (r) => {
      if (r !== undefined)
        app.log.info(
          `main: search warm-up done in ${(r.ms / 1000).toFixed(1)} s (${r.words} words, ${r.common} common)`,
        );
    },
    (err: Error) => app.log.warn(err.message),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info(`main: ${signal} received; stopping`);
    const hardStop = setTimeout(() => process.exit(1), 20_000);
    hardStop.unref();
    await app.close();
    await link.stop();
    await store.close();
    await side.close();
    releaseServerLock(config.dataDir);
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err) => {
  process.stderr.write(`lantern: could not start: ${(err as Error).message}\n`);
  process.exit(1);
});
