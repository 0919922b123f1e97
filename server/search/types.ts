/**
 * The shapes of search answers, as docs/api.md (Search) defines them for GET /api/search and
 * GET /api/suggest: TypeBox schemas that the routes answer with, and the types derived from them that
 * the search service builds and the web app reads.
 */
import { Type, type Static } from '@sinclair/typebox';
import { FILE_TYPES } from '../../shared/enumerations.ts';
import { nullableInteger, nullableString, stringEnum } from '../../shared/json-schema.ts';

/** One piece of a snippet: plain text, `match` when it is a matched word (never HTML). */
export const SnippetPieceSchema = Type.Object({
  text: Type.String(),
  match: Type.Boolean(),
  /** On a matched word that ranked the page as a synonym: the typed word it stands for. */
  for: Type.Optional(Type.String()),
});
export type SnippetPiece = Static<typeof SnippetPieceSchema>;

/** One search result. */
export const SearchResultSchema = Type.Object({
  url: Type.String(),
  title: Type.String(),
  host: Type.String(),
  snippet: Type.Array(SnippetPieceSchema),
  /** Fused ranking score (higher is better; comparable only within one response). */
  score: Type.Number(),
  /** ISO 8601, UTC. */
  fetchedAt: Type.String(),
  /** Whether its stored text may be shown (GET /api/pages): false when the page said noarchive. */
  stored: Type.Boolean(),
  /**
   * On a site's last result of this page when more of that site's results come on later pages (a page
   * shows at most two results of a site while other sites' results can fill it, site-folding.ts): the
   * app links "More from this site" to its site: search. False when the results span one site.
   */
  moreFromSite: Type.Boolean(),
  /** In mode 'or', the query's words (a phrase in quotes) this result does not contain ("Missing: …"); else []. */
  missing: Type.Array(Type.String()),
  /** Labels of the seed that found it (or of its own seed): the label: it came from. */
  labels: Type.Array(Type.String()),
  /** What kind of document it is. */
  fileType: stringEnum(FILE_TYPES),
  /** For a PDF, the page its snippet comes from (1-based), else null. */
  page: nullableInteger(),
});
export type SearchResult = Static<typeof SearchResultSchema>;

/** A spelling correction of the query, from the index's own words (spelling.ts). */
export const CorrectionSchema = Type.Object({
  /** The corrected query text (operators and the other words as typed). */
  query: Type.String(),
  /**
   * true: the query as typed matched nothing, so the results are the correction's ("Showing results
   * for …; search instead for …"); false: the query found little and the correction is offered ("Did you mean …").
   */
  applied: Type.Boolean(),
});
export type Correction = Static<typeof CorrectionSchema>;

/** The answer to a search. */
export const SearchResponseSchema = Type.Object({
  /** The query as searched (trimmed, cut to 1000 characters). */
  query: Type.String(),
  /** Matching pages; counted up to a cap (see SearchService), so a very large total is a lower bound. */
  total: Type.Integer(),
  tookMs: Type.Number(),
  /** 'and': every word matched; 'or': nothing matched them all, so pages matching any are shown. */
  mode: stringEnum(['and', 'or']),
  /** Said to the person when the query was changed or relaxed (OR fallback, typo correction, cut). */
  notice: nullableString(),
  /** True while the title index is still being built (results may miss title-only matches). */
  indexing: Type.Boolean(),
  /** A spelling correction, when the query found nothing or little and a close query finds more; else null. */
  correction: Type.Union([CorrectionSchema, Type.Null()]),
  results: Type.Array(SearchResultSchema),
});
export type SearchResponse = Static<typeof SearchResponseSchema>;

/** One suggestion: a query completion ('term': search for `text`) or a page ('title': open `url`). */
export const SuggestionSchema = Type.Object({
  text: Type.String(),
  kind: stringEnum(['title', 'term']),
  /** The page, for title suggestions. */
  url: Type.Optional(Type.String()),
  /** The page's site (host[:port]), for title suggestions. */
  host: Type.Optional(Type.String()),
});
export type Suggestion = Static<typeof SuggestionSchema>;

/** The answer to a suggest request. */
export const SuggestResponseSchema = Type.Object({ query: Type.String(), suggestions: Type.Array(SuggestionSchema) });
export type SuggestResponse = Static<typeof SuggestResponseSchema>;

/** The same suggestions in the OpenSearch format a browser reads (`/api/suggest?format=opensearch`): [query, [text, ...]]. */
export const OpenSearchSuggestionsSchema = Type.Tuple([Type.String(), Type.Array(Type.String())]);
