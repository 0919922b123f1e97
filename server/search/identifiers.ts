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

const IDENT_RUN = /[\p{L}\p{N}_-]+/gu;
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

/**
 * The distinct identifiers in the given texts, space-separated, in order of first appearance,
 * at most MAX_IDENTS_PER_PAGE of them: what db/pages.ts stores in pages.idents.
 */
export function extractIdentifiers(...texts: string[]): string {
  const seen = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(IDENT_RUN)) {
      const run = match[0];
      if (!run.includes('_') && !run.includes('-')) continue; // most words: not an identifier
      const ident = asIdentifier(run);
      if (ident !== undefined) seen.add(ident);
      if (seen.size >= MAX_IDENTS_PER_PAGE) return [...seen].join(' ');
    }
  }
  return [...seen].join(' ');
}
