/**
 * Pages as the crawler primary writes them on PostgreSQL: db/pages.ts's crawler methods (same names,
 * arguments and results), each answering a Promise, on a PgRunner. The columns are cleaned and derived as on
 * SQLite (the same `clean`, `joinHeadings` and identifiers). What differs: no full-text tables here (each
 * Lantern server derives its search index from the rows, in its DATA_DIR), and a page's place in the change
 * feed is pages.change_seq, moved by the table's trigger at every update (migrations-pg 0001), where SQLite's
 * statements set seq themselves; so markPageCurrent moves a page in the feed here and not on SQLite.
 * holdPage is upsertPage without the id answered: a held write (pg-runner.ts), for storePage.
 */
import { extractIdentifiers } from '../../shared/identifiers.ts';
import { clean, joinHeadings, storedPageFromRow, type PageRow } from '../page-row.ts';
import type { PageRecord, StoredPage } from '../pages.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const PAGE_COLUMNS = [
  'url',
  'final_url',
  'origin',
  'host',
  'seed_id',
  'status',
  'content_type',
  'title',
  'description',
  'headings',
  'body',
  'lang',
  'canonical',
  'fetched_at',
  'etag',
  'last_modified',
  'content_hash',
  'noindex',
  'nofollow',
  'noarchive',
  'nosnippet',
  'indexed',
  'idents',
  'link_density',
  'file_type',
  'page_starts',
];

// One statement whether the page is new or fetched again: the row keeps its id, and is no tombstone any more.
const UPSERT_TEXT = `INSERT INTO pages (${PAGE_COLUMNS.join(', ')}, removed) VALUES (${PAGE_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}, 0)
   ON CONFLICT (url) DO UPDATE SET ${PAGE_COLUMNS.slice(1)
     .map((c) => `${c} = excluded.${c}`)
     .join(', ')}, removed = 0`;
const UPSERT = statement('crawl.pages.upsert', `${UPSERT_TEXT} RETURNING id`);
// The same write when nobody waits for the id: held (pg-runner.ts), its page's links resolved by url at the end.
const STORE = statement('crawl.pages.store', UPSERT_TEXT);
const GONE = statement('crawl.pages.gone', 'UPDATE pages SET indexed = 0, status = $1, fetched_at = $2 WHERE url = $3');
const CURRENT = statement('crawl.pages.current', 'UPDATE pages SET fetched_at = $1 WHERE url = $2');
// A seed's pages in id order (as SQLite's pages_seed index gives them), each with the searchable text it
// takes out; the prefix of them within `maxBytes` ($3, null: no bound), one page at least, retired at once.
// Each row updated gets its own change_seq from the trigger.
const RETIRE = statement(
  'crawl.pages.retire',
  `WITH picked AS (
     SELECT id, row_number() OVER (ORDER BY id) AS n, sum(bytes) OVER (ORDER BY id) AS upto FROM (
       SELECT id, CASE WHEN indexed = 1 THEN octet_length(body) + octet_length(idents) ELSE 0 END AS bytes
       FROM pages WHERE seed_id = $1 ORDER BY id LIMIT $2) AS ofSeed)
   UPDATE pages SET indexed = 0, removed = 1, seed_id = NULL, body = '', idents = ''
   WHERE id IN (SELECT id FROM picked WHERE n = 1 OR $3::bigint IS NULL OR upto <= $3::bigint)`,
);
const COUNT = statement(
  'crawl.pages.count',
  'SELECT count(*) FILTER (WHERE removed = 0) AS pages, count(*) FILTER (WHERE indexed = 1) AS indexed FROM pages',
);
const GET = statement(
  'crawl.pages.get',
  `SELECT id, change_seq AS seq, url, final_url, origin, host, seed_id, status, content_type, title, description,
     headings, body, lang, canonical, fetched_at, etag, last_modified, content_hash, noindex, nofollow, noarchive,
     nosnippet, indexed
   FROM pages WHERE url = $1`,
);
const VALIDATORS = statement(
  'crawl.pages.validators',
  `SELECT etag, last_modified AS "lastModified" FROM pages
   WHERE url = $1 AND status BETWEEN 200 AND 299 AND (etag IS NOT NULL OR last_modified IS NOT NULL)`,
);

