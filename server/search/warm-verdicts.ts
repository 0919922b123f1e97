/**
 * What the start-up warm-up (term-warm-up.ts) makes of its thread's scan: which index words'
 * commonness (common-terms.ts) it can tell from their page counts alone, which it must have counted,
 * and the verdicts those counts give. Pure: the counts come from the thread (term-scan-thread.mjs).
 *
 * Verdicts are kept under a word's index word (commonKey: a search stems what was typed, fts-stems.ts),
 * in the two forms a search asks about (CandidateLists #rankExpression): over every column and within
 * title, headings and description. Both match at most the pages the vocabulary says hold the index
 * word, so a word in fewer than half the pages is not common in either form, as the rule would find
 * by counting. The others get the rule itself (decideCommon) over the counts the thread read for the
 * quoted word, which means the word's own list only when it stems to itself: the rest are left to
 * searches to decide.
 */
import { decideCommon, idfIsFloor } from './common-terms.ts';
import { commonKey, SHORT_COLUMNS } from './candidate-lists.ts';

/** One word of the scan: the index word, the pages holding it, whether it stems to itself. */
export type ScannedWord = readonly [word: string, pages: number, stemsToItself: boolean];

/** The verdicts known from the page counts, and the expressions (with their keys) whose matches must be counted. */
export interface VerdictPlan {
  known: Array<[key: string, common: boolean]>;
  ask: Array<{ key: string; expression: string }>;
}

const FORMS: ReadonlyArray<readonly string[] | undefined> = [undefined, SHORT_COLUMNS];

/** Splits scanned words into verdicts known already and expressions to count (see the file comment). */
export function planVerdicts(words: readonly ScannedWord[], pages: number): VerdictPlan {
  const plan: VerdictPlan = { known: [], ask: [] };
  for (const [word, doc, stemsToItself] of words) {
    for (const columns of FORMS) {
      const key = commonKey(word, columns);
      if (!idfIsFloor(doc, pages)) plan.known.push([key, false]);
      else if (stemsToItself) plan.ask.push({ key, expression: key });
    }
  }
  return plan;
}

/**
 * The verdicts of the counted expressions, by key: `counts[i]` holds the matches of `ask[i]` among the
 * newest min(SAMPLE_ROWS, pages) pages and all its matches counted up to half the pages (what the rule asks).
 */
export function countedVerdicts(
  ask: VerdictPlan['ask'],
  counts: ReadonlyArray<readonly [newest: number, count: number]>,
  pages: number,
): Array<[key: string, common: boolean]> {
  return ask.map((a, i) => [
    a.key,
    decideCommon(
      { pageCount: () => pages, newestCount: () => counts[i][0], count: (_e, cap) => Math.min(cap, counts[i][1]) },
      a.expression,
    ),
  ]);
}
