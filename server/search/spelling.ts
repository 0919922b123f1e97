/**
 * Spelling corrections from the index's own vocabulary (the title index's words: titles, headings,
 * URL words). Pure: candidates and page counts come in as functions.
 *
 * A word is corrected when no page contains it ("pyhton"), or, for "did you mean", when it is rare
 * (at most RARE_PAGES pages) and a close word is far more common. Close means within MAX_EDITS of
 * the word by optimal string alignment, where swapping two neighbouring letters is one edit (so
 * "pyhton" is one edit from "python", where plain Levenshtein counts two). Among close words the
 * fewest edits win, then the most widespread.
 */

/** Shortest word that is checked for a spelling mistake. */
export const MIN_SPELL_CHARS = 4;
/** A word in at most this many pages may be a typo of a much more common one ("did you mean"). */
export const RARE_PAGES = 2;
/** ... if that one is in at least this many times as many pages (and at least COMMON_PAGES). */
export const COMMON_FACTOR = 4;
export const COMMON_PAGES = 3;

/** Edits allowed for a word of `length` letters: one up to 7, two from 8. */
export function maxEdits(length: number): number {
  return length >= 8 ? 2 : 1;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent transpositions. */
export function osaDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > 3) return Math.abs(n - m);
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur = new Array<number>(m + 1);
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) cur[j] = Math.min(cur[j], prev2[j - 2] + 1);
    }
    prev2 = prev;
    prev = cur;
  }
  return prev[m];
}

/** A candidate word from the index and how widespread it is. */
export interface Candidate {
  term: string;
  weight: number;
}

/**
 * The best correction of the folded `word` among `candidates` (indexed words found within two
 * Levenshtein edits): the fewest optimal-string-alignment edits, at most maxEdits; then the most
 * widespread; undefined when none is close enough.
 */
export function bestCorrection(word: string, candidates: readonly Candidate[]): string | undefined {
  const limit = maxEdits(word.length);
  let best: { term: string; d: number; weight: number } | undefined;
  for (const c of candidates) {
    if (c.term === word || !/^[\p{L}\p{N}]+$/u.test(c.term)) continue;
    const d = osaDistance(word, c.term);
    if (d > limit) continue;
    if (
      best === undefined ||
      d < best.d ||
      (d === best.d && (c.weight > best.weight || (c.weight === best.weight && c.term < best.term)))
    ) {
      best = { term: c.term, d, weight: c.weight };
    }
  }
  return best?.term;
}

/**
 * `text` with the word `from` (as a whole word, any case) replaced by `to`, once per occurrence;
 * operators and the other words are kept as typed.
 */
export function replaceWord(text: string, from: string, to: string): string {
  const escaped = from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return text.replace(
    new RegExp(`(^|[^\\p{L}\\p{N}_])${escaped}(?=$|[^\\p{L}\\p{N}_])`, 'giu'),
    (_, lead: string) => `${lead}${to}`,
  );
}
