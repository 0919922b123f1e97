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
  /** Labels of the seed that found it (or of its own seed): the label: it came from. */
  labels?: string[];
  /** What kind of document it is: 'html', 'pdf', 'text' or 'markdown'. */
  fileType?: string;
  /** For a PDF, the page its snippet comes from (1-based), else null. */
  page?: number | null;
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
  results: SearchResult[];
}

/** One completion. */
export interface Suggestion {
  text: string;
  kind: 'title' | 'term';
  /** The page, for title suggestions. */
  url?: string;
}

/** The answer to a suggest request. */
export interface SuggestResponse {
  query: string;
  suggestions: Suggestion[];
}
