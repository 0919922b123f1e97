/**
 * Completions of every 1-2 letter prefix at once, from one pass over the title index's words.
 *
 * Completing a 1-2 letter prefix scans up to MAX_COMPLETION_SCAN words of the term tree (about 1 ms
 * warm at 100k pages, 1-10 ms the first time a prefix is typed), and the title index could keep
 * such an answer only until the index changed. Measured at 100k generated pages, those first scans
 * were the slowest suggestions of `npm run bench:search` (one query in eight there is a 1-2 letter
 * prefix). One pass over every word (about as long as a few scans) answers all of them; the title
 * index builds it in steps with the index and after a change once the pages table is quiet
 * (title-index.ts), and asks it only while the index is unchanged since.
 *
 * The table gives exactly what `TermSearch.completions(prefix, keep, 0, scan)` gives for every
 * prefix: each prefix counts the words in the term tree's order up to `scan`, as that scan does,
 * and keeps its best `keep`, in the same order (byWeight). Pure over the words it is given.
 */
import { byWeight } from './term-search.ts';

/** Longest prefix (UTF-16 code units, as the title index compares words) the table answers. */
export const SHORT_PREFIX_CHARS = 2;
/** Completions kept per prefix: the most one suggestion request asks for (MAX_SUGGEST). */
export const SHORT_PREFIX_KEEP = 20;
/** Words read per step of shortPrefixSteps (a few ms). */
export const WORDS_PER_STEP = 5000;

/** Per prefix, its best completions (the whole words), best first. */
export type ShortPrefixTable = ReadonlyMap<string, readonly string[]>;

/**
 * Builds the table from `words` (every word in the term tree's order, TermSearch.terms) and
 * `weightOf` (a word's weight, undefined for a word no current page holds; asked only for the words
 * a prefix still counts), yielding every WORDS_PER_STEP words.
 */
export function* shortPrefixSteps<H>(
  words: Iterable<[term: string, handle: H]>,
  weightOf: (handle: H) => number | undefined,
  scan: number,
  keep: number,
): Generator<void, ShortPrefixTable, void> {
  // Per prefix, the words counted so far and the best `keep` of them, best first (only the best are
  // kept as they come: a table holding every candidate took 20 MB of heap at 100k pages).
  const found = new Map<string, { scanned: number; best: Array<{ term: string; weight: number }> }>();
  let read = 0;
  for (const [term, handle] of words) {
    let weight: number | undefined | null = null; // null: not weighed yet
    for (let len = 1; len <= SHORT_PREFIX_CHARS && len <= term.length; len++) {
      const prefix = term.slice(0, len);
      let entry = found.get(prefix);
      if (entry === undefined) {
        entry = { scanned: 0, best: [] };
        found.set(prefix, entry);
      }
      if (++entry.scanned > scan) continue;
      if (weight === null) weight = weightOf(handle);
      if (weight !== undefined) insertBest(entry.best, term, weight, keep);
    }
    if (++read % WORDS_PER_STEP === 0) yield;
  }
  const table = new Map<string, string[]>();
  for (const [prefix, entry] of found)
    table.set(
      prefix,
      entry.best.map((t) => t.term),
    );
  return table;
}

/** Puts the word in its place in `best` (ordered by byWeight) if it is among the best `keep`. */
function insertBest(best: Array<{ term: string; weight: number }>, term: string, weight: number, keep: number): void {
  const item = { term, weight };
  if (keep < 1 || (best.length === keep && byWeight(item, best[keep - 1]) >= 0)) return;
  let at = best.length;
  while (at > 0 && byWeight(item, best[at - 1]) < 0) at--;
  best.splice(at, 0, item);
  if (best.length > keep) best.pop();
}
