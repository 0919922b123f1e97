/**
 * Completions of a typed prefix from the title index's words (TitleIndex.complete). Short prefixes (1-2
 * letters) would scan thousands of words per keystroke, so they are answered from a table of all of them
 * (short-prefix-table.ts), built in steps for one version of the index and dropped when the index changes;
 * until a current table exists, short prefixes' answers are cached until the index's cursor moves.
 */
import type { TermSearch } from './term-search.ts';
import { MAX_COMPLETION_SCAN } from './term-search.ts';
import { drive } from './title-index-load.ts';
import { processTerm } from './title-doc.ts';
import { SHORT_PREFIX_CHARS, SHORT_PREFIX_KEEP, shortPrefixSteps } from './short-prefix-table.ts';
import type { ShortPrefixTable } from './short-prefix-table.ts';

/** Cached answers for short prefixes at most (a bound on memory while no table is current). */
const CACHE_MAX = 5000;

/** What the completions read of the index they serve. */
export interface CompletionSource {
  /** The index's term tree as it is now (replaced whole by a load). */
  readonly ms: TermSearch;
  /** Bumped by every change of the index. */
  readonly version: number;
  /** The seq of the last page change applied. */
  readonly cursor: number;
  readonly closed: boolean;
}

/** The completion table and cache of one TitleIndex (see the file comment). */
export class TitleCompletions {
  readonly #cache = new Map<string, string[]>();
  #cacheCursor = -1;
  #short: { version: number; table: ShortPrefixTable } | undefined;
  #building = false;

  constructor(
    private readonly index: CompletionSource,
    private readonly warn: (message: string) => void,
  ) {}

  /** Whether 1-2 letter prefixes are completed from the table (built for the index as it is now). */
  get tableCurrent(): boolean {
    return this.#short?.version === this.index.version;
  }

  /** Forgets cached answers (the index was replaced by a load). */
  clear(): void {
    this.#cache.clear();
  }

  /**
   * Builds the table of 1-2 letter completions in steps, the event loop turning between them; it is
   * dropped if the index changes meanwhile (a chunk of changes, or MiniSearch discarding or vacuuming,
   * which rewrites the term tree being read). Never rejects: a failure is reported through `warn`.
   */
  async buildTable(): Promise<void> {
    if (this.#building || this.index.closed || this.tableCurrent) return;
    this.#building = true;
    const { ms, version } = this.index;
    const dirt = ms.dirtCount;
    const changed = () =>
      this.index.closed ||
      this.index.version !== version ||
      this.index.ms !== ms ||
      ms.isVacuuming ||
      ms.dirtCount !== dirt;
    try {
      const steps = shortPrefixSteps(ms.terms(), (h) => ms.weightOf(h), MAX_COMPLETION_SCAN, SHORT_PREFIX_KEEP);
      const table = await drive(steps, changed);
      if (table !== undefined && !changed()) this.#short = { version, table };
    } catch (err) {
      this.warn(`title-index: no table of short completions, scanning per prefix (${(err as Error).message})`);
    } finally {
      this.#building = false;
    }
  }

  /**
   * Indexed words completing `prefix` (folded), most widespread first (among the first
   * MAX_COMPLETION_SCAN in the term tree's order). Never a word that does not start with the prefix: a
   * completion continues what was typed (a typo is search's "did you mean", spelling.ts).
   */
  complete(prefix: string, limit: number): string[] {
    const p = processTerm(prefix);
    if (p === null) return [];
    const cacheable = p.length <= SHORT_PREFIX_CHARS;
    const short = this.#short;
    if (cacheable && limit <= SHORT_PREFIX_KEEP && short !== undefined && short.version === this.index.version)
      return (short.table.get(p) ?? []).slice(0, limit);
    const key = `${p}\u0000${limit}`;
    if (cacheable) {
      if (this.#cacheCursor !== this.index.cursor) this.#cache.clear();
      this.#cacheCursor = this.index.cursor;
      const cached = this.#cache.get(key);
      if (cached !== undefined) return cached;
    }
    const terms = this.index.ms.completions(p, limit, 0).map((c) => c.term);
    if (cacheable && this.#cache.size < CACHE_MAX) this.#cache.set(key, terms);
    return terms;
  }
}
