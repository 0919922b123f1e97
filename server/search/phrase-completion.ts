/**
 * Completions as a person expects them: phrases that occur in page titles and headings and continue
 * what was typed. Pure: the candidate pages' texts come in.
 *
 * The typed words are matched against consecutive words of a title or heading segment (a title
 * like "5. Data Structures — Python 3.11 documentation" has two segments; separators are dashes,
 * bars, colons, brackets and the like), the last typed word as a prefix unless the text ends with a
 * space (then the next word is completed). Every completion is the typed text itself followed by the
 * rest of the last word ("list compre" + "hensions"), alone or with the words after it up to the end
 * of the segment (at most MAX_EXTRA_WORDS), so a suggestion never drops or changes what was typed.
 * A phrase scores the weights of the distinct pages it occurs on (a title counts fully, a heading
 * HEADING_WEIGHT), so a phrase of many good pages leads.
 */
import { foldCase } from '../../shared/identifiers.ts';

/** Words after the completed one that a completion may add (to the end of its segment). */
export const MAX_EXTRA_WORDS = 4;
/** Longest completion added to what was typed, in characters. */
export const MAX_ADDED_CHARS = 60;
/** A heading's phrase counts this much of a title's. */
export const HEADING_WEIGHT = 0.7;

/** A candidate page: its title and headings, and how good it is (1 for an ordinary page). */
export interface CandidatePage {
  title: string;
  headings: readonly string[];
  weight: number;
}

/** What was typed, as words: folded, the last one complete only when `open` (the text ended with a space). */
export interface TypedWords {
  words: readonly string[];
  open: boolean;
}

/** One completion: the text to add after what was typed, on how many pages, and its score. */
export interface Completion {
  added: string;
  pages: number;
  score: number;
}

const WORD = /[\p{L}\p{N}]+/gu;
const SEPARATOR = /\s+[-–—|·•»›:]+\s+|[()[\]{}¶|:;,!?"“”]|\s{2,}/gu;

/** The folded words of `text` (how typed text and page text are compared). */
export function foldedWords(text: string): string[] {
  return [...text.matchAll(WORD)].map((m) => foldCase(m[0]));
}

interface Token {
  start: number;
  end: number;
  folded: string;
}

function tokens(segment: string): Token[] {
  return [...segment.matchAll(WORD)].map((m) => ({
    start: m.index,
    end: m.index + m[0].length,
    folded: foldCase(m[0]),
  }));
}

/** The segments of a title or heading (see the file comment). */
export function segments(text: string): string[] {
  return text
    .split(SEPARATOR)
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter((s) => s !== '');
}

/**
 * The completions of `typed` found in `pages`, best first, at most `limit`. Empty when no segment
 * continues the typed words.
 */
export function completePhrases(typed: TypedWords, pages: readonly CandidatePage[], limit: number): Completion[] {
  const n = typed.words.length;
  if (n === 0) return [];
  const found = new Map<string, { added: string; pages: number; score: number; lastPage: number }>();
  const note = (added: string, page: number, weight: number): void => {
    const text = added.replace(/\s+/g, ' ');
    if (text.trim() === '' || text.length > MAX_ADDED_CHARS) return;
    const key = foldCase(text);
    const entry = found.get(key) ?? { added: text, pages: 0, score: 0, lastPage: -1 };
    if (entry.lastPage !== page) {
      entry.pages++;
      entry.score += weight;
      entry.lastPage = page;
    } else {
      entry.score = Math.max(entry.score, weight); // one page counts once, with its best place
    }
    found.set(key, entry);
  };
  pages.forEach((page, index) => {
    const texts: Array<[string, number]> = [
      [page.title, 1],
      ...page.headings.map((h): [string, number] => [h, HEADING_WEIGHT]),
    ];
    const seen = new Set<string>();
    for (const [text, placeWeight] of texts) {
      // Most titles and headings of a candidate page do not hold the first typed word at all: skip them cheaply.
      if (!foldCase(text).includes(typed.words[0])) continue;
      for (const segment of segments(text)) {
        const toks = tokens(segment);
        for (let j = 0; j + n <= toks.length; j++) {
          if (!matchesAt(toks, j, typed)) continue;
          const last = toks[j + n - 1];
          const weight = page.weight * placeWeight;
          if (typed.open) {
            const next = toks[j + n];
            if (next === undefined) continue;
            const key = `${segment}\u0000${j}`;
            if (seen.has(key)) continue;
            seen.add(key);
            note(segment.slice(next.start, next.end), index, weight);
            addTail(segment, toks, j + n, next.start, index, weight, note);
          } else {
            const typedLast = typed.words[n - 1];
            const word = segment.slice(last.start, last.end);
            // The rest of the last word, in the page's own letters (only when folding kept its length).
            if (foldCase(word).length !== word.length) continue;
            const rest = word.slice(typedLast.length);
            note(rest, index, weight);
            addTail(segment, toks, j + n - 1, last.start + typedLast.length, index, weight, note);
          }
        }
      }
    }
  });
  return [...found.values()]
    .filter((c) => c.added !== '')
    .sort(
      (a, b) =>
        b.score - a.score || b.pages - a.pages || a.added.length - b.added.length || (a.added < b.added ? -1 : 1),
    )
    .slice(0, limit)
    .map(({ added, pages: count, score }) => ({ added, pages: count, score }));
}

/** Whether the typed words match the segment's tokens from `j` (the last as a prefix unless `open`). */
function matchesAt(toks: readonly Token[], j: number, typed: TypedWords): boolean {
  const n = typed.words.length;
  for (let m = 0; m < n; m++) {
    const tok = toks[j + m].folded;
    const word = typed.words[m];
    const exact = m < n - 1 || typed.open;
    if (exact ? tok !== word : !tok.startsWith(word)) return false;
  }
  return true;
}

/** Notes the completion that runs on to the end of the segment, when that is at most MAX_EXTRA_WORDS more words. */
function addTail(
  segment: string,
  toks: readonly Token[],
  lastIndex: number,
  from: number,
  page: number,
  weight: number,
  note: (added: string, page: number, weight: number) => void,
): void {
  const more = toks.length - 1 - lastIndex;
  if (more < 1 || more > MAX_EXTRA_WORDS) return;
  note(segment.slice(from, toks[toks.length - 1].end), page, weight);
}

/**
 * Words of the pages' titles and headings that start with the folded `prefix`, as the rest to add
 * after it, by pages: for typed words that no title or heading has side by side.
 */
export function completeWord(prefix: string, pages: readonly CandidatePage[], limit: number): Completion[] {
  return completePhrases({ words: [prefix], open: false }, pages, limit * 3)
    .filter((c) => !/\s/.test(c.added))
    .slice(0, limit);
}
