/**
 * What a label is: a short lower-case name made of letters, digits, "-", "_" and ".", so that it can be
 * typed after `label:` in a search. A folder name or a typed label is folded into one ("Dev Tools" →
 * "dev-tools", "Café/Recettes" → "cafe-recettes"). Pure.
 */
import { foldCase } from '../../shared/identifiers.ts';

/** Longest label kept (characters). */
export const MAX_LABEL_CHARS = 60;

/** The label a name folds to, or undefined when nothing of it can be a label (only punctuation, empty). */
export function toLabel(name: string): string | undefined {
  const folded = foldCase(name.normalize('NFC'))
    .replace(/[\s/\\:,;|+]+/gu, '-')
    .replace(/[^\p{L}\p{N}_.-]+/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^[-_.]+|[-_.]+$/g, '');
  const cut = Array.from(folded)
    .slice(0, MAX_LABEL_CHARS)
    .join('')
    .replace(/[-_.]+$/g, '');
  return cut === '' ? undefined : cut;
}

/** Distinct labels of several names, in order, those that fold to nothing left out. */
export function toLabels(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const name of names) {
    const label = toLabel(name);
    if (label !== undefined && !out.includes(label)) out.push(label);
  }
  return out;
}
