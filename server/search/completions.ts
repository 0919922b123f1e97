/**
 * As-you-type suggestions (GET /api/suggest): query completions and page suggestions.
 *
 * - Query completions continue the typed text: phrases of titles and headings that start with the
 *   typed words, the last one completed (phrase-completion.ts), from the pages the title index finds
 *   for those words in titles and headings, each page weighted by how good it is (linked to, not
 *   mostly links). When no title or heading has the words side by side, the last word is completed
 *   with words of those pages; with no such page, with words of the whole title index. The typed
 *   text is always kept as it is, operators included (`site:docs.python.org list compre`), and its
 *   site:, label: and filetype: filters keep only their pages.
 * - Page suggestions are pages whose title has every typed word (the last as a prefix, a long word
 *   within a typo): a title with its site, which the app opens directly.
 * Bounded: one title-index search (POSTINGS_BUDGET), one read of at most CANDIDATE_PAGES titles.
 */
import type { FtsSearch, HostFilters } from './fts-search.ts';
import { hasCaptureFilters } from './capture-filters.ts';
import { foldCase } from '../../shared/identifiers.ts';
import { completePhrases, completeWord, foldedWords } from './phrase-completion.ts';
import type { CandidatePage } from './phrase-completion.ts';
import { parseQuery } from './query-parser.ts';
import { popularity } from './rank-fusion.ts';
import { maxEdits, osaDistance } from './spelling.ts';
import { FUZZY_MIN_CHARS, MIN_PREFIX_CHARS } from './title-index.ts';
import type { TitleIndex } from './title-index.ts';
import type { Suggestion, SuggestResponse } from './types.ts';

/** Pages whose titles and headings are read for one suggestion request. */
export const CANDIDATE_PAGES = 30;
/** Most page suggestions in one answer. */
export const MAX_PAGE_SUGGESTIONS = 3;

/** The plain words at the end of the typed text, the ones being completed (operators before them are kept as typed). */
function typedTail(text: string): string {
  const parts = text.split(/(\s+)/);
  let cut = parts.length;
  for (let i = parts.length - 1; i >= 0; i--) {
    const p = parts[i];
    if (/^\s*$/.test(p)) continue;
    if (/^[-+"]|"|^[a-z]+:/i.test(p)) break;
    cut = i;
  }
  return parts.slice(cut).join('');
}

/** How good a candidate page is for suggestions: linked to (up to ×2), not mostly links (down to ×0.5). */
function pageWeight(inlinks: number, linkDensity: number | null): number {
  const density = linkDensity ?? 0;
  return (1 + popularity(inlinks)) * (1 - 0.5 * Math.max(0, Math.min(1, (density - 0.4) / 0.4)));
}

/** Suggestions over the title index and the pages table (see the file comment). */
export class Completions {
  readonly #titles: TitleIndex;
  readonly #fts: FtsSearch;

  constructor(titles: TitleIndex, fts: FtsSearch) {
    this.#titles = titles;
    this.#fts = fts;
  }

  /** Up to `max` suggestions for the typed text `q`: query completions first, then page suggestions. */
  suggest(q: string, max: number): SuggestResponse {
    const parsed = parseQuery(q);
    if (parsed.items.length === 0) return { query: parsed.text, suggestions: [] };
    const open = /\s$/.test(q) && !parsed.truncated;
    const words = foldedWords(typedTail(parsed.text));
    const typed = open ? `${parsed.text} ` : parsed.text;

    // Pages with the words in their title or headings (the last as a prefix while it is typed; a
    // prefix too short for the title index is matched here, among the pages of the words before it).
    const short = !open && words.length > 0 && words[words.length - 1].length < MIN_PREFIX_CHARS;
    const searched = short ? words.slice(0, -1) : words;
    const search = (fuzzy: boolean) =>
      this.#titles.search(searched, {
        prefixLast: !open && !short,
        fuzzyLast: fuzzy,
        limit: CANDIDATE_PAGES,
        combineWith: 'AND',
        fields: ['title', 'headings'],
      }).hits;
    let hits = searched.length === 0 ? [] : search(false);
    const typo = hits.length === 0 && searched.length > 0;
    if (typo) hits = search(true);
    let ids = hits.map((h) => h.id);
    const filters: HostFilters = {
      sites: parsed.sites,
      excludedSites: parsed.excludedSites,
      labels: parsed.labels,
      fileTypes: parsed.fileTypes,
    };
    if (
      ids.length > 0 &&
      (filters.sites.length > 0 || filters.excludedSites.length > 0 || hasCaptureFilters(filters))
    ) {
      const ok = this.#fts.withinHosts(ids, filters);
      ids = ids.filter((id) => ok.has(id));
    }
    const texts = this.#fts.shortTexts(ids);
    const pages: CandidatePage[] = [];
    for (const id of ids) {
      const t = texts.get(id);
      if (t !== undefined)
        pages.push({ title: t.title, headings: t.headings, weight: pageWeight(t.inlinks, t.linkDensity) });
    }

    const queries: Suggestion[] = [];
    const pageLimit = Math.min(MAX_PAGE_SUGGESTIONS, Math.floor(max / 2));
    const wanted = max - Math.min(pageLimit, pages.length);
    if (words.length > 0 && !typo) {
      let added = completePhrases({ words, open }, pages, wanted).map((c) => c.added);
      if (added.length === 0 && !open) {
        const last = words[words.length - 1];
        added = completeWord(last, pages, wanted).map((c) => c.added);
        if (added.length === 0 && words.length === 1) {
          added = this.#titles
            .complete(last, wanted)
            .filter((w) => w.startsWith(last) && w !== last)
            .map((w) => w.slice(last.length));
        }
      }
      // Lower case, as typed queries are: a title's "Comprehensions" is completed as "comprehensions".
      for (const a of added) queries.push({ text: `${typed}${a.toLowerCase()}`, kind: 'term' });
    }

    const titles: Suggestion[] = [];
    const titleCap = queries.length === 0 ? max : pageLimit;
    for (const id of ids) {
      if (titles.length >= titleCap) break;
      const t = texts.get(id);
      if (t === undefined || t.title.trim() === '' || !titleHasWords(t.title, words, open)) continue;
      titles.push({ text: t.title.replace(/\s*¶/g, ''), kind: 'title', url: t.url, host: t.host });
    }
    const seen = new Set<string>();
    const suggestions = [...queries.slice(0, max - titles.length), ...titles]
      .filter((s) => {
        const key = `${s.kind}:${foldCase(s.text)}:${s.url ?? ''}`;
        if (seen.has(key) || (s.kind === 'term' && foldCase(s.text.trim()) === foldCase(parsed.text))) return false;
        seen.add(key);
        return true;
      })
      .slice(0, max);
    return { query: parsed.text, suggestions };
  }
}

/**
 * Whether a title has every typed word: the same word, the last one as a prefix while it is typed,
 * or a word of FUZZY_MIN_CHARS+ letters within a typo (maxEdits) of it.
 */
function titleHasWords(title: string, words: readonly string[], open: boolean): boolean {
  const own = foldedWords(title);
  return words.every((w, i) =>
    own.some(
      (t) =>
        t === w ||
        (i === words.length - 1 && !open && t.startsWith(w)) ||
        (w.length >= FUZZY_MIN_CHARS && osaDistance(t, w) <= maxEdits(w.length)),
    ),
  );
}
