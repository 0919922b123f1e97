// Pure helpers to mark a query's words in a page's stored text, as text pieces (never markup).
import type { SnippetPiece } from './api.ts';

/**
 * The words of a search query worth marking: lower-cased, without operators (`site:…`, `-word`),
 * quotes or punctuation around them, at least 2 letters long, longest first (so "harbours" is marked
 * whole before "harbour").
 */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const raw of query.toLowerCase().split(/\s+/)) {
    if (raw === '' || raw.startsWith('-') || /^[a-z]+:/.test(raw)) continue;
    const word = raw.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word.length >= 2) words.add(word);
  }
  return [...words].sort((a, b) => b.length - a.length);
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Splits `text` into pieces, marking every place where a word of the text starts with one of `words`
 * (case-insensitive), the way the search matched the last word of a query as a prefix.
 */
export function highlightPieces(text: string, words: readonly string[]): SnippetPiece[] {
  if (words.length === 0 || text === '') return text === '' ? [] : [{ text, match: false }];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(?:${words.map(escapeRegExp).join('|')})`, 'giu');
  const pieces: SnippetPiece[] = [];
  let last = 0;
  for (const m of text.matchAll(pattern)) {
    const at = m.index ?? 0;
    if (at > last) pieces.push({ text: text.slice(last, at), match: false });
    pieces.push({ text: m[0], match: true });
    last = at + m[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), match: false });
  return pieces;
}
