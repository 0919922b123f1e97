/**
 * Identifiers: words joined by "_" or "-" (capture_output, git-rebase, __init__, well-known).
 * The main full-text index splits them into their parts; these helpers pick them out so that the
 * exact-identifier index (pages_idents, see db/migrations/0002-search.sql) can match them whole.
 * Pure: used by db/pages.ts when storing a page and by the query parser when reading a query.
 */

/** Most identifiers kept per page (a page of generated symbols must not bloat the index). */
export const MAX_IDENTS_PER_PAGE = 2000;
/** Longer "identifiers" are noise (base64, hashes) and are not kept. */
export const MAX_IDENT_LENGTH = 64;

const HAS_WORD_CHAR = /[\p{L}\p{N}]/u;

/** Lower-cases and strips diacritics the way the unicode61 tokenizer (remove_diacritics 2) does. */
export function foldCase(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Returns `word` as the exact-identifier index would hold it (folded, leading and trailing "-"
 * removed), or undefined when it is not an identifier: it must consist of letters, digits, "_"
 * and "-" only, contain "_" or "-", and contain at least one letter or digit.
 */
export function asIdentifier(word: string): string | undefined {
  const w = foldCase(word).replace(/^-+|-+$/g, '');
  if (w.length === 0 || w.length > MAX_IDENT_LENGTH) return undefined;
  if (!/^[\p{L}\p{N}_-]+$/u.test(w) || !/[_-]/.test(w) || !HAS_WORD_CHAR.test(w)) return undefined;
  return w;
}

/** A joiner: the only characters that can make a word an identifier. */
const JOINER = /[_-]/g;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Whether the code point at `i` of `text` is a letter, digit, "_" or "-" (part of an identifier run). */
function isRunChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0x80)
    return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x5f || c === 0x2d;
  return WORD_CHAR.test(String.fromCodePoint(text.codePointAt(i)!));
}

/** Where the run of identifier characters that contains index `i` starts (surrogate pairs kept whole). */
function runStart(text: string, i: number): number {
  let j = i;
  while (j > 0) {
    const low = text.charCodeAt(j - 1);
    const k = low >= 0xdc00 && low <= 0xdfff && j >= 2 ? j - 2 : j - 1;
    if (!isRunChar(text, k)) break;
    j = k;
  }
  return j;
}

/** Where the run of identifier characters that contains index `i` ends (exclusive). */
function runEnd(text: string, i: number): number {
  let j = i;
  while (j < text.length && isRunChar(text, j)) j += text.codePointAt(j)! > 0xffff ? 2 : 1;
  return j;
}

/**
 * The distinct identifiers in the given texts, space-separated, in order of first appearance,
 * at most MAX_IDENTS_PER_PAGE of them: what db/pages.ts stores in pages.idents.
 * The words are the runs of letters, digits, "_" and "-"; only runs around a "_" or "-" are looked at,
 * found by jumping from joiner to joiner (most of a page's words hold neither, and the crawler's
 * single writer calls this for every page it stores).
 */
export function extractIdentifiers(...texts: string[]): string {
  const seen = new Set<string>();
  for (const text of texts) {
    JOINER.lastIndex = 0;
    for (let m = JOINER.exec(text); m !== null; m = JOINER.exec(text)) {
      const end = runEnd(text, m.index);
      const ident = asIdentifier(text.slice(runStart(text, m.index), end));
      if (ident !== undefined) seen.add(ident);
      if (seen.size >= MAX_IDENTS_PER_PAGE) return [...seen].join(' ');
      JOINER.lastIndex = Math.max(end, m.index + 1);
    }
  }
  return [...seen].join(' ');
}
