/**
 * What question search (question-lists.ts) looks for in a query. Pure. The topic words (the query's
 * words that are not function words, function-words.ts), each with its alternatives (synonyms,
 * weighed lower by being a list of their own), and how well a page's opening (title, description,
 * first lines: where a page says what it is for, e.g. a man page's NAME line) states that topic.
 */
import { contentWords, isFunctionWord, lightStem, readsAsQuestion } from './function-words.ts';
import { quote } from './fts-expression.ts';
import type { ParsedQuery } from './query-parser.ts';

/** One topic word of a question and the words that may stand for it. */
export interface TopicWord {
  /** Folded, as typed. */
  word: string;
  /** Alternatives (synonyms), folded; empty when none. */
  alternatives: string[];
}

/**
 * The topic words of a parsed query (term items only: phrases stay with the query's own lists),
 * whether it reads as a question, and whether it holds a function word beside its topic words.
 */
export function topicWords(q: ParsedQuery): { words: string[]; question: boolean; worded: boolean } {
  const folded = q.items.flatMap((it) => (it.kind === 'term' ? [it.folded] : []));
  const words = contentWords(folded);
  const worded = words.length > 0 && folded.some(isFunctionWord);
  return { words, question: readsAsQuestion(folded) && words.length > 0, worded };
}

/** One topic word as an FTS5 expression: the word, or with `alternatives` the word or any of its alternatives. */
function topicTerm(t: TopicWord, alternatives: boolean): string {
  const terms = [t.word, ...(alternatives ? t.alternatives : [])].map(quote);
  return terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`;
}

/**
 * The FTS5 expression matching pages with at least `least` of the topic words (each word, with
 * `alternatives`, or one of its alternatives): every such combination ORed. With one topic word, or
 * `least` 1, any of them. Undefined when there are none.
 */
export function topicExpression(
  topics: readonly TopicWord[],
  alternatives: boolean,
  least = 2,
  near?: number,
): string | undefined {
  if (topics.length === 0) return undefined;
  const terms = topics.map((t) => topicTerm(t, alternatives));
  const k = Math.min(least, terms.length);
  if (k <= 1) return `(${terms.join(' OR ')})`;
  const groups: string[] = [];
  const pick = (from: number, chosen: string[]): void => {
    if (chosen.length === k) {
      groups.push(near === undefined ? `(${chosen.join(' AND ')})` : `NEAR(${chosen.join(' ')}, ${near})`);
      return;
    }
    for (let i = from; i <= terms.length - (k - chosen.length); i++) pick(i + 1, [...chosen, terms[i]]);
  };
  pick(0, []);
  return `(${groups.join(' OR ')})`;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The light stems of a text's words (function-words.ts). */
export function stems(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.toLowerCase().matchAll(WORD)) out.add(lightStem(m[0]));
  return out;
}

/**
 * How well `opening` states the topic, 0..1: the topic words found in it (a word or one of its
 * alternatives, compared by light stem), each counted by `weight` (rarer words weigh more), over
 * the weight of them all.
 */
export function purposeScore(
  opening: ReadonlySet<string>,
  topics: readonly TopicWord[],
  weight: (word: string) => number,
): number {
  let total = 0;
  let found = 0;
  for (const t of topics) {
    const w = weight(t.word);
    total += w;
    if (opening.has(lightStem(t.word))) found += w;
    else if (t.alternatives.some((a) => a.split(' ').every((part) => opening.has(lightStem(part))))) found += 0.5 * w;
  }
  return total === 0 ? 0 : found / total;
}
