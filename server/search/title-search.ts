/**
 * One search of the title index, its cost bounded: MiniSearch scores every page a word matches, so
 * the words are taken rarest first while their postings (with the prefix's expansion) add up to at
 * most a budget (POSTINGS_BUDGET). A word that does not fit is left out (or searched without its
 * prefix), and the answer then says it is not `complete`: a hit did not prove it has every word.
 * Pure over the index it is given (title-index.ts owns the index and its updates).
 */
import type { SearchResult } from 'minisearch';
import type { TermSearch } from './term-search.ts';

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

/** How a title-index search matches (see searchTerms). */
export interface TitleSearchOptions {
  /** Match the last word as a prefix (3+ letters). */
  prefixLast: boolean;
  limit: number;
  /** ORed unless AND. */
  combineWith?: 'OR' | 'AND';
  /** false: no typo tolerance on the last word (a word still being typed is a prefix). Default true. */
  fuzzyLast?: boolean;
  /** Only these fields (default all: title, headings, URL words). */
  fields?: Array<'title' | 'headings' | 'url'>;
}

/** Words of at least this length are matched with typos (one edit up to 7 letters, two from 8). */
export const FUZZY_MIN_CHARS = 5;
/** Shortest last word matched as a prefix (a 1-2 letter prefix would score thousands of pages). */
export const MIN_PREFIX_CHARS = 3;
/** Most postings the words (and prefix) of one title-index search may bring in (see searchTerms). */
export const POSTINGS_BUDGET = 1000;
/** Words with fewer postings than this are also matched fuzzily (typos make rare or absent words). */
export const RARE_POSTINGS = 3;

/**
 * The best `limit` pages of `ms` for the folded `terms` (each hit says which words it matched), with
 * a prefix match on the last term when `prefixLast`, and typo tolerance on terms of FUZZY_MIN_CHARS
 * or more that are (almost) absent from the index, within `budget` postings (see the file comment).
 */
export function searchTerms(
  ms: TermSearch,
  terms: readonly string[],
  opts: TitleSearchOptions,
  budget: number,
): { hits: TitleHit[]; complete: boolean } {
  if (terms.length === 0 || ms.documentCount === 0) return { hits: [], complete: terms.length > 0 };
  const fuzzyLast = opts.fuzzyLast ?? true;
  // Rarest words first, each taken while the query's postings stay within the budget.
  const planned = terms
    .map((term, i) => {
      const last = i === terms.length - 1;
      const postings = ms.postings(term);
      const wantsPrefix = opts.prefixLast && last && term.length >= MIN_PREFIX_CHARS;
      const withPrefix = wantsPrefix ? ms.prefixPostings(term, budget) : postings;
      const fuzzy: number | false =
        term.length >= FUZZY_MIN_CHARS && postings < RARE_POSTINGS && (fuzzyLast || !last) ? 0.2 : false;
      return { term, postings, withPrefix, fuzzy };
    })
    .sort((a, b) => a.postings - b.postings);
  const queries: Array<{ queries: string[]; prefix: boolean; fuzzy: number | false }> = [];
  let spent = 0;
  for (const p of planned) {
    if (spent + p.postings > budget) continue;
    const prefix = p.withPrefix > p.postings && spent + p.withPrefix <= budget;
    spent += prefix ? p.withPrefix : p.postings;
    queries.push({ queries: [p.term], prefix, fuzzy: p.fuzzy });
  }
  const complete = queries.length === terms.length;
  if (queries.length === 0) return { hits: [], complete };
  const results: SearchResult[] = ms.search(
    { combineWith: opts.combineWith ?? 'OR', queries },
    opts.fields === undefined ? { maxFuzzy: 2 } : { maxFuzzy: 2, fields: opts.fields },
  );
  const hits = results.slice(0, opts.limit).map((r) => {
    let titleTerms = 0;
    for (const fields of Object.values(r.match))
      if (fields.includes('title') || fields.includes('headings')) titleTerms++;
    return { id: r.id as number, score: r.score, queryTerms: r.queryTerms, terms: r.terms, titleTerms };
  });
  return { hits, complete };
}
