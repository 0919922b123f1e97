/**
 * The words a result lacks, for a query run in OR mode (no page has them all): each result says
 * "Missing: …" as the large engines do. One check per query item over the page's ids only (a rowid
 * lookup each, fts-search.ts), so at most MAX_ITEMS small lookups per page of results.
 */
import { itemExpression } from './fts-expression.ts';
import type { FtsSearch } from './fts-search.ts';
import type { QueryItem } from './query-parser.ts';

/** How an item is named to the person: the word as typed, or a phrase in quotes. */
export function itemLabel(item: QueryItem): string {
  return item.kind === 'term' ? item.text : `"${item.words.join(' ')}"`;
}

/** For each of `ids`, the labels of the `items` it does not contain (in query order). */
export function missingWords(
  fts: FtsSearch,
  items: readonly QueryItem[],
  ids: readonly number[],
): Map<number, string[]> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  const seen = new Set<string>();
  for (const item of items) {
    const label = itemLabel(item);
    if (seen.has(label.toLowerCase())) continue;
    seen.add(label.toLowerCase());
    const having = fts.matching(itemExpression(item), ids);
    for (const id of ids) if (!having.has(id)) out.get(id)?.push(label);
  }
  return out;
}
