/**
 * Page storage: the pages table as the crawler primary (the single writer) stores what it fetched,
 * and as the search index reads it back in `seq` order. Writes bump `pages.seq`, the cursor the
 * server's in-memory title index follows; the full-text indexes follow: a new page's entries are written
 * here (at once, or at the end of the writer's batch with `deferSearch`: migration 0018), a changed one's
 * by the UPDATE trigger (0002). Callers wrap multi-statement writes in `db.transaction`; nothing here opens
 * a transaction of its own.
 */
import type { Database } from 'better-sqlite3';
import { extractIdentifiers } from '../shared/identifiers.ts';
import type { FileType } from '../shared/enumerations.ts';
import { clean, joinHeadings, type PageRow, splitHeadings, storedPageFromRow } from './page-row.ts';

/** A fetched page as the crawler hands it over for storage. */
export interface PageRecord {
  url: string;
  finalUrl: string;
  origin: string;
  host: string;
  seedId: number | null;
  status: number;
  contentType: string | null;
  title: string;
  description: string;
  headings: string[];
  body: string;
  lang: string | null;
  canonical: string | null;
  fetchedAt: number;
  etag: string | null;
  lastModified: string | null;
  contentHash: string | null;
  noindex: boolean;
  nofollow: boolean;
  /** The page asked that its stored text not be shown (noarchive / nocache). */
  noarchive: boolean;
  /** The page asked that no text of it be shown in results (nosnippet). */
  nosnippet: boolean;
  indexed: boolean;
  /** Share of its text that is link text, 0..1 (a ranking signal); null or absent when not measured. */
  linkDensity?: number | null;
  /** 'html', 'pdf', 'text' or 'markdown' (absent: 'html'). */
  fileType?: FileType;
  /** A PDF's page starts in `body` (code points), else null or absent. */
  pageStarts?: number[] | null;
}

/** A stored page: the record plus its row id and write sequence number. */
export interface StoredPage extends PageRecord {
  id: number;
  seq: number;
}

/** The short fields of a page written after some `seq`: what the title index needs. */
export interface PageChange {
  id: number;
  url: string;
  title: string;
  description: string;
  headings: string[];
  host: string;
  seq: number;
  indexed: boolean;
  fetchedAt: number;
}

/** The page queries of one connection (see `pageQueries`). */
export interface PageQueries {
  /**
   * Inserts or replaces (by url, keeping the row id) a page; sets seq = max(seq) + 1; returns the id. A new
   * page's full-text entries are written at once, or with `deferSearch` by `writeSearchEntries` (see there).
   * `newId`: the id a new row takes (the search copy keeps PostgreSQL's, so every copy orders ties alike);
   * by default the next free one. A row that exists keeps its id.
   */
  upsertPage(p: PageRecord, newId?: number): number;
  /**
   * Writes the full-text entries of the pages inserted since the last call (with `deferSearch`): call it
   * last in the transaction that inserted them, after its other statements (migration 0018 says why).
   */
  writeSearchEntries(): void;
  /** Forgets the entries `writeSearchEntries` would write: their transaction rolled back. */
  discardSearchEntries(): void;
  /** A page that answered 404/410 or became noindex: out of search (indexed = 0), status updated, seq bumped. */
  markPageGone(url: string, status: number, fetchedAt: number): void;
  /** A conditional re-fetch answered 304: the stored page is current as of `fetchedAt` (text, index and seq unchanged). */
  markPageCurrent(url: string, fetchedAt: number): void;
  /**
   * Takes up to `limit` pages of a removed seed out of search (indexed = 0, body dropped, seq bumped so
   * that the title index follows, seed cleared so the next call finds the rest); returns how many. The
   * rows stay, as tombstones the search index reads. With `maxBytes`, it stops once the searchable text
   * of the pages taken out (body and identifiers, what the full-text indexes tokenize to delete) reaches
   * it, after one page at least: that text, not the count of pages, is what a chunk costs.
   */
  retireSeedPages(seedId: number, limit: number, maxBytes?: number): number;
  /** Stored pages (a removed seed's tombstones not counted), and how many of them are searchable. */
  countPages(): { pages: number; indexed: number };
  /** Pages written after `seq`, oldest write first, at most `limit` (indexed = false ones included). */
  pagesAfterSeq(seq: number, limit: number): PageChange[];
  /** The stored page with this url, or undefined. */
  getPage(url: string): StoredPage | undefined;
  /** The ETag and Last-Modified a stored page was served with, for a conditional re-fetch; undefined if it has neither. */
  validators(url: string): { etag: string | null; lastModified: string | null } | undefined;
  /** The highest seq, and the id of the page whose seq is `seq` (undefined if none): checks a search snapshot's cursor. */
  seqCheck(seq: number): { maxSeq: number; idAtSeq: number | undefined };
  /** The url, seq and searchability of the page with this id, or undefined: spot checks of a search snapshot. */
  pageSeq(id: number): { url: string; seq: number; indexed: boolean } | undefined;
}

