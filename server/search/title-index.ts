/**
 * The title index: MiniSearch in the server's memory over the short fields of every searchable page
 * (title, the first headings, URL words), for prefix and typo-tolerant matching and suggestions.
 * Page bodies are not here (they are in FTS5). Descriptions are not either: measured at 10k
 * generated pages, a 20-word description took the index from 3.3 to 4.9 KB of heap per page and
 * doubled its build time, and its words are common ones; FTS5 searches descriptions (bm25 weight 3).
 * MiniSearch keeps a Map per term and field, so memory grows with every distinct word: headings
 * are capped per page for the same reason.
 *
 * It follows the pages table through `pages.seq`: `catchUp` reads rows past its cursor in chunks,
 * adding, replacing (a re-crawled page) or discarding (indexed = 0) entries. The first catch-up is
 * the build at start; it yields to the event loop with setImmediate between chunks, so the server
 * answers (from FTS5 and a partial title index) while it runs. Later calls pick up new writes; a
 * missed notification only delays an update until the next call.
 */
import MiniSearch from 'minisearch';
import { getPublicSuffix } from 'tldts';
import type { SearchResult } from 'minisearch';
import type { PageChange, PageQueries } from '../../db/pages.ts';
import { foldCase } from './identifiers.ts';

/** A page as the title index holds it. */
interface TitleDoc {
  id: number;
  title: string;
  headings: string;
  url: string;
}

/** One page found in the title index. */
export interface TitleHit {
  id: number;
  score: number;
  /** Folded query words that matched (exactly, by prefix or fuzzily). */
  queryTerms: string[];
  /** Words of the page that matched. */
  terms: string[];
  /** How many of the matched words are in the title or headings. */
  titleTerms: number;
}

/** Field weights of the title index: a title word counts most. */
export const TITLE_BOOST = { title: 3, headings: 2, url: 1.5 } as const;
/** Rows read per chunk during build and refresh. */
export const CHUNK_ROWS = 500;
/** Headings are capped (the first ones, h1-h3 in page order): memory is per distinct word. */
const MAX_HEADINGS = 8;
const MAX_HEADING_CHARS = 300;
const MAX_TERM_CHARS = 40;
const URL_NOISE = new Set(['http', 'https', 'www', 'html', 'htm', 'php', 'aspx', 'index', 'com', 'org', 'net']);

const tokenize = MiniSearch.getDefault('tokenize') as (text: string) => string[];

/** Folds a term; drops empty and overlong ones (identically at index and query time). */
function processTerm(term: string): string | null {
  const t = foldCase(term);
  return t.length === 0 || t.length > MAX_TERM_CHARS ? null : t;
}

/**
 * The words of a URL worth matching: host labels below the public suffix ("docs example" for
 * docs.example.co.uk) and path segments, without scheme, www, file types or numbers. The suffix
 * would be a word of nearly every page (a huge posting list for nothing).
 */
export function urlWords(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '';
  }
  const suffix = getPublicSuffix(u.hostname);
  const host = suffix !== null && suffix !== u.hostname && u.hostname.endsWith(`.${suffix}`)
    ? u.hostname.slice(0, -suffix.length - 1)
    : u.hostname;
  const path = (() => {
    try {
      return decodeURIComponent(u.pathname);
    } catch {
      return u.pathname;
    }
  })();
  return `${host} ${path}`
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !URL_NOISE.has(w.toLowerCase()) && !/^\d+$/.test(w))
    .join(' ');
}

/** The title-index entry of a page. */
function toDoc(p: PageChange): TitleDoc {
  return {
    id: p.id,
    title: p.title,
    headings: p.headings.slice(0, MAX_HEADINGS).join('\n').slice(0, MAX_HEADING_CHARS),
    url: urlWords(p.url),
  };
}

type TermData = Map<number, Map<number, number>>;

