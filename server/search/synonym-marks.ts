/**
 * Snippet pieces that matched through a synonym say which typed word they stand for, so a person
 * sees why the page was chosen ("modify", marked as standing for "change"). Pure.
 */
import { lightStem } from './function-words.ts';
import type { SnippetPiece } from './types.ts';

/**
 * The pieces with `for` set on each matched piece that is not a form of a typed word (compared by
 * light stem) but is a form of a synonym: `synonyms` maps each synonym (folded) to the typed word
 * it stands for.
 */
export function markSynonyms(
  pieces: readonly SnippetPiece[],
  typed: readonly string[],
  synonyms: ReadonlyMap<string, string>,
): SnippetPiece[] {
  if (synonyms.size === 0) return [...pieces];
  const own = new Set(typed.map((w) => lightStem(w.toLowerCase())));
  const byStem = new Map([...synonyms].map(([s, word]) => [lightStem(s), word]));
  return pieces.map((p) => {
    if (!p.match) return p;
    const stem = lightStem(p.text.toLowerCase());
    const word = own.has(stem) ? undefined : byStem.get(stem);
    return word === undefined ? p : { ...p, for: word };
  });
}
