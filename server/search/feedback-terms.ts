/**
 * Pseudo-relevance feedback (RM3-style) for question search (question-lists.ts). Pure. The first
 * few results of a question are taken as relevant; the words their purpose fields (title, opening)
 * use most, weighed by each page's share of the ranking, are the words the question's pages are
 * written in ("get rid of" → the pages' "remove"), and expand the question as a list of their own.
 */
import { isFunctionWord, lightStem } from './function-words.ts';

/** One feedback page: its purpose text and its weight (its share of the ranking, any positive scale). */
export interface FeedbackDoc {
  text: string;
  weight: number;
}

/** An expansion word: its most frequent form in the feedback pages, and its weight (they sum to 1). */
export interface FeedbackTerm {
  word: string;
  weight: number;
}

const WORD = /\p{L}[\p{L}\p{N}]*/gu;
/** Words shorter than this carry too little to expand with. */
const MIN_LETTERS = 3;

/**
 * Up to `max` expansion words of `docs`, best first: each word (grouped by light stem) weighed as
 * RM1 does, Σ over pages of weight(page) × tf(word, page) / length(page), times its contrast with
 * `background` (texts of the candidates, `docs` among them): log((B + 1) / (pages of B using it + 0.5)),
 * so a word every candidate uses (a site's name) drops out. Kept only when at least `minDocs` pages
 * use it (a word of one page is that page's, not the topic's), and neither a function word nor
 * `excluded` (the stems of the words already asked).
 */
export function feedbackTerms(
  docs: readonly FeedbackDoc[],
  background: readonly string[],
  excluded: ReadonlySet<string>,
  max: number,
  minDocs = 2,
): FeedbackTerm[] {
  const bgDocs = new Map<string, number>();
  for (const t of background) {
    for (const stem of new Set([...t.toLowerCase().matchAll(WORD)].map((m) => lightStem(m[0])))) {
      bgDocs.set(stem, (bgDocs.get(stem) ?? 0) + 1);
    }
  }
  const idf = (stem: string) => Math.log((background.length + 1) / ((bgDocs.get(stem) ?? 0) + 0.5));
  const total = docs.reduce((a, d) => a + Math.max(0, d.weight), 0);
  if (total === 0 || max <= 0) return [];
  const byStem = new Map<string, { weight: number; docs: number; forms: Map<string, number> }>();
  for (const d of docs) {
    const words = [...d.text.toLowerCase().matchAll(WORD)].map((m) => m[0]);
    if (words.length === 0 || d.weight <= 0) continue;
    const share = d.weight / total / words.length;
    const seen = new Set<string>();
    for (const w of words) {
      if (w.length < MIN_LETTERS || isFunctionWord(w)) continue;
      const stem = lightStem(w);
      if (excluded.has(stem)) continue;
      let e = byStem.get(stem);
      if (e === undefined) {
        e = { weight: 0, docs: 0, forms: new Map() };
        byStem.set(stem, e);
      }
      e.weight += share;
      e.forms.set(w, (e.forms.get(w) ?? 0) + 1);
      if (!seen.has(stem)) {
        seen.add(stem);
        e.docs++;
      }
    }
  }
  for (const [stem, e] of byStem) e.weight *= Math.max(0, idf(stem));
  const kept = [...byStem.values()]
    .filter((e) => e.docs >= minDocs && e.weight > 0)
    .sort((a, b) => b.weight - a.weight)
    .slice(0, max);
  const sum = kept.reduce((a, e) => a + e.weight, 0);
  return kept.map((e) => ({
    word: [...e.forms].sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))[0][0],
    weight: e.weight / sum,
  }));
}
