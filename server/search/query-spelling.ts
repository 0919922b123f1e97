/**
 * Spelling corrections of a whole query (spelling.ts says which words and why): asks the title index
 * for close words and the full-text index for page counts. Bounded: at most MAX_ITEMS words, each one
 * existence check, and for "did you mean" (only when a query found little) one capped count per word
 * and per candidate.
 */
import { quote } from './fts-expression.ts';
import type { FtsSearch } from './fts-search.ts';
import type { ParsedQuery } from './query-parser.ts';
import { bestCorrection, COMMON_FACTOR, COMMON_PAGES, MIN_SPELL_CHARS, RARE_PAGES, replaceWord } from './spelling.ts';
import type { TitleIndex } from './title-index.ts';

/** A corrected query and the words it changed. */
export interface QueryFix {
  text: string;
  changed: Array<{ from: string; to: string }>;
}

/** Spelling corrections of queries over one title index and full-text index. */
export class QuerySpelling {
  readonly #titles: TitleIndex;
  readonly #fts: FtsSearch;

  constructor(titles: TitleIndex, fts: FtsSearch) {
    this.#titles = titles;
    this.#fts = fts;
  }

  /** The query with every word that no page contains replaced by its best close word; undefined when none is. */
  fixMissing(parsed: ParsedQuery): QueryFix | undefined {
    return this.#fix(parsed, (item) => !this.#contains(item));
  }

  /**
   * Whether some page contains the word, or for a word still being typed (a prefix) a word starting
   * with it. Not FTS5's own prefix match: it stems the prefix first ("taks"* is "tak"*, which "take"
   * matches), so a typo at the end of a query would never count as missing. A prefix is found when
   * the word itself is indexed, an indexed stem starts with it, or the title index has a word that does.
   */
  #contains(item: { text: string; folded: string; prefix: boolean }): boolean {
    if (this.#fts.exists(quote(item.text))) return true;
    if (!item.prefix) return false;
    return this.#fts.prefixSpread(item.folded, 1).terms > 0 || this.#titles.complete(item.folded, 1).length > 0;
  }

  /**
   * The query with its rare words (in at most RARE_PAGES pages) replaced by a close word in at least
   * COMMON_FACTOR times as many pages (and COMMON_PAGES); undefined when no word is.
   */
  fixRare(parsed: ParsedQuery): QueryFix | undefined {
    const cap = RARE_PAGES * COMMON_FACTOR + COMMON_PAGES;
    return this.#fix(
      parsed,
      (item) => this.#fts.count(quote(item.text), RARE_PAGES + 1) <= RARE_PAGES,
      (item, to) => {
        const own = this.#fts.count(quote(item.text), cap);
        const theirs = this.#fts.count(quote(to), cap);
        return theirs >= Math.max(COMMON_PAGES, COMMON_FACTOR * own);
      },
    );
  }

  #fix(
    parsed: ParsedQuery,
    suspect: (item: { text: string; folded: string; prefix: boolean }) => boolean,
    accept: (item: { text: string }, to: string) => boolean = () => true,
  ): QueryFix | undefined {
    let text = parsed.text;
    const changed: QueryFix['changed'] = [];
    for (const item of parsed.items) {
      if (item.kind !== 'term' || item.ident !== undefined || item.folded.length < MIN_SPELL_CHARS) continue;
      if (!/^[\p{L}\p{N}]+$/u.test(item.folded) || changed.some((c) => c.from === item.folded) || !suspect(item))
        continue;
      const to = bestCorrection(item.folded, this.#titles.spellings(item.folded, 2));
      if (to === undefined || !accept(item, to)) continue;
      text = replaceWord(text, item.text, to);
      changed.push({ from: item.folded, to });
    }
    return changed.length === 0 ? undefined : { text, changed };
  }
}
