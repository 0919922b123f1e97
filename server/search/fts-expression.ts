/**
 * FTS5 MATCH strings built from a parsed query. Pure. Every piece of text a person typed is put
 * inside a double-quoted FTS5 string (with embedded quotes doubled), so it is only ever tokenized,
 * never read as syntax; the only operators here (AND, OR, NOT, parentheses, a trailing * for a
 * prefix) are our own. Items without any letter or digit never get here (the parser drops them),
 * so no empty phrase can turn an AND into "nothing matches".
 */
import type { ParsedQuery, QueryItem } from './query-parser.ts';

/** Corrections for mistyped words: folded word → close words that exist in the collection. */
export type Corrections = ReadonlyMap<string, readonly string[]>;
/**
 * Prefix words spelled out: a prefix item's folded text → the index words it stands for (prefix-terms.ts),
 * for statements that only list or count matches. Not for ranking or snippets: ORed words are several
 * phrases to bm25 and snippet(), where the prefix is one.
 */
export type PrefixWords = ReadonlyMap<string, readonly string[]>;

/** An FTS5 string literal holding `text` (tokenized by the table's tokenizer, never parsed as syntax). */
export function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

/**
 * One item as an FTS5 expression for the main index; a term with corrections becomes an OR group, and so
 * does a prefix term that `prefixWords` spells out (its index words ORed: the same matches).
 */
export function itemExpression(item: QueryItem, corrections?: Corrections, prefixWords?: PrefixWords): string {
  if (item.kind === 'phrase') return quote(item.words.join(' '));
  const spelled = item.prefix ? prefixWords?.get(item.folded) : undefined;
  const bases = spelled === undefined ? [quote(item.text) + (item.prefix ? '*' : '')] : spelled.map(quote);
  const alternatives = corrections?.get(item.folded) ?? [];
  if (alternatives.length === 0 && bases.length === 1) return bases[0];
  return `(${[...bases, ...alternatives.map(quote)].join(' OR ')})`;
}

/**
 * The main-index expression for the query: items ANDed (mode 'and') or ORed (mode 'or'), minus the
 * excluded items. With `columns`, the items must match within those columns (the exclusions still
 * apply to every column). With `prefixWords`, the prefix words it spells out are their index words ORed
 * (for listing and counting matches only, see PrefixWords). Undefined when there is nothing to search.
 */
export function matchExpression(
  q: ParsedQuery,
  mode: 'and' | 'or',
  corrections?: Corrections,
  columns?: readonly string[],
  prefixWords?: PrefixWords,
): string | undefined {
  if (q.items.length === 0) return undefined;
  const items = q.items.map((it) => itemExpression(it, corrections, prefixWords));
  let positive = `(${items.join(mode === 'and' ? ' AND ' : ' OR ')})`;
  if (columns !== undefined && columns.length > 0) positive = `({${columns.join(' ')}} : ${positive})`;
  const excluded = excludedExpression(q);
  return excluded === undefined ? positive : `${positive} NOT ${excluded}`;
}

/** The excluded items ORed, or undefined when nothing is excluded. */
export function excludedExpression(q: ParsedQuery): string | undefined {
  if (q.excluded.length === 0) return undefined;
  return `(${q.excluded.map((it) => itemExpression(it)).join(' OR ')})`;
}

/** The phrases ANDed (what the title index cannot check), or undefined when there are none. */
export function phrasesExpression(q: ParsedQuery): string | undefined {
  const phrases = q.items.filter((it) => it.kind === 'phrase');
  if (phrases.length === 0) return undefined;
  return `(${phrases.map((it) => itemExpression(it)).join(' AND ')})`;
}

/**
 * The exact-identifier index expression: the query's identifiers (capture_output, git-rebase) ANDed
 * or ORed, or undefined when the query has none.
 */
export function identExpression(q: ParsedQuery, mode: 'and' | 'or'): string | undefined {
  const idents = q.items.flatMap((it) =>
    it.kind === 'term' && it.ident !== undefined ? [quote(it.ident) + (it.prefix ? '*' : '')] : [],
  );
  if (idents.length === 0) return undefined;
  return `(${idents.join(mode === 'and' ? ' AND ' : ' OR ')})`;
}