/** MiniSearch plus term completion straight from its term tree (no scoring of documents). */
class TermSearch extends MiniSearch<TitleDoc> {
  /** Documents holding the term, weighted by field boost (discarded ones may still count until vacuuming). */
  #weigh(data: TermData): number {
    let w = 0;
    for (const [fieldId, docs] of data) w += docs.size * (FIELD_WEIGHT_BY_ID[fieldId] ?? 1);
    return w;
  }

  /** True when some current (not discarded) document holds the term; usually the first one looked at. */
  #alive(data: TermData): boolean {
    for (const docs of data.values()) for (const shortId of docs.keys()) if (this._documentIds.has(shortId)) return true;
    return false;
  }

  /** Indexed words starting with `prefix`, most widespread first (weighted by field boost). */
  completions(prefix: string, limit: number, fuzzy: number): Array<{ term: string; weight: number }> {
    const found = new Map<string, number>();
    let scanned = 0;
    for (const [term, data] of this._index.atPrefix(prefix)) {
      if (++scanned > MAX_COMPLETION_SCAN) break; // a 1-2 letter prefix starts thousands of words
      if (this.#alive(data)) found.set(term, this.#weigh(data));
    }
    if (fuzzy > 0 && found.size === 0) {
      for (const [term, [data]] of this._index.fuzzyGet(prefix, fuzzy)) {
        if (this.#alive(data)) found.set(term, this.#weigh(data) / 2);
      }
    }
    return [...found].map(([term, weight]) => ({ term, weight }))
      .sort((a, b) => b.weight - a.weight || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))
      .slice(0, limit);
  }

  /** Postings (document × field) of an indexed word; 0 when absent. */
  postings(term: string): number {
    const data = this._index.get(term);
    if (data === undefined) return 0;
    let n = 0;
    for (const docs of data.values()) n += docs.size;
    return n;
  }

  /** Postings of all indexed words starting with `prefix`, counting no further than `cap`. */
  prefixPostings(prefix: string, cap: number): number {
    let n = 0;
    for (const [, data] of this._index.atPrefix(prefix)) {
      for (const docs of data.values()) n += docs.size;
      if (n > cap) return n;
    }
    return n;
  }

  /** Indexed words within `distance` edits of `term`, closest first, then most widespread. */
  similar(term: string, distance: number, limit: number): string[] {
    const found: Array<{ term: string; distance: number; weight: number }> = [];
    for (const [t, [data, d]] of this._index.fuzzyGet(term, distance)) {
      if (t !== term && this.#alive(data)) found.push({ term: t, distance: d, weight: this.#weigh(data) });
    }
    return found.sort((a, b) => a.distance - b.distance || b.weight - a.weight || a.term.localeCompare(b.term))
      .slice(0, limit).map((f) => f.term);
  }
}

const FIELDS = ['title', 'headings', 'url'] as const;
const FIELD_WEIGHT_BY_ID: number[] = FIELDS.map((f) => TITLE_BOOST[f]);

/** Words of at least this length are matched with typos (one edit up to 7 letters, two from 8). */
export const FUZZY_MIN_CHARS = 5;
/** Shortest last word matched as a prefix (a 1-2 letter prefix would score thousands of pages). */
export const MIN_PREFIX_CHARS = 3;
/** Most postings the words (and prefix) of one title-index search may bring in (see `search`). */
export const POSTINGS_BUDGET = 1000;
/** Most indexed words looked at when completing a prefix. */
export const MAX_COMPLETION_SCAN = 3000;
/** Words with fewer postings than this are also matched fuzzily (typos make rare or absent words). */
export const RARE_POSTINGS = 3;

/** The in-memory title index of one server (see the file comment). */
export class TitleIndex {
  readonly #pages: PageQueries;
  readonly #chunkRows: number;
  readonly #budget: number;
  #ms: TermSearch;
  #cursor = 0;
  #ready = false;
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;
  readonly #completionCache = new Map<string, string[]>();
  #completionCursor = -1;

  /**
   * An empty index reading from `pages`; nothing happens until `catchUp` is called. `chunkRows` and
   * `postingsBudget` default to CHUNK_ROWS and POSTINGS_BUDGET.
   */
  constructor(pages: PageQueries, opts: { chunkRows?: number; postingsBudget?: number } = {}) {
    this.#pages = pages;
    this.#chunkRows = opts.chunkRows ?? CHUNK_ROWS;
    this.#budget = opts.postingsBudget ?? POSTINGS_BUDGET;
    this.#ms = new TermSearch({
      fields: [...FIELDS],
      storeFields: [],
      processTerm,
      searchOptions: { boost: { ...TITLE_BOOST }, processTerm },
    });
  }

  /** True once the index has caught up with the pages table at least once. */
  get ready(): boolean {
    return this.#ready;
  }

  /** The seq of the last page change applied. */
  get cursor(): number {
    return this.#cursor;
  }

  /** Pages in the index. */
  get size(): number {
    return this.#ms.documentCount;
  }

  /**
   * Applies changes past the cursor: one chunk now, and if more are waiting, the rest in later
   * chunks via setImmediate (so a large backlog never blocks the event loop). While a chunked
   * catch-up is under way, further calls do nothing (it will get there).
   */
  catchUp(): void {
    if (this.#closed || this.#scheduled !== undefined) return;
    if (this.#step()) this.#schedule();
  }

  /** Like catchUp, but the first chunk too runs on a later turn of the event loop (the build at start). */
  catchUpLater(): void {
    if (this.#closed || this.#scheduled !== undefined) return;
    this.#schedule();
  }

  #schedule(): void {
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined;
      if (this.#closed) return;
      if (this.#step()) this.#schedule();
    });
  }

  /** Applies one chunk; true when a full chunk was read (more may be waiting). */
  #step(): boolean {
    const rows = this.#pages.pagesAfterSeq(this.#cursor, this.#chunkRows);
    const fresh: TitleDoc[] = [];
    for (const row of rows) {
      if (this.#ms.has(row.id)) this.#ms.discard(row.id);
      if (row.indexed) fresh.push(toDoc(row));
    }
    if (fresh.length > 0) this.#ms.addAll(fresh);
    if (rows.length > 0) this.#cursor = rows[rows.length - 1].seq;
    const more = rows.length === this.#chunkRows;
    if (!more) this.#ready = true;
    return more;
  }

  /** Stops any scheduled catch-up chunk. */
  close(): void {
    this.#closed = true;
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
  }

  /** The folded terms the title index searches for these words (same tokenizer and folding as the index). */
  queryTerms(words: readonly string[]): string[] {
    return [...new Set(tokenize(words.join(' ')).map(processTerm).filter((t): t is string => t !== null))];
  }

  /**
   * The best `limit` pages for `words` (ORed unless `combineWith` says AND; each hit says which
   * words it matched), with a prefix match on the last word when `prefixLast` (3+ letters), and
   * typo tolerance on words of FUZZY_MIN_CHARS or more that are (almost) absent from the index
   * (not on the last one when `fuzzyLast` is false: a word still being typed is a prefix).
   *
   * Cost is bounded: MiniSearch scores every page a word matches, so words are taken rarest first
   * while their postings (with the prefix's expansion) add up to at most POSTINGS_BUDGET; a word
   * that does not fit is left out (or searched without its prefix), and when one is left out
   * `complete` is false: a hit then did not prove it contains every word.
   */
  search(
    words: readonly string[],
    opts: { prefixLast: boolean; limit: number; combineWith?: 'OR' | 'AND'; fuzzyLast?: boolean },
  ): { hits: TitleHit[]; complete: boolean } {
    const terms = this.queryTerms(words);
    if (terms.length === 0 || this.#ms.documentCount === 0) return { hits: [], complete: terms.length > 0 };
    const fuzzyLast = opts.fuzzyLast ?? true;
    // Rarest words first, each taken while the query's postings stay within the budget.
    const planned = terms.map((term, i) => {
      const last = i === terms.length - 1;
      const postings = this.#ms.postings(term);
      const wantsPrefix = opts.prefixLast && last && term.length >= MIN_PREFIX_CHARS;
      const withPrefix = wantsPrefix ? this.#ms.prefixPostings(term, this.#budget) : postings;
      const fuzzy: number | false = term.length >= FUZZY_MIN_CHARS && postings < RARE_POSTINGS && (fuzzyLast || !last) ? 0.2 : false;
      return { term, postings, withPrefix, fuzzy };
    }).sort((a, b) => a.postings - b.postings);
    const queries: Array<{ queries: string[]; prefix: boolean; fuzzy: number | false }> = [];
    let spent = 0;
    for (const p of planned) {
      if (spent + p.postings > this.#budget) continue;
      const prefix = p.withPrefix > p.postings && spent + p.withPrefix <= this.#budget;
      spent += prefix ? p.withPrefix : p.postings;
      queries.push({ queries: [p.term], prefix, fuzzy: p.fuzzy });
    }
    const complete = queries.length === terms.length;
    if (queries.length === 0) return { hits: [], complete };
    const results: SearchResult[] = this.#ms.search(
      { combineWith: opts.combineWith ?? 'OR', queries },
      { maxFuzzy: 2 },
    );
    const hits = results.slice(0, opts.limit).map((r) => {
      let titleTerms = 0;
      for (const fields of Object.values(r.match)) if (fields.includes('title') || fields.includes('headings')) titleTerms++;
      return { id: r.id as number, score: r.score, queryTerms: r.queryTerms, terms: r.terms, titleTerms };
    });
    return { hits, complete };
  }

  /** Indexed words one edit (two from 8 letters) away from the folded `word`: candidate corrections of a typo. */
  corrections(word: string, limit: number): string[] {
    const w = processTerm(word);
    if (w === null || w.length < FUZZY_MIN_CHARS) return [];
    return this.#ms.similar(w, w.length >= 8 ? 2 : 1, limit);
  }

  /**
   * Indexed words completing `prefix` (folded), most widespread first (among the first
   * MAX_COMPLETION_SCAN in alphabetical order); when none does, words one or two edits from a
   * prefix of 5+ letters (a typo).
   */
  complete(prefix: string, limit: number): string[] {
    const p = processTerm(prefix);
    if (p === null) return [];
    // Short prefixes scan thousands of words: their answers are kept until the index changes.
    const cacheable = p.length <= 2;
    const key = `${p}\u0000${limit}`;
    if (cacheable) {
      if (this.#completionCursor !== this.#cursor) this.#completionCache.clear();
      this.#completionCursor = this.#cursor;
      const cached = this.#completionCache.get(key);
      if (cached !== undefined) return cached;
    }
    const fuzzy = p.length >= 8 ? 2 : p.length >= 5 ? 1 : 0;
    const terms = this.#ms.completions(p, limit, fuzzy).map((c) => c.term);
    if (cacheable && this.#completionCache.size < 5000) this.#completionCache.set(key, terms);
    return terms;
  }
}
