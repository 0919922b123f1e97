/**
 * Pages as the server reads them on PostgreSQL: one stored page by URL, and the counts /api/status shows.
 * The crawler writes pages (its PostgreSQL side comes with the crawl store); `seq` is read from change_seq,
 * the change feed's sequence (migrations-pg 0001).
 */
import type pg from 'pg';
import type { StoredPage } from '../pages.ts';
import type { PageStore } from '../server-store.ts';
import { row, statement } from './pool.ts';

/** A pages row as selected below (flags 0/1, as on SQLite). */
interface PgPageRow {
  id: number;
  seq: number;
  url: string;
  final_url: string;
  origin: string;
  host: string;
  seed_id: number | null;
  status: number;
  content_type: string | null;
  title: string;
  description: string;
  headings: string;
  body: string;
  lang: string | null;
  canonical: string | null;
  fetched_at: number;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  noindex: number;
  nofollow: number;
  noarchive: number;
  nosnippet: number;
  indexed: number;
}

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

/** A row as db/pages.ts getPage answers it (headings one per line, flags as booleans). */
function toStoredPage(r: PgPageRow): StoredPage {
  return {
    id: r.id,
    seq: r.seq,
    url: r.url,
    finalUrl: r.final_url,
    origin: r.origin,
    host: r.host,
    seedId: r.seed_id,
    status: r.status,
    contentType: r.content_type,
    title: r.title,
    description: r.description,
    headings: r.headings === '' ? [] : r.headings.split('\n'),
    body: r.body,
    lang: r.lang,
    canonical: r.canonical,
    fetchedAt: r.fetched_at,
    etag: r.etag,
    lastModified: r.last_modified,
    contentHash: r.content_hash,
    noindex: r.noindex === 1,
    nofollow: r.nofollow === 1,
    noarchive: r.noarchive === 1,
    nosnippet: r.nosnippet === 1,
    indexed: r.indexed === 1,
  };
}

/** The page port on PostgreSQL (see PageStore). */
export function pgPageStore(pool: pg.Pool): PageStore {
  return {
    async getPage(url) {
      const found = await row<PgPageRow>(pool, GET, [url]);
      return found === undefined ? undefined : toStoredPage(found);
    },
    async countPages() {
      const counts = await row<{ pages: number; indexed: number }>(pool, COUNT);
      return { pages: counts?.pages ?? 0, indexed: counts?.indexed ?? 0 };
    },
  };
}
