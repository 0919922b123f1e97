import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Database } from 'better-sqlite3';
import type { Config } from '../../shared/config.ts';
import type { CrawlerLink } from '../crawler-link.ts';
import type { SearchService } from '../search/search-service.ts';
import { seedQueries } from '../../db/seeds.ts';
import { pageQueries } from '../../db/pages.ts';
import { seedLabelQueries } from '../../db/seed-labels.ts';
import { seedListQueries } from '../../db/seed-list.ts';
import { seedBulkQueries } from '../../db/seed-bulk.ts';

/** What every route may use; built once in server/main.ts (or a test) and handed to buildApp. */
export interface Services {
  config: Config;
  db: Database;
  crawler: CrawlerLink;
  search: SearchService;
}

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Database;
    crawler: CrawlerLink;
    /** Named `searcher` because Fastify already has `search` (the HTTP SEARCH method shorthand). */
    searcher: SearchService;
    seeds: ReturnType<typeof seedQueries>;
    pages: ReturnType<typeof pageQueries>;
    seedLabels: ReturnType<typeof seedLabelQueries>;
    seedList: ReturnType<typeof seedListQueries>;
    seedBulk: ReturnType<typeof seedBulkQueries>;
  }
}

/** Decorates the app with the services and the prepared queries the routes use. */
export default fp(
  async function services(app: FastifyInstance, opts: Services) {
    app.decorate('config', opts.config);
    app.decorate('db', opts.db);
    app.decorate('crawler', opts.crawler);
    app.decorate('searcher', opts.search);
    app.decorate('seeds', seedQueries(opts.db));
    app.decorate('pages', pageQueries(opts.db));
    app.decorate('seedLabels', seedLabelQueries(opts.db));
    app.decorate('seedList', seedListQueries(opts.db));
    app.decorate('seedBulk', seedBulkQueries(opts.db));
  },
  { name: 'services' },
);
