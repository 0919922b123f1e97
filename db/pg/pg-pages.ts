/**
 * Pages as the server reads them on PostgreSQL: one stored page by URL, and the counts /api/status shows.
 * The crawler writes pages (its PostgreSQL side comes with the crawl store); `seq` is read from change_seq,
 * the change feed's sequence (migrations-pg 0001).
 */
import type pg from 'pg';
import { storedPageFromRow, type PageRow } from '../page-row.ts';
import type { PageStore } from '../server-store.ts';
import { row, statement } from './pool.ts';

const GET = statement(
  'pages.get',
  `SELECT id, change_seq AS seq, url, final_url, origin, host, seed_id, status, content_type, title, description,
     headings, body, lang, canonical, fetched_at, etag, last_modified, content_hash, noindex, nofollow, noarchive,
     nosnippet, indexed
   FROM pages WHERE url = $1`,
);
const COUNT = statement(
  'pages.count',
  'SELECT count(*) FILTER (WHERE removed = 0) AS pages, count(*) FILTER (WHERE indexed = 1) AS indexed FROM pages',
);

/** The page port on PostgreSQL (see PageStore). */
export function pgPageStore(pool: pg.Pool): PageStore {
  return {
    async getPage(url) {
      const found = await row<PageRow>(pool, GET, [url]);
      return found === undefined ? undefined : storedPageFromRow(found);
    },
    async countPages() {
      const counts = await row<{ pages: number; indexed: number }>(pool, COUNT);
      return { pages: counts?.pages ?? 0, indexed: counts?.indexed ?? 0 };
    },
  };
}
