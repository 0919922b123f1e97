/**
 * The expression snippets mark a result's words by (fts-search.ts snippets). Pure. A result of
 * question search shows the words its lists matched (question-lists.ts) beside the query's own; when
 * the query's own expression is known to match no page, it is left out: FTS5 reports no instance of
 * a phrase in a part of an OR that does not match, so the snippets are the same, and each result's
 * lookup no longer seeks every word of it (a question's "how", "do", "i" among them).
 */
import { hasFilters } from './capture-filters.ts';
import type { HostFilters } from './fts-search.ts';

/**
 * `own`: the query's own expression, which `ownMatches` pages match within `filters` (counted);
 * `question`: what question search matched, undefined when it did not run.
 */
export function snippetMatch(
  own: string,
  ownMatches: number,
  filters: HostFilters,
  question: string | undefined,
): string {
  if (question === undefined) return own;
  // Within filters, none matching says nothing of pages outside them.
  return ownMatches === 0 && !hasFilters(filters) ? question : `(${own}) OR ${question}`;
}
