/**
 * The SQL side of search: top-k, counts, existence checks and snippets over the FTS5 indexes
 * (pages_fts, pages_idents; see db/migrations/0002-search.sql). Every query is bounded by a LIMIT
 * or by a given list of row ids; ranking happens in SQLite (ORDER BY rank = weighted bm25), never by
 * reading all matches into JavaScript. MATCH strings come from fts-expression.ts only.
 */
import type { Database, Statement } from 'better-sqlite3';
import { StatementCache } from './statement-cache.ts';
import type { SiteFilter } from './query-parser.ts';
import { captureFilterSql, type CaptureFilters } from './capture-filters.ts';

/** Marks around matched words in snippets (control characters never stored in page text). */
export const MARK_START = '\u0001';
export const MARK_END = '\u0002';
/** Tokens of context in a snippet. */
const SNIPPET_TOKENS = 28;

/** Host filters of a query (and the label: and filetype: filters, capture-filters.ts). */
export interface HostFilters extends CaptureFilters {
  sites: readonly SiteFilter[];
  excludedSites: readonly SiteFilter[];
}

/** What the result list shows of a page, plus its ranking signals. */
export interface PageMeta {
  id: number;
  url: string;
  title: string;
  host: string;
  description: string;
  fetchedAt: number;
  inlinks: number;
  /** The page asked that its stored text not be shown (noarchive). */
  noarchive: boolean;
  /** The page asked that no text of it be shown in results (nosnippet). */
  nosnippet: boolean;
  /** Hash of its stored title and text (pages with the same one are the same content); null if unknown. */
  contentHash: string | null;
  /** Share of its text that is link text (0..1), null when not measured (stored before migration 0013). */
  linkDensity: number | null;
}

/** The short texts of a page that suggestions read, with its signals. */
export interface ShortTexts {
  url: string;
  host: string;
  title: string;
  headings: string[];
  inlinks: number;
  linkDensity: number | null;
}

const NO_FILTERS: HostFilters = { sites: [], excludedSites: [] };
const STATEMENT_CACHE_MAX = 256;

/** SQL matching pages.host (alias p) against one site filter, with its parameters. */
function siteClause(site: SiteFilter): { sql: string; params: Array<string | number> } {
  if (site.port !== undefined) {
    const hp = `${site.name}:${site.port}`;
    return { sql: '(p.host = ? OR substr(p.host, ?) = ?)', params: [hp, -(hp.length + 1), `.${hp}`] };
  }
  const name = site.name;
  return {
    sql: '(p.host = ? OR substr(p.host, ?) = ? OR substr(p.host, 1, ?) = ? OR instr(p.host, ?) > 0)',
    params: [name, -(name.length + 1), `.${name}`, name.length + 1, `${name}:`, `.${name}:`],
  };
}

/** The JOIN and WHERE additions for host filters (empty when there are none). */
export function hostFilterSql(filters: HostFilters): { join: string; where: string; params: Array<string | number> } {
  const capture = captureFilterSql(filters);
  if (filters.sites.length === 0 && filters.excludedSites.length === 0 && capture.where === '')
    return { join: '', where: '', params: [] };
  const params: Array<string | number> = [];
  let where = capture.where;
  params.push(...capture.params);
  if (filters.sites.length > 0) {
    const clauses = filters.sites.map(siteClause);
    where += ` AND (${clauses.map((c) => c.sql).join(' OR ')})`;
    for (const c of clauses) params.push(...c.params);
  }
  if (filters.excludedSites.length > 0) {
    const clauses = filters.excludedSites.map(siteClause);
    where += ` AND NOT (${clauses.map((c) => c.sql).join(' OR ')})`;
    for (const c of clauses) params.push(...c.params);
  }
  return { join: ' JOIN pages p ON p.id = pages_fts.rowid', where, params };
}

/** The smallest and the largest of some (at least one) ids. */
function rowidRange(ids: readonly number[]): [number, number] {
  let lo = ids[0];
  let hi = ids[0];
  for (const id of ids) {
    if (id < lo) lo = id;
    if (id > hi) hi = id;
  }
  return [lo, hi];
}

/** An SQLite varint (big-endian, 7 bits a byte, the 9th byte whole) at the start of `b`. */
function readVarint(b: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < Math.min(8, b.length); i++) {
    n = n * 128 + (b[i] & 0x7f);
    if ((b[i] & 0x80) === 0) return n;
  }
  return b.length > 8 ? n * 256 + b[8] : n;
}

