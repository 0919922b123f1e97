/**
 * What a label is: a short lower-case name made of letters, digits, "-", "_" and ".", so that it can be
 * typed after `label:` in a search. A folder name or a typed label is folded into one ("Dev Tools" →
 * "dev-tools", "Café/Recettes" → "cafe-recettes"). Pure.
 */
import { foldCase } from '../../shared/identifiers.ts';

/** Longest label kept (characters). */
export const MAX_LABEL_CHARS = 60;
/**
 * Characters of a name read (UTF-16 units): a label keeps 60, so a longer name is cut before any
 * folding or regex, and its cost is bounded whatever its length (a name of 1,280,000 "é" took 350 ms,
 * 16x the time of 160,000: NFD of the whole name, and one array entry per character).
 */
export const MAX_NAME_READ = 1000;

/** `text` without the "-", "_" and "." at either end (a loop: the pattern `[-_.]+$` backtracks on long runs). */
function trimPunctuation(text: string): string {
  const edge = (c: string | undefined) => c === '-' || c === '_' || c === '.';
  let start = 0;
  let end = text.length;
  while (start < end && edge(text[start])) start++;
  while (end > start && edge(text[end - 1])) end--;
  return text.slice(start, end);
}

/** The label a name folds to (its first MAX_NAME_READ characters read), or undefined when nothing of them can be a label (only punctuation, empty). */
export function toLabel(name: string): string | undefined {
  const read = name.length > MAX_NAME_READ ? name.slice(0, MAX_NAME_READ) : name;
  const folded = trimPunctuation(
    foldCase(read.normalize('NFC'))
      .replace(/[\s/\\:,;|+]+/gu, '-')
      .replace(/[^\p{L}\p{N}_.-]+/gu, '')
      .replace(/-{2,}/g, '-'),
  );
  const cut = trimPunctuation(Array.from(folded).slice(0, MAX_LABEL_CHARS).join(''));
  return cut === '' ? undefined : cut;
}

/** Distinct labels of several names, in order, those that fold to nothing left out; at most `max` of them (the rest of the names are not read). */
export function toLabels(names: readonly string[], max = Number.POSITIVE_INFINITY): string[] {
  const out = new Set<string>();
  for (const name of names) {
    if (out.size >= max) break;
    const label = toLabel(name);
    if (label !== undefined) out.add(label);
  }
  return [...out];
}