/** A page's row as the upsert's parameters: its columns cleaned and derived as on SQLite (db/pages.ts). */
function pageValues(p: PageRecord): unknown[] {
  const title = clean(p.title);
  const description = clean(p.description);
  const headings = joinHeadings(p.headings);
  const body = clean(p.body);
  return [
    p.url,
    p.finalUrl,
    p.origin,
    p.host,
    p.seedId,
    p.status,
    p.contentType,
    title,
    description,
    headings,
    body,
    p.lang,
    p.canonical,
    p.fetchedAt,
    p.etag,
    p.lastModified,
    p.contentHash,
    p.noindex ? 1 : 0,
    p.nofollow ? 1 : 0,
    p.noarchive ? 1 : 0,
    p.nosnippet ? 1 : 0,
    p.indexed ? 1 : 0,
    p.indexed ? extractIdentifiers(title, headings, description, body) : '',
    p.linkDensity == null ? null : String(p.linkDensity), // text: the one fractional column (pg-runner storedNumber)
    p.fileType ?? 'html',
    p.pageStarts ? JSON.stringify(p.pageStarts) : null,
  ];
}

/** The pages' queries the crawler runs, on `db` (each method as db/pages.ts's PageQueries documents it). */
export function pgPageWriteQueries(db: PgRunner) {
  return {
    /** Inserts or replaces (by url, keeping the row id) a page; returns its id. */
    async upsertPage(p: PageRecord): Promise<number> {
      const stored = await db.rows<{ id: number }>(UPSERT, pageValues(p));
      const id = stored[0]?.id;
      if (id === undefined)
        throw new Error(`pg-page-writes: the upsert of ${p.url} returned no row; check the pages table`);
      return id;
    },
    /**
     * Inserts or replaces a page as upsertPage does, answering nothing: in a transaction the write is held and
     * travels with the next statement that answers rows (no round trip of its own); the caller finds the id by
     * the page's url when it needs it (pg-link-targets.ts gatherLinksOf).
     */
    holdPage(p: PageRecord): Promise<void> {
      return db.write(STORE, pageValues(p));
    },
    /** A page that answered 404/410 or became noindex: out of search (indexed = 0), status updated. */
    markPageGone(url: string, status: number, fetchedAt: number): Promise<void> {
      return db.write(GONE, [status, fetchedAt, url]);
    },
    /** A conditional re-fetch answered 304: the stored page is current as of `fetchedAt`. */
    markPageCurrent(url: string, fetchedAt: number): Promise<void> {
      return db.write(CURRENT, [fetchedAt, url]);
    },
    /** Takes up to `limit` pages of a removed seed out of search, within `maxBytes` of text (one page at least); how many. */
    retireSeedPages(seedId: number, limit: number, maxBytes = Number.POSITIVE_INFINITY): Promise<number> {
      return db.changed(RETIRE, [seedId, limit, Number.isFinite(maxBytes) ? maxBytes : null]);
    },
    /** Stored pages (tombstones not counted), and how many of them are searchable. */
    async countPages(): Promise<{ pages: number; indexed: number }> {
      const counts = (await db.rows<{ pages: number; indexed: number }>(COUNT))[0];
      return { pages: counts?.pages ?? 0, indexed: counts?.indexed ?? 0 };
    },
    /** The stored page with this url, or undefined (`seq`: its change_seq). */
    async getPage(url: string): Promise<StoredPage | undefined> {
      const found = (await db.rows<PageRow>(GET, [url]))[0];
      return found === undefined ? undefined : storedPageFromRow(found);
    },
    /** The ETag and Last-Modified a stored page was served with, for a conditional re-fetch; undefined if it has neither. */
    async validators(url: string): Promise<{ etag: string | null; lastModified: string | null } | undefined> {
      return (await db.rows<{ etag: string | null; lastModified: string | null }>(VALIDATORS, [url]))[0];
    },
  };
}
