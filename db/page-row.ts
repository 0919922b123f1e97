/**
 * A pages row and its text, as both engines write and read it: the control characters no stored text keeps,
 * the headings column (one heading per line), and the row as selected (flags 0/1) turned into a StoredPage.
 * Apart from db/pages.ts because PostgreSQL's page store (db/pg/pg-pages.ts, pg-page-writes.ts) shares these
 * and needs none of SQLite's prepared statements around them. Pure.
 */
import type { StoredPage } from './pages.ts';

// C0 control characters other than tab, newline and carriage return never belong in readable text;
// removing them also keeps the search snippet's \x01/\x02 match markers unambiguous.
const CONTROL_CHARS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

/** A page's text without C0 control characters (see CONTROL_CHARS); PostgreSQL's page writes clean it alike. */
export function clean(text: string): string {
  return text.replace(CONTROL_CHARS, '');
}

/** pages.headings holds one heading per line. */
export function joinHeadings(headings: string[]): string {
  return headings
    .map((h) =>
      clean(h)
        .replace(/[\r\n]+/g, ' ')
        .trim(),
    )
    .filter((h) => h.length > 0)
    .join('\n');
}

/** The headings column split back into its headings. */
export function splitHeadings(text: string): string[] {
  return text === '' ? [] : text.split('\n');
}

/** A pages row as the page queries select it (flags 0/1); PostgreSQL's page store selects the same shape. */
export interface PageRow {
  id: number;
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
  seq: number;
}

/** A pages row as `getPage` answers it: headings one per line split, flags as booleans (both engines). */
export function storedPageFromRow(r: PageRow): StoredPage {
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
    headings: splitHeadings(r.headings),
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