/**
 * The SQL of FtsSearch.meta (one parameter: the ids as a JSON array): a result's facts and ranking signals, from
 * the covering index pages_short_texts (migration 0022) rather than the wide rows with their bodies, so that a
 * restarted server's first searches read a small index, not a page of the table per candidate.
 */
export function metaSql(frontierInlinks: boolean): string {
  const inlinks = frontierInlinks
    ? '(SELECT f.inlinks FROM frontier f WHERE f.url = p.url)'
    : '(SELECT t.inlinks FROM link_targets t WHERE t.url = p.url)';
  return `SELECT p.id, p.url, p.title, p.host, p.description, p.fetched_at AS fetchedAt,
      coalesce(${inlinks}, 0) AS inlinks, p.noarchive, p.nosnippet, p.content_hash AS contentHash,
      p.link_density AS linkDensity
    FROM json_each(?) AS j CROSS JOIN pages p INDEXED BY pages_short_texts ON p.id = j.value
    WHERE p.indexed = 1`;
}

/**
 * Link targets (ids as a JSON array, then a limit) to the searchable pages at their urls, in the targets' order
 * (FtsSearch.anchorTop): url to id by the url index, searchable or not by the covering index pages_short_texts,
 * never the wide rows, which a restarted server would read from the disk one page each.
 */
export const ANCHOR_PAGES_SQL = `SELECT j.key AS at, p.id FROM json_each(?) AS j
  CROSS JOIN link_targets t ON t.id = j.value
  CROSS JOIN pages p ON p.url = t.url
  WHERE EXISTS (SELECT 1 FROM pages q INDEXED BY pages_short_texts WHERE q.id = p.id AND q.indexed = 1)
  ORDER BY j.key LIMIT ?`;

/** Full-text queries over one connection, with prepared statements cached by SQL text. */
export class FtsSearch {
  readonly #statements: StatementCache;

  /** Wraps a connection whose schema includes migration 0002. */
  constructor(db: Database) {
    this.#statements = new StatementCache(db, STATEMENT_CACHE_MAX);
  }

