import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Database } from 'better-sqlite3';
import type { Config } from '../../shared/config.ts';
import type { CrawlerLink } from '../crawler-link.ts';
import type { SearchService } from '../search/search-service.ts';
import type { FeedStatus } from '../search-copy/search-feed.ts';
import { StorageWatch } from '../storage-watch.ts';
import { describeDatabaseUrl } from '../../db/pg/pg-server-store.ts';
import type { ClusterView } from '../../db/pg/pg-cluster-view.ts';
import type {
  PageStore,
  SeedBulkStore,
  SeedLabelStore,
  SeedListStore,
  SeedStore,
  ServerStore,
  SessionStore,
} from '../../db/server-store.ts';

/** What every route may use; built once in server/main.ts (or a test) and handed to buildApp. */
export interface Services {
  config: Config;
  /**
   * The SQLite database search reads (server/search): DATA_DIR's lantern.db on SQLite, the search copy in
   * DATA_DIR/search-copy on PostgreSQL (server/search-copy/search-side.ts); the routes' storage is `store`.
   */
  db: Database;
  /** The server's storage ports on the configured engine (db/engine.ts openServerStore). */
  store: ServerStore;
  crawler: CrawlerLink;
  search: SearchService;
  /** On PostgreSQL, the search copy's feed (search-copy/search-feed.ts): its failures tell /api/status of an outage. */
  feed?: { readonly status: FeedStatus };
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Database;
    crawler: CrawlerLink;
    /** The database's outage as the server sees it (storage-watch.ts), for /api/status and the error handler. */
    storageWatch: StorageWatch;
    /** The search copy's feed on PostgreSQL; undefined on SQLite. */
    searchFeed: { readonly status: FeedStatus } | undefined;
    /** Named `searcher` because Fastify already has `search` (the HTTP SEARCH method shorthand). */
    searcher: SearchService;
    seeds: SeedStore;
    pages: PageStore;
    seedLabels: SeedLabelStore;
    seedList: SeedListStore;
    seedBulk: SeedBulkStore;
    sessions: SessionStore;
    /** The crawler nodes and their leases on PostgreSQL (db/pg/pg-cluster-view.ts); null on SQLite. */
    clusterView: ClusterView | null;
  }
}

/** Decorates the app with the services and the storage ports the routes use (awaited: either engine answers). */
export default fp(
  async function services(app: FastifyInstance, opts: Services) {
    app.decorate('config', opts.config);
    app.decorate('db', opts.db);
    app.decorate('crawler', opts.crawler);
    app.decorate('searcher', opts.search);
    const url = opts.config.databaseUrl;
    app.decorate(
      'storageWatch',
      url === null
        ? new StorageWatch('sqlite', opts.config.dataDir)
        : new StorageWatch('postgres', describeDatabaseUrl(url)),
    );
    app.decorate('searchFeed', opts.feed);
    app.decorate('seeds', opts.store.seeds);
    app.decorate('pages', opts.store.pages);
    app.decorate('seedLabels', opts.store.seedLabels);
    app.decorate('seedList', opts.store.seedList);
    app.decorate('seedBulk', opts.store.seedBulk);
    app.decorate('sessions', opts.store.sessions);
    app.decorate('clusterView', opts.store.cluster);
  },
  { name: 'services' },
);
