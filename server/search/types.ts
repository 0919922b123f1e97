/**
 * The shapes of search answers, as docs/api.md (Search) defines them for GET /api/search and
 * GET /api/suggest.
 */
import type { SnippetPiece } from './snippet.ts';

/** One search result. */
export interface SearchResult {
  url: string;
  title: string;
  host: string;
  snippet: SnippetPiece[];
  /** Fused ranking score (higher is better; comparable only within one response). */
  score: number;
  /** ISO 8601, UTC. */
  fetchedAt: string;
  /** Whether its stored text may be shown (GET /api/pages): false when the page said noarchive. */
  stored: boolean;
  /**
   * The third or later result of its site on this page, when the matches span several sites: the app
   * folds it under that site's first results ("more from this site"), so one site cannot fill a page.
   */
  folded: boolean;
}

/** A spelling correction of the query, from the index's own words (spelling.ts). */
export interface Correction {
  /** The corrected query text (operators and the other words as typed). */
  query: string;
  /**
   * true: the query as typed matched nothing, so the results are the correction's ("Showing results
   * for …; search instead for …"); false: the query found little and the correction is offered ("Did you mean …").
   */
  applied: boolean;
}

/** The answer to a search. */
export interface SearchResponse {
  /** The query as searched (trimmed, cut to 1000 characters). */
  query: string;
  /** Matching pages; counted up to a cap (see SearchService), so a very large total is a lower bound. */
  total: number;
  tookMs: number;
  /** 'and': every word matched; 'or': nothing matched them all, so pages matching any are shown. */
  mode: 'and' | 'or';
  /** Said to the person when the query was changed or relaxed (OR fallback, typo correction, cut). */
  notice: string | null;
  /** True while the title index is still being built (results may miss title-only matches). */
  indexing: boolean;
  /** A spelling correction, when the query found nothing or little and a close query finds more; else null. */
  correction: Correction | null;
  results: SearchResult[];
}

/** One suggestion: a query completion ('term': search for `text`) or a page ('title': open `url`). */
export interface Suggestion {
  text: string;
  kind: 'title' | 'term';
  /** The page, for title suggestions. */
  url?: string;
  /** The page's site (host[:port]), for title suggestions. */
  host?: string;
}

/** The answer to a suggest request. */
export interface SuggestResponse {
  query: string;
  suggestions: Suggestion[];
}
