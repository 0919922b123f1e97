/**
 * Which query words weigh nothing in bm25, so a ranking can leave them out of its expression.
 *
 * FTS5's bm25 gives a phrase the weight idf = log((N - n + 0.5) / (n + 0.5)), N pages of which n
 * hold the phrase, and raises any idf <= 0 to 1e-6: a phrase in half the pages or more adds at most
 * 2.2e-6 to a page's score (k1 + 1 = 2.2 times that idf). Yet bm25 learns n by reading the phrase's
 * every match each time a query ranks, so such a word cost 40-50 ms a query at 1M pages (and 130 ms
 * within title, headings and description), whatever the LIMIT. Ranking the pages that match the whole
 * query by the other words' bm25 gives the same order (bm25 is a sum over phrases), without that read.
 *
 * Whether a phrase is common is decided once and kept COMMON_TTL_MS: a sample of the newest
 * SAMPLE_ROWS pages first (a phrase in less than SAMPLE_SHARE of them is taken as not common and
 * stays in the ranking, which is then exact, only slower); else its matches are counted up to N/2.
 * A phrase known to be in fewer pages than half (an upper bound: a prefix's spread, or the start-up
 * warm-up's list of the words in the most pages, which a word outside it cannot outnumber) is not
 * common without a count: that read was what a restarted server's first searches still paid for.
 * The counting is injected (TermCounts, SQL in fts-search.ts); the rule and the cache are pure.
 */

/** How long a phrase's verdict is reused (pages arrive slowly next to this), and how many are kept. */
export const COMMON_TTL_MS = 10 * 60_000;
export const COMMON_CACHE_MAX = 5000;
/** The newest pages a phrase is sampled in before its matches are counted. */
export const SAMPLE_ROWS = 4096;
/**
 * A phrase in less than this share of the sample is not counted (taken as not common: its ranking
 * stays exact). Counting a phrase in 30-45 % of 1M pages read its 300-450k matches (15-40 ms, once
 * per COMMON_TTL_MS) to learn it is not common; a sample of 4096 pages is off by more than 5 points
 * only when the newest pages differ from the rest that much.
 */
export const SAMPLE_SHARE = 0.45;

/** The counts CommonTerms needs from the full-text index (FtsSearch implements them). */
export interface TermCounts {
  /** Pages in the full-text index: bm25's N. */
  pageCount(): number;
  /** Pages among the newest `rows` that match `expression`. */
  newestCount(expression: string, rows: number): number;
  /** Pages that match `expression`, counted no further than `cap`. */
  count(expression: string, cap: number): number;
}

/** True when bm25 gives a phrase in `n` of `pages` pages the floor weight (idf <= 0, see the file comment). */
export function idfIsFloor(n: number, pages: number): boolean {
  return pages > 0 && 2 * n >= pages;
}

/** Phrases' commonness over one full-text index, cached (see the file comment). */
export class CommonTerms {
  readonly #counts: TermCounts;
  readonly #now: () => number;
  readonly #cache = new Map<string, { common: boolean; at: number }>();
  #ceiling: { words: ReadonlySet<string>; pages: number; at: number } | undefined;

  /** `now`: a clock in ms (tests inject one). */
  constructor(counts: TermCounts, now: () => number = () => performance.now()) {
    this.#counts = counts;
    this.#now = now;
  }

  /**
   * True when `expression` (one FTS5 phrase, with or without a column filter) is in half the pages or
   * more. `key`: what the verdict is kept under when not the expression itself (CandidateLists keys a
   * word by its index word, so that every spelling of it shares one verdict, and the warm-up's).
   * `atMost`: pages the phrase is known to be in at most; when that is fewer than half, it is not
   * common and nothing is counted (nor kept: the bound is as cheap to ask again).
   */
  isCommon(expression: string, key = expression, atMost?: number): boolean {
    const now = this.#now();
    const hit = this.#cache.get(key);
    if (hit !== undefined && now - hit.at < COMMON_TTL_MS) return hit.common;
    if (atMost !== undefined && !idfIsFloor(atMost, this.#counts.pageCount())) return false;
    const common = this.#decide(expression);
    if (this.#cache.size >= COMMON_CACHE_MAX) this.#cache.clear();
    this.#cache.set(key, { common, at: now });
    return common;
  }

  /**
   * Takes a verdict learned elsewhere (the start-up warm-up, term-warm-up.ts) as if `isCommon` had
   * just decided it under `key`: it is reused until COMMON_TTL_MS. A verdict already cached is kept; none is
   * taken when the cache is full (the warm-up never crowds out verdicts of searches).
   */
  remember(key: string, common: boolean): void {
    if (this.#cache.has(key) || this.#cache.size >= COMMON_CACHE_MAX) return;
    this.#cache.set(key, { common, at: this.#now() });
  }

  /**
   * Takes the start-up warm-up's list of the index words in the most pages (term-warm-up.ts): every
   * other index word is in at most `pages` pages (the fewest of the list's), which `pagesAtMost` tells
   * until COMMON_TTL_MS, like any verdict (pages keep arriving).
   */
  rememberCeiling(words: Iterable<string>, pages: number): void {
    this.#ceiling = { words: new Set(words), pages, at: this.#now() };
  }

  /**
   * Pages the index word `word` is in at most, by the warm-up's list (rememberCeiling): undefined for
   * a word on it (its own verdicts say), and when no list is known or it is older than COMMON_TTL_MS.
   */
  pagesAtMost(word: string): number | undefined {
    const c = this.#ceiling;
    if (c === undefined || this.#now() - c.at >= COMMON_TTL_MS || c.words.has(word)) return undefined;
    return c.pages;
  }

  #decide(expression: string): boolean {
    return decideCommon(this.#counts, expression);
  }
}

/**
 * The rule (see the file comment): a sample of the newest pages, then a count up to half the pages.
 * Exported so the warm-up decides with the counts its thread read exactly as a search would.
 */
export function decideCommon(counts: TermCounts, expression: string): boolean {
  const pages = counts.pageCount();
  if (pages === 0) return false;
  const rows = Math.min(SAMPLE_ROWS, pages);
  if (counts.newestCount(expression, rows) < SAMPLE_SHARE * rows) return false;
  const half = Math.ceil(pages / 2);
  return idfIsFloor(counts.count(expression, half), pages);
}
