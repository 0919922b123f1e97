/**
 * The index words a prefix word stands for, so that the statements that only list or count a query's
 * matches (CandidateLists: the count up to COUNT_CAP, the newest matches, which of some ids match) can
 * ask for those words ORed instead of the prefix. FTS5 without a prefix index merges the posting lists
 * of every word a prefix starts, in full, in every statement that uses it, whatever its LIMIT or rowid
 * range: at 1M pages `"suwe"*` (FTS5 stems it to "suw": 31 words in 133k pages) cost each such
 * statement the same merge, where the words ORed are read only around the other words' matches.
 *
 * The rows are the same: FTS5 matches a prefix against the index words that start with its stem, and
 * each of them is asked as itself, which the tokenizer keeps as it is only when the word stems to
 * itself; when one does not (or the stem is not one word, or more than PREFIX_TERMS_MAX words start
 * with it, or none), the prefix stays. bm25 and snippet() still get the prefix: ORed words are several
 * phrases to them (each with its own idf, each counted apart in a snippet's window), and the order and
 * the passages shown would change. A list is kept while the full-text index's structure record stays
 * the same (every write to the index changes it), so a word stored since is never missed.
 * The reads are injected (PrefixTermReads: SQL in fts-search.ts, the stems in fts-stems.ts).
 */
import type { PrefixWords } from './fts-expression.ts';
import type { ParsedQuery } from './query-parser.ts';

/** Most index words a prefix is spelled out as; beyond it the prefix stays (an OR of hundreds costs more). */
export const PREFIX_TERMS_MAX = 64;
/** Prefixes whose words are kept at once (the cache starts again beyond it). */
const PREFIX_TERMS_CACHE_MAX = 2000;

/** What PrefixTerms reads from the full-text index (FtsSearch and FtsStems implement it). */
export interface PrefixTermReads {
  /** The index words starting with `prefix`, in term order, at most `max` (undefined when more start with it). */
  termsStartingWith(prefix: string, max: number): string[] | undefined;
  /** Bytes that change with every write to the index (its structure record). */
  indexVersion(): Uint8Array | undefined;
  /** The one index word the tokenizer makes of `word`, undefined when it makes none or several. */
  stem(word: string): string | undefined;
}

/**
 * The words a prefix whose stem is `stem` stands for, or undefined to keep the prefix (see the file
 * comment): `words` are the index words starting with `stem` (undefined: too many), `stemOf` the
 * tokenizer's stem of a word.
 */
export function spelledOut(
  words: readonly string[] | undefined,
  stemOf: (word: string) => string | undefined,
): readonly string[] | undefined {
  if (words === undefined || words.length === 0) return undefined;
  return words.every((w) => stemOf(w) === w) ? words : undefined;
}

/** Prefix words spelled out as index words over one full-text index, kept per index version (see the file comment). */
export class PrefixTerms {
  readonly #reads: PrefixTermReads;
  readonly #cache = new Map<string, readonly string[] | null>();
  #version: Uint8Array | undefined;

  /** Reads the index through `reads`. */
  constructor(reads: PrefixTermReads) {
    this.#reads = reads;
  }

  /**
   * The prefix items of `parsed` (as FTS5 gets them) that can be spelled out, by folded text, for
   * matchExpression; undefined when none can (or none is a prefix).
   */
  forQuery(parsed: ParsedQuery): PrefixWords | undefined {
    const prefixes = parsed.items.filter((it) => it.kind === 'term' && it.prefix);
    if (prefixes.length === 0) return undefined;
    this.#checkVersion();
    const out = new Map<string, readonly string[]>();
    for (const item of prefixes) {
      if (item.kind !== 'term') continue;
      const words = this.#words(item.text);
      if (words !== undefined) out.set(item.folded, words);
    }
    return out.size === 0 ? undefined : out;
  }

  #checkVersion(): void {
    const version = this.#reads.indexVersion();
    const same =
      version !== undefined &&
      this.#version !== undefined &&
      version.length === this.#version.length &&
      version.every((b, i) => b === this.#version?.[i]);
    if (!same) {
      this.#cache.clear();
      this.#version = version === undefined ? undefined : Uint8Array.from(version);
    }
  }

  #words(typed: string): readonly string[] | undefined {
    const hit = this.#cache.get(typed);
    if (hit !== undefined) return hit ?? undefined;
    const stem = this.#reads.stem(typed);
    const words =
      stem === undefined
        ? undefined
        : spelledOut(this.#reads.termsStartingWith(stem, PREFIX_TERMS_MAX), (w) => this.#reads.stem(w));
    if (this.#cache.size >= PREFIX_TERMS_CACHE_MAX) this.#cache.clear();
    this.#cache.set(typed, words ?? null);
    return words;
  }
}