/** A new page's full-text entries, waiting for `writeSearchEntries`. */
interface SearchEntry {
  id: number;
  url: string;
  title: string;
  headings: string;
  description: string;
  body: string;
  idents: string;
}

/**
 * Prepared statements for pages, created once per connection. `deferSearch`: new pages' full-text entries
 * wait for `writeSearchEntries` (the crawler primary's batches); otherwise each upsertPage writes its own.
 */
export function pageQueries(db: Database, opts: { deferSearch?: boolean } = {}): PageQueries {
  const nextSeq = '(SELECT coalesce(max(seq), 0) + 1 FROM pages)';
  const idOf = db.prepare<[string], number>('SELECT id FROM pages WHERE url = ?').pluck();
  const insert = db.prepare<Record<string, unknown>, { id: number }>(`
    INSERT INTO pages (id, url, final_url, origin, host, seed_id, status, content_type, title, description,
      headings, body, lang, canonical, fetched_at, etag, last_modified, content_hash, noindex, nofollow,
      noarchive, nosnippet, indexed, idents, link_density, seq, removed, file_type, page_starts)
    VALUES (@id, @url, @finalUrl, @origin, @host, @seedId, @status, @contentType, @title, @description,
      @headings, @body, @lang, @canonical, @fetchedAt, @etag, @lastModified, @contentHash, @noindex,
      @nofollow, @noarchive, @nosnippet, @indexed, @idents, @linkDensity, ${nextSeq}, 0, @fileType, @pageStarts)
    RETURNING id`);
  // A stored page fetched again: its row keeps its id, and the UPDATE trigger (0002) re-indexes changed text.
  const update = db.prepare<Record<string, unknown>>(`
    UPDATE pages SET
      final_url = @finalUrl, origin = @origin, host = @host, seed_id = @seedId, status = @status,
      content_type = @contentType, title = @title, description = @description, headings = @headings,
      body = @body, lang = @lang, canonical = @canonical, fetched_at = @fetchedAt, etag = @etag,
      last_modified = @lastModified, content_hash = @contentHash, noindex = @noindex, nofollow = @nofollow,
      noarchive = @noarchive, nosnippet = @nosnippet, indexed = @indexed, idents = @idents,
      link_density = @linkDensity, seq = ${nextSeq}, removed = 0, file_type = @fileType, page_starts = @pageStarts
    WHERE id = @id`);
  const ftsInsert = db.prepare<[number, string, string, string, string]>(
    'INSERT INTO pages_fts (rowid, title, headings, description, body) VALUES (?, ?, ?, ?, ?)',
  );
  const identsInsert = db.prepare<[number, string]>('INSERT INTO pages_idents (rowid, idents) VALUES (?, ?)');
  let pending: SearchEntry[] = [];
  /** Ids and urls of `pending`: a row whose entries wait must get them before a statement changes it. */
  const pendingIds = new Set<number>();
  const pendingUrls = new Set<string>();
  const discardSearch = () => {
    pending = [];
    pendingIds.clear();
    pendingUrls.clear();
  };
  const writeSearch = () => {
    const entries = pending;
    discardSearch();
    // Back to back, in ascending rowids (the ids of new rows): one segment per index for all of them.
    for (const e of entries) ftsInsert.run(e.id, e.title, e.headings, e.description, e.body);
    for (const e of entries) identsInsert.run(e.id, e.idents);
  };
  /** Before a statement that changes the row `id` or `url` (its UPDATE trigger reads the index): its entries. */
  const beforeChanging = (id: number | undefined, url?: string) => {
    if ((id !== undefined && pendingIds.has(id)) || (url !== undefined && pendingUrls.has(url))) writeSearch();
  };
  const gone = db.prepare<[number, number, string]>(
    `UPDATE pages SET indexed = 0, status = ?, fetched_at = ?, seq = ${nextSeq} WHERE url = ?`,
  );
  const current = db.prepare<[number, string]>('UPDATE pages SET fetched_at = ? WHERE url = ?');
  // octet_length reads a text's size from its record header, without loading the text (SQLite 3.43+).
  const ofSeed = db.prepare<[number, number], { id: number; bytes: number }>(
    `SELECT id, CASE WHEN indexed = 1 THEN octet_length(body) + octet_length(idents) ELSE 0 END AS bytes
     FROM pages WHERE seed_id = ? LIMIT ?`,
  );
  const retire = db.prepare<[number]>(
    `UPDATE pages SET indexed = 0, removed = 1, seed_id = NULL, body = '', idents = '', seq = ${nextSeq} WHERE id = ?`,
  );
  const retired = db
    .prepare<[], number>('SELECT count(*) FROM pages INDEXED BY pages_removed WHERE removed = 1')
    .pluck();
  const count = db.prepare<[], { pages: number; indexed: number }>(
    'SELECT count(*) AS pages, coalesce(sum(indexed), 0) AS indexed FROM pages INDEXED BY pages_indexed',
  );
  const after = db.prepare<
    [number, number],
    {
      id: number;
      url: string;
      title: string;
      description: string;
      headings: string;
      host: string;
      seq: number;
      indexed: number;
      fetched_at: number;
    }
  >(`SELECT id, url, title, description, headings, host, seq, indexed, fetched_at
      FROM pages WHERE seq > ? ORDER BY seq LIMIT ?`);
  const validatorsOf = db.prepare<[string], { etag: string | null; lastModified: string | null }>(
    `SELECT etag, last_modified AS lastModified FROM pages
     WHERE url = ? AND status BETWEEN 200 AND 299 AND (etag IS NOT NULL OR last_modified IS NOT NULL)`,
  );
  const maxSeq = db.prepare<[], { m: number | null }>('SELECT max(seq) AS m FROM pages');
  const atSeq = db.prepare<[number], { id: number }>('SELECT id FROM pages WHERE seq = ?');
  const seqOf = db.prepare<[number], { url: string; seq: number; indexed: number }>(
    'SELECT url, seq, indexed FROM pages WHERE id = ?',
  );
  const get = db.prepare<[string], PageRow>(
    `SELECT id, url, final_url, origin, host, seed_id, status, content_type, title, description, headings,
       body, lang, canonical, fetched_at, etag, last_modified, content_hash, noindex, nofollow, noarchive,
       nosnippet, indexed, seq
     FROM pages WHERE url = ?`,
  );

  return {
    upsertPage(p, newId) {
      const title = clean(p.title);
      const description = clean(p.description);
      const headings = joinHeadings(p.headings);
      const body = clean(p.body);
      const values = {
        url: p.url,
        finalUrl: p.finalUrl,
        origin: p.origin,
        host: p.host,
        seedId: p.seedId,
        status: p.status,
        contentType: p.contentType,
        title,
        description,
        headings,
        body,
        lang: p.lang,
        canonical: p.canonical,
        fetchedAt: p.fetchedAt,
        etag: p.etag,
        lastModified: p.lastModified,
        contentHash: p.contentHash,
        noindex: p.noindex ? 1 : 0,
        nofollow: p.nofollow ? 1 : 0,
        noarchive: p.noarchive ? 1 : 0,
        nosnippet: p.nosnippet ? 1 : 0,
        indexed: p.indexed ? 1 : 0,
        linkDensity: p.linkDensity ?? null,
        idents: p.indexed ? extractIdentifiers(title, headings, description, body) : '',
        fileType: p.fileType ?? 'html',
        pageStarts: p.pageStarts ? JSON.stringify(p.pageStarts) : null,
      };
      const id = idOf.get(p.url);
      if (id !== undefined) {
        beforeChanging(id);
        update.run({ ...values, id });
        return id;
      }
      const row = insert.get({ ...values, id: newId ?? null });
      if (row === undefined) throw new Error(`pages: insert of ${p.url} returned no row`);
      if (p.indexed) {
        pending.push({ id: row.id, url: p.url, title, headings, description, body, idents: values.idents });
        pendingIds.add(row.id);
        pendingUrls.add(p.url);
        if (!opts.deferSearch) writeSearch();
      }
      return row.id;
    },
    writeSearchEntries() {
      writeSearch();
    },
    discardSearchEntries() {
      discardSearch();
    },
    markPageGone(url, status, fetchedAt) {
      beforeChanging(undefined, url);
      gone.run(status, fetchedAt, url);
    },
    markPageCurrent(url, fetchedAt) {
      current.run(fetchedAt, url);
    },
    retireSeedPages(seedId, limit, maxBytes = Infinity) {
      let bytes = 0;
      let n = 0;
      for (const page of ofSeed.all(seedId, limit)) {
        if (n > 0 && bytes + page.bytes > maxBytes) break;
        beforeChanging(page.id);
        retire.run(page.id); // one by one: each its own seq, as the title index needs
        bytes += page.bytes;
        n++;
      }
      return n;
    },
    countPages() {
      const row = count.get();
      return { pages: (row?.pages ?? 0) - (retired.get() ?? 0), indexed: row?.indexed ?? 0 };
    },
    pagesAfterSeq(seq, limit) {
      return after.all(seq, limit).map((r) => ({
        id: r.id,
        url: r.url,
        title: r.title,
        description: r.description,
        headings: splitHeadings(r.headings),
        host: r.host,
        seq: r.seq,
        indexed: r.indexed === 1,
        fetchedAt: r.fetched_at,
      }));
    },
    getPage(url) {
      const r = get.get(url);
      return r === undefined ? undefined : storedPageFromRow(r);
    },
    validators(url) {
      return validatorsOf.get(url);
    },
    seqCheck(seq) {
      return { maxSeq: maxSeq.get()?.m ?? 0, idAtSeq: atSeq.get(seq)?.id };
    },
    pageSeq(id) {
      const r = seqOf.get(id);
      return r === undefined ? undefined : { url: r.url, seq: r.seq, indexed: r.indexed === 1 };
    },
  };
}
