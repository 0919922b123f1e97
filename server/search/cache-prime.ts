/**
 * What the search's own connection reads after the start-up warm-up (SearchService.warmUp), so that its
 * page cache (PAGE_CACHE_KIB) is full before the first searches rather than filled by them. The warm-up
 * thread (term-warm-up.ts) reads the whole index into the OS page cache, but its connection is its own:
 * at 1M pages a restarted server's first pass of the bench's 200 searches still paid, per result, a
 * descent through the covering index of the results' facts (`meta`: 13-15 ms CPU for 100 ids against
 * 1.5 ms once cached), and for every page it read a page fault of the cache's fresh memory (14,000 in
 * six searches; about 12 µs each on this machine).
 *
 * The reads, in slices so that the event loop keeps turning between them: whole, in key order, the
 * small structures every search reads at random (the FTS5 index's page index `pages_fts_idx` and row
 * sizes `pages_fts_docsize`, which bm25 reads for every row it scores, and the anchor-text index);
 * and one entry in every PRIME_STRIDE of the covering index `pages_short_texts` (migration 0022), which
 * reads each of its interior pages (a 4 KB page holds about 15 entries, an interior page points to
 * about 14 of them) without its 290 MB of leaves. Pure: the SQL of each slice; search-service.ts runs them.
 */

/** Rows of a keyed read of row sizes per slice (about 10 bytes each). */
export const PRIME_SIZE_ROWS = 20_000;
/** Rows of a keyed read of FTS5 data blocks per slice (up to a 4 KB page each). */
export const PRIME_BLOCK_ROWS = 500;
/** Ids between two lookups in pages_short_texts: about the entries under one of its lowest interior pages. */
export const PRIME_STRIDE = 200;
/** Lookups per slice of pages_short_texts. */
export const PRIME_LOOKUPS = 100;

/**
 * A rowid table read whole in key order, `rows` at a time: each slice's SQL takes the last rowid read
 * (0 at first) and `rows`, and answers `last` (null past the end), `n` (rows read) and `bytes` (of their values).
 */
export interface KeyedRead {
  table: string;
  rows: number;
  sql: string;
}

/** Entries of an FTS5 page index per slice (a term and a page number each). */
export const PRIME_TERM_ROWS = 2000;

/**
 * The FTS5 page indexes (WITHOUT ROWID tables keyed by segment and term, a few MB at 1M pages), read
 * whole PRIME_TERM_ROWS entries at a time: each slice's SQL takes the last (segid, term) read ((-1, '')
 * at first) and the row count, and lists the entries' (segid, term) in key order.
 */
export const TERM_READS: readonly string[] = ['pages_fts_idx', 'anchors_fts_idx'].map(
  (table) => `SELECT segid, term FROM ${table} WHERE (segid, term) > (?, ?) ORDER BY segid, term LIMIT ?`,
);

/** The rowid tables read whole in slices (see the file comment), smallest first. */
export const KEYED_READS: readonly KeyedRead[] = (
  [
    ['pages_fts_docsize', 'length(sz)', PRIME_SIZE_ROWS],
    ['anchors_fts_docsize', 'length(sz)', PRIME_SIZE_ROWS],
    ['anchors_fts_data', 'length(block)', PRIME_BLOCK_ROWS],
  ] as const
).map(([table, width, rows]) => ({
  table,
  rows,
  sql: `SELECT max(k) AS last, count(*) AS n, sum(w) AS bytes FROM
    (SELECT rowid AS k, ${width} AS w FROM ${table} WHERE rowid > ? ORDER BY rowid LIMIT ?)`,
}));

/** The lookups of one slice of pages_short_texts (ids as a JSON array): its interior pages on the way. */
export const SHORT_TEXTS_LOOKUP_SQL = `SELECT count(*) AS n FROM json_each(?) AS j
  CROSS JOIN pages p INDEXED BY pages_short_texts ON p.id = j.value`;

/** The ids looked up in pages_short_texts (one per PRIME_STRIDE up to `maxId`), PRIME_LOOKUPS a slice. */
export function* shortTextLookups(maxId: number): Generator<number[], void, void> {
  let slice: number[] = [];
  for (let id = 1; id <= maxId; id += PRIME_STRIDE) {
    slice.push(id);
    if (slice.length === PRIME_LOOKUPS) {
      yield slice;
      slice = [];
    }
  }
  if (slice.length > 0) yield slice;
}
