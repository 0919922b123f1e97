/**
 * Choosing a word's synonyms from WordNet's entries (read by wordnet.ts). Pure. A word's base forms
 * (WordNet's "morphy" detachment rules: "files" → "file", "copies" → "copy", "deleting" → "delete")
 * are looked up; the words of its most common senses that are single words and not a form of the
 * word itself are its synonyms, most common sense first.
 */
import { lightStem } from './function-words.ts';

/** WordNet's parts of speech searched, and their file suffixes. */
export type PartOfSpeech = 'noun' | 'verb';

const DETACH: Record<PartOfSpeech, ReadonlyArray<readonly [string, string]>> = {
  noun: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['ies', 'y'],
  ],
  verb: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
};

/** The word itself, then the base forms WordNet's detachment rules give for `pos` (may not be words). */
export function baseForms(word: string, pos: PartOfSpeech): string[] {
  const out = [word];
  for (const [suffix, ending] of DETACH[pos]) {
    if (word.length > suffix.length + 1 && word.endsWith(suffix)) out.push(word.slice(0, -suffix.length) + ending);
  }
  return [...new Set(out)];
}

/** A word's senses, each the words of one synset (spaces for WordNet's underscores), most common first. */
export type Senses = ReadonlyArray<readonly string[]>;

/**
 * Up to `max` synonyms of `word` from its senses (`senses[i]` for the i-th most common), taking the
 * first `maxSenses` senses: single words only, lower case, none a form of `word` (same light stem).
 */
export function pickSynonyms(word: string, senses: Senses, maxSenses: number, max: number): string[] {
  const own = lightStem(word);
  const out: string[] = [];
  for (const sense of senses.slice(0, maxSenses)) {
    for (const w of sense) {
      const s = w.toLowerCase();
      if (out.length >= max) return out;
      if (!/^[a-z]+$/.test(s) || lightStem(s) === own || out.includes(s)) continue;
      out.push(s);
    }
  }
  return out;
}

/** The synset words of a WordNet data line ("offset lex_filenum ss_type w_cnt word lex_id …", w_cnt in hex). */
export function synsetWords(line: string): string[] {
  const f = line.split(' ');
  const n = Number.parseInt(f[3], 16);
  const words: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = f[4 + 2 * i];
    if (w !== undefined) words.push(w.replace(/\(.*\)$/, '').replace(/_/g, ' '));
  }
  return words;
}

/** The synset offsets of a WordNet index line ("lemma pos synset_cnt p_cnt [ptr…] sense_cnt tagsense_cnt offset…"), most common sense first. */
export function indexOffsets(line: string): number[] {
  const f = line.trim().split(' ');
  const synsets = Number(f[2]);
  const pointers = Number(f[3]);
  return f.slice(4 + pointers + 2, 4 + pointers + 2 + synsets).map(Number);
}

/** How often a word's senses were seen tagged in WordNet's corpus (tagsense_cnt of its index line): which part of speech it is used as most. */
export function taggedCount(line: string): number {
  const f = line.trim().split(' ');
  return Number(f[4 + Number(f[3]) + 1]);
}