  #prepare(sql: string): Statement {
    return this.#statements.prepare(sql);
  }

  /** The best `k` page ids for `match`, best first (weighted bm25), within the host filters. */
  top(match: string, k: number, filters: HostFilters = NO_FILTERS): number[] {
    const f = hostFilterSql(filters);
    const sql = `SELECT pages_fts.rowid AS id FROM pages_fts${f.join} WHERE pages_fts MATCH ?${f.where} ORDER BY rank LIMIT ?`;
    return (this.#prepare(sql).all(match, ...f.params, k) as Array<{ id: number }>).map((r) => r.id);
  }

  /**
   * The best `k` page ids for `match` by bm25 with the given column weights (title, headings,
   * description, body) instead of the table's, within the host filters.
   */
  topWeighted(
    match: string,
    k: number,
    weights: readonly [number, number, number, number],
    filters: HostFilters = NO_FILTERS,
  ): number[] {
    const f = hostFilterSql(filters);
    const w = weights.map((x) => Number(x).toFixed(2)).join(', ');
    const sql = `SELECT pages_fts.rowid AS id FROM pages_fts${f.join} WHERE pages_fts MATCH ?${f.where} ORDER BY bm25(pages_fts, ${w}) LIMIT ?`;
    return (this.#prepare(sql).all(match, ...f.params, k) as Array<{ id: number }>).map((r) => r.id);
  }

  /**
   * The best `k` page ids by weighted bm25 among the `sample` most recently stored matches only
   * (rowid order, newest first): a bounded cost however many pages match.
   */
  topOfNewest(match: string, k: number, sample: number, filters: HostFilters = NO_FILTERS): number[] {
    const f = hostFilterSql(filters);
    const sql = `SELECT id FROM (SELECT pages_fts.rowid AS id, pages_fts.rank AS r FROM pages_fts${f.join}
      WHERE pages_fts MATCH ?${f.where} ORDER BY pages_fts.rowid DESC LIMIT ?) ORDER BY r LIMIT ?`;
    return (this.#prepare(sql).all(match, ...f.params, sample, k) as Array<{ id: number }>).map((r) => r.id);
  }

  /** The ids of the `sample` most recently stored matches (rowid order, newest first), within the host filters. */
  newestIds(match: string, sample: number, filters: HostFilters = NO_FILTERS): number[] {
    const f = hostFilterSql(filters);
    const sql = `SELECT pages_fts.rowid AS id FROM pages_fts${f.join} WHERE pages_fts MATCH ?${f.where}
      ORDER BY pages_fts.rowid DESC LIMIT ?`;
    return this.#prepare(sql)
      .pluck()
      .all(match, ...f.params, sample) as number[];
  }

  /**
   * The best `k` of `ids` by the table's weighted bm25 for `match`, best first; ids that do not
   * match `match` are left out. Only the matches within the ids' rowid range are read (FTS5 seeks to
   * it), and bm25 is computed for the given ids only: the inner LIMIT keeps SQLite from handing
   * ORDER BY rank to FTS5, which would score every match first. Ties in rowid order, the newest
   * first with `newestFirst` (as topOfNewest lists them), else the oldest first (as top does).
   */
  rankAmong(match: string, ids: readonly number[], k: number, newestFirst: boolean): number[] {
    if (ids.length === 0) return [];
    const [lo, hi] = rowidRange(ids);
    const sql = `SELECT id FROM (SELECT pages_fts.rowid AS id, pages_fts.rank AS r FROM pages_fts
      WHERE pages_fts MATCH ? AND pages_fts.rowid >= ? AND pages_fts.rowid <= ?
        AND +pages_fts.rowid IN (SELECT value FROM json_each(?))
      ORDER BY pages_fts.rowid ${newestFirst ? 'DESC' : 'ASC'} LIMIT ?) ORDER BY r LIMIT ?`;
    return this.#prepare(sql).pluck().all(match, lo, hi, JSON.stringify(ids), ids.length, k) as number[];
  }

  /**
   * Pages in the full-text index, as bm25 counts them (its N): the first varint of FTS5's averages
   * record (pages_fts_data id 1, "nRow"); 0 for an index nothing was ever stored in.
   */
  pageCount(): number {
    const block = this.#prepare('SELECT block FROM pages_fts_data WHERE id = 1').pluck().get() as Buffer | undefined;
    if (block === undefined || block.length === 0) return 0;
    return readVarint(block);
  }

  /** Pages among the newest `rows` (by rowid) that match `match`. */
  newestCount(match: string, rows: number): number {
    return this.#prepare(`SELECT count(*) FROM pages_fts
      WHERE pages_fts MATCH ? AND pages_fts.rowid > (SELECT coalesce(max(id), 0) FROM pages) - ?`)
      .pluck()
      .get(match, rows) as number;
  }

  /**
   * The best `k` page ids matching `match` that also contain the identifiers of `identMatch` exactly
   * (pages_idents), best first.
   */
  topExact(match: string, identMatch: string, k: number, filters: HostFilters = NO_FILTERS): number[] {
    const f = hostFilterSql(filters);
    const sql = `SELECT pages_fts.rowid AS id FROM pages_fts${f.join} WHERE pages_fts MATCH ?
      AND +pages_fts.rowid IN (SELECT rowid FROM pages_idents WHERE pages_idents MATCH ?)${f.where} ORDER BY rank LIMIT ?`;
    return (this.#prepare(sql).all(match, identMatch, ...f.params, k) as Array<{ id: number }>).map((r) => r.id);
  }

  /** How many pages match, counting no further than `cap` (so a common word stays cheap). */
  count(match: string, cap: number, filters: HostFilters = NO_FILTERS): number {
    const f = hostFilterSql(filters);
    const sql = `SELECT count(*) AS n FROM (SELECT 1 FROM pages_fts${f.join} WHERE pages_fts MATCH ?${f.where} LIMIT ?)`;
    return (this.#prepare(sql).get(match, ...f.params, cap) as { n: number }).n;
  }

  /**
   * The ids of the pages that match (within the host filters), unordered, no more than `cap`: when
   * a query has few matches, which of any ids match is then known without a lookup per id.
   */
  matchIds(match: string, cap: number, filters: HostFilters = NO_FILTERS): number[] {
    const f = hostFilterSql(filters);
    const sql = `SELECT pages_fts.rowid AS id FROM pages_fts${f.join} WHERE pages_fts MATCH ?${f.where} LIMIT ?`;
    return this.#prepare(sql)
      .pluck()
      .all(match, ...f.params, cap) as number[];
  }

  /**
   * How far a prefix reaches: indexed words (stems) starting with `prefix` (counting no further than
   * `maxTerms` + 1), and the pages holding them (summed, so a page may count more than once).
   */
  prefixSpread(prefix: string, maxTerms: number): { terms: number; pages: number } {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const row = this.#prepare(`SELECT count(*) AS terms, coalesce(sum(doc), 0) AS pages
      FROM (SELECT doc FROM pages_fts_vocab WHERE term >= ? AND term < ? LIMIT ?)`).get(prefix, end, maxTerms + 1) as {
      terms: number;
      pages: number;
    };
    return row;
  }

  /**
   * The index words (stems) starting with `prefix`, in term order, at most `max`; undefined when more
   * start with it. pages_fts_vocab reads each word's posting list for its counts on the way (about 3 ms
   * for 31 words at 1M pages), so callers keep the answer (prefix-terms.ts).
   */
  termsStartingWith(prefix: string, max: number): string[] | undefined {
    const end = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
    const words = this.#prepare('SELECT term FROM pages_fts_vocab WHERE term >= ? AND term < ? LIMIT ?')
      .pluck()
      .all(prefix, end, max + 1) as string[];
    return words.length > max ? undefined : words;
  }

  /**
   * The full-text index's structure record (pages_fts_data id 10: its segments and a counter of writes),
   * which every write to the index changes: what was learned from the index's words holds while it is
   * the same. Undefined for an index nothing was ever written to.
   */
  indexVersion(): Uint8Array | undefined {
    return this.#prepare('SELECT block FROM pages_fts_data WHERE id = 10').pluck().get() as Buffer | undefined;
  }

  /** True when at least one page matches. */
  exists(match: string): boolean {
    return this.#prepare('SELECT 1 FROM pages_fts WHERE pages_fts MATCH ? LIMIT 1').get(match) !== undefined;
  }

  /**
   * `columns` (SQL over pages_fts) of the rows among `ids` that match `match`, by the cheaper of two
   * plans. Without a prefix, one rowid lookup per id (CROSS JOIN keeps json_each outside): about
   * 30 µs each at 100k pages, where scanning a common word's matches costs milliseconds. With a
   * prefix, FTS5 merges the posting lists of every word the prefix starts on each lookup (about
   * 1 ms each at 100k pages), so the matches are scanned once instead and filtered by id (`+rowid`
   * keeps SQLite from turning the IN list back into lookups).
   */
  #byIds(columns: string, match: string, ids: readonly number[]): unknown[] {
    if (/"\*/.test(match)) {
      // Only the matches within the ids' rowid range are read (FTS5 seeks to it): the newest pages'
      // ids are close together, where a common prefix's matches span the whole index.
      const [lo, hi] = rowidRange(ids);
      return this.#prepare(`SELECT pages_fts.rowid AS id, ${columns} FROM pages_fts
        WHERE pages_fts MATCH ? AND pages_fts.rowid >= ? AND pages_fts.rowid <= ?
          AND +pages_fts.rowid IN (SELECT value FROM json_each(?))`).all(match, lo, hi, JSON.stringify(ids));
    }
    return this.#prepare(`SELECT j.value AS id, ${columns} FROM json_each(?) AS j
      CROSS JOIN pages_fts ON pages_fts.rowid = j.value WHERE pages_fts MATCH ?`).all(JSON.stringify(ids), match);
  }

  /** The ids among `ids` that match `match`. */
  matching(match: string, ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    const rows = this.#byIds('1 AS one', match, ids) as Array<{ id: number }>;
    return new Set(rows.map((r) => r.id));
  }

  /**
   * Snippets (with MARK_START/MARK_END around matched words) for the pages among `ids` that match
   * `match`: from the body when a match is there, else from the description or the headings, else
   * the opening of the body (never the title: the result shows it already).
   */
  snippets(match: string, ids: readonly number[]): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    const m = `char(1), char(2), '…', ${SNIPPET_TOKENS}`;
    // One pass reads all three: a second one for pages matched outside their body would look them up
    // (or, with a prefix, scan every match) again, where the short columns cost little to cut.
    const rows = this.#byIds(
      `snippet(pages_fts, 3, ${m}) AS body, snippet(pages_fts, 2, ${m}) AS description, snippet(pages_fts, 1, ${m}) AS headings`,
      match,
      ids,
    ) as Array<{ id: number; body: string; description: string; headings: string }>;
    for (const r of rows) {
      if (r.body.includes(MARK_START)) {
        out.set(r.id, r.body);
        continue;
      }
      // The words matched only in other columns: show the description or headings passage if it has one.
      const pick = [r.description, r.headings].find((x) => x.includes(MARK_START));
      out.set(r.id, pick ?? (r.body === '' ? r.description : r.body));
    }
    return out;
  }

  /** The ids among `ids` whose host passes the filters. */
  withinHosts(ids: readonly number[], filters: HostFilters): Set<number> {
    const f = hostFilterSql(filters);
    const rows = this.#prepare(
      `SELECT p.id FROM json_each(?) AS j CROSS JOIN pages p ON p.id = j.value WHERE 1${f.where}`,
    ).all(JSON.stringify(ids), ...f.params) as Array<{ id: number }>;
    return new Set(rows.map((r) => r.id));
  }

  /**
   * What the result list shows of the given pages, and their ranking signals, by id. `inlinks`: the
   * distinct pages linking to it from their content (link_targets), or with `frontierInlinks` the
   * crawler's older count of links seen to its URL (every link, navigation included). See metaSql.
   */
  meta(ids: readonly number[], frontierInlinks = false): Map<number, PageMeta> {
    const out = new Map<number, PageMeta>();
    if (ids.length === 0) return out;
    const rows = this.#prepare(metaSql(frontierInlinks)).all(JSON.stringify(ids)) as Array<
      Omit<PageMeta, 'noarchive' | 'nosnippet'> & { noarchive: number; nosnippet: number }
    >;
    for (const r of rows) out.set(r.id, { ...r, noarchive: r.noarchive === 1, nosnippet: r.nosnippet === 1 });
    return out;
  }

  /** Titles, headings and signals of the given searchable pages (what suggestions read), by id. */
  shortTexts(ids: readonly number[]): Map<number, ShortTexts> {
    const out = new Map<number, ShortTexts>();
    if (ids.length === 0) return out;
    const rows = this.#prepare(`SELECT p.id, p.url, p.host, p.title, p.headings, p.link_density AS linkDensity,
        coalesce((SELECT t.inlinks FROM link_targets t WHERE t.url = p.url), 0) AS inlinks
      FROM json_each(?) AS j CROSS JOIN pages p INDEXED BY pages_short_texts ON p.id = j.value WHERE p.indexed = 1`).all(
      JSON.stringify(ids),
    ) as Array<Omit<ShortTexts, 'headings'> & { id: number; headings: string }>;
    for (const r of rows) out.set(r.id, { ...r, headings: r.headings === '' ? [] : r.headings.split('\n') });
    return out;
  }

  /**
   * The best `k` searchable pages by the words of the links pointing to them (anchors_fts, bm25),
   * for `match` (an expression over the one column).
   */
  anchorTop(match: string, k: number): number[] {
    // The ranking alone first (FTS5 keeps a top-k), then its few targets mapped to searchable pages, in order.
    const targets = (
      this.#prepare('SELECT rowid AS id FROM anchors_fts WHERE anchors_fts MATCH ? ORDER BY rank LIMIT ?').all(
        match,
        2 * k,
      ) as Array<{ id: number }>
    ).map((r) => r.id);
    if (targets.length === 0) return [];
    const rows = this.#prepare(ANCHOR_PAGES_SQL).all(JSON.stringify(targets), k) as Array<{ id: number }>;
    return rows.map((r) => r.id);
  }

  /** How many link targets' anchor text matches `match` (an expression over the one column), counting no further than `cap`. */
  anchorCount(match: string, cap: number): number {
    return (
      this.#prepare('SELECT count(*) AS n FROM (SELECT 1 FROM anchors_fts WHERE anchors_fts MATCH ? LIMIT ?)').get(
        match,
        cap,
      ) as { n: number }
    ).n;
  }

  /** The pages among `ids` whose anchor text matches `match`. */
  anchorMatching(match: string, ids: readonly number[]): Set<number> {
    if (ids.length === 0) return new Set();
    const rows = this.#prepare(`SELECT p.id FROM json_each(?) AS j CROSS JOIN pages p ON p.id = j.value
      CROSS JOIN link_targets t ON t.url = p.url CROSS JOIN anchors_fts ON anchors_fts.rowid = t.id
      WHERE anchors_fts MATCH ?`).all(JSON.stringify(ids), match) as Array<{ id: number }>;
    return new Set(rows.map((r) => r.id));
  }

  /** The opening of a page's body (for results that matched only in the title index). */
  bodyStart(id: number, chars: number): string {
    const row = this.#prepare('SELECT substr(body, 1, ?) AS s FROM pages WHERE id = ?').get(chars, id) as
      | { s: string }
      | undefined;
    return row?.s ?? '';
  }

  /**
   * Where each of the given pages says what it is for: its title, description and the first `chars`
   * characters of its body (a man page's NAME line, a module's one-line summary), by id.
   */
  openings(ids: readonly number[], chars: number): Map<number, string> {
    const out = new Map<number, string>();
    if (ids.length === 0) return out;
    const rows = this.#prepare(`SELECT p.id, p.title || ' ' || p.description || ' ' || substr(p.body, 1, ?) AS t
      FROM json_each(?) AS j CROSS JOIN pages p ON p.id = j.value WHERE p.indexed = 1`).all(
      chars,
      JSON.stringify(ids),
    ) as Array<{ id: number; t: string }>;
    for (const r of rows) out.set(r.id, r.t);
    return out;
  }
}
