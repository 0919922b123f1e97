import type { FtsSearch } from './fts-search.ts';
import type { ParsedQuery } from './query-parser.ts';

/** FTS5 prefix limits (see FtsPrefixes.apply). */
export const FTS_MIN_PREFIX_CHARS = 4;
export const FTS_PREFIX_MAX_TERMS = 50;
export const FTS_PREFIX_MAX_PAGES = 20_000;
/** How long a prefix's spread is reused, and how many are kept (see FtsPrefixes). */
export const PREFIX_SPREAD_TTL_MS = 60_000;
export const PREFIX_SPREAD_CACHE_MAX = 5000;

/**
 * Decides which prefix words the full-text index is asked for as prefixes. FTS5 (without a prefix
 * index) merges the posting lists of every word a prefix starts, on every evaluation, including the
 * per-row lookups for snippets; a wide prefix is searched as the whole word instead, and the title
 * index still matches it as a prefix.
 */
export class FtsPrefixes {
  readonly #fts: FtsSearch;
  readonly #spreads = new Map<string, { terms: number; pages: number; at: number }>();

  constructor(fts: FtsSearch) {
    this.#fts = fts;
  }

  /**
   * The query as FTS5 gets it: a prefix word keeps its prefix only if it has FTS_MIN_PREFIX_CHARS
   * letters and starts at most FTS_PREFIX_MAX_TERMS indexed words in at most FTS_PREFIX_MAX_PAGES
   * pages. Caveat of porter stemming: FTS5 stems the prefix too ("running"* is "run"*), so a
   * partial word whose stem differs from its letters may find little in bodies; titles, headings
   * and URLs (the title index) are unstemmed.
   */
  apply(q: ParsedQuery): ParsedQuery {
    const items = q.items.map((it) => {
      if (it.kind !== 'term' || !it.prefix) return it;
      if (it.folded.length >= FTS_MIN_PREFIX_CHARS) {
        const spread = this.#spread(it.folded);
        if (spread.terms <= FTS_PREFIX_MAX_TERMS && spread.pages <= FTS_PREFIX_MAX_PAGES) return it;
      }
      return { ...it, prefix: false };
    });
    return { ...q, items };
  }

  /**
   * Pages that the index words starting with `prefix` are in, at most (their pages summed, from the
   * spread #spread remembers); undefined when more than FTS_PREFIX_MAX_TERMS words start with it (the
   * sum read stops there). Give it the prefix as FTS5 searches it: the typed letters' stem
   * ("suwe"* finds "suwa": FTS5 stems the prefix to "suw"), else the bound may be too low.
   */
  pagesAtMost(prefix: string): number | undefined {
    const spread = this.#spread(prefix);
    return spread.terms <= FTS_PREFIX_MAX_TERMS ? spread.pages : undefined;
  }

  /**
   * FtsSearch.prefixSpread, remembered for PREFIX_SPREAD_TTL_MS: pages_fts_vocab counts a prefix's
   * pages by reading the posting lists of its words (about 0.4 ms at 100k pages), and the answer
   * only decides whether FTS5 gets the prefix, which a slightly stale count decides just as well.
   */
  #spread(prefix: string): { terms: number; pages: number } {
    const now = performance.now();
    const hit = this.#spreads.get(prefix);
    if (hit !== undefined && now - hit.at < PREFIX_SPREAD_TTL_MS) return hit;
    if (this.#spreads.size >= PREFIX_SPREAD_CACHE_MAX) this.#spreads.clear();
    const spread = { ...this.#fts.prefixSpread(prefix, FTS_PREFIX_MAX_TERMS), at: now };
    this.#spreads.set(prefix, spread);
    return spread;
  }
}
