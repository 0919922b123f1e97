/**
 * A page of ranked ids as the API shows its results: each page's title, host, date and snippet (the
 * ranking's marked snippet, else the page's description or the start of its body), its labels and file
 * type, and for a PDF the page its snippet is on. Text only: crawled HTML is never passed on as markup.
 */
import type { CaptureSearch } from './capture-filters.ts';
import { MARK_END, MARK_START } from './fts-search.ts';
import type { FtsSearch, PageMeta } from './fts-search.ts';
import { makeSnippet, piecesFromMarked, withoutPermalinkPieces, withoutPermalinks } from './snippet.ts';
import { markSynonyms } from './synonym-marks.ts';
import type { SearchResult } from './types.ts';

/** Shapes a page of ids into the API's results (see the module comment). */
export class ResultShaper {
  readonly #fts: FtsSearch;
  readonly #capture: CaptureSearch;

  constructor(fts: FtsSearch, capture: CaptureSearch) {
    this.#fts = fts;
    this.#capture = capture;
  }

  /** The results of a page of ids as the API shows them (snippets from `snippets`, else the page's own). */
  results<R extends { id: number }>(
    page: readonly R[],
    meta: ReadonlyMap<number, PageMeta>,
    snippets: ReadonlyMap<number, string>,
    words: readonly string[],
    synonyms: Parameters<typeof markSynonyms>[2],
    own: (r: R, i: number) => Pick<SearchResult, 'score' | 'moreFromSite' | 'missing'>,
  ): SearchResult[] {
    const capture = this.#capture.meta(page.map((r) => r.id));
    return page.map((r, i) => {
      const m = meta.get(r.id) as PageMeta;
      const marked = snippets.get(r.id);
      const c = capture.get(r.id);
      const fileType = c?.fileType ?? 'html';
      return {
        url: m.url,
        title: withoutPermalinks(m.title),
        host: m.host,
        snippet: m.nosnippet
          ? []
          : markSynonyms(
              withoutPermalinkPieces(
                marked !== undefined ? piecesFromMarked(marked, MARK_START, MARK_END) : this.#ownSnippet(m, words),
              ),
              words,
              synonyms,
            ),
        fetchedAt: new Date(m.fetchedAt).toISOString(),
        stored: !m.noarchive,
        labels: c?.labels ?? [],
        fileType,
        page:
          fileType === 'pdf' && marked !== undefined && !m.nosnippet
            ? this.#capture.pageOf(r.id, marked, MARK_START, MARK_END)
            : null,
        ...own(r, i),
      };
    });
  }

  /** A snippet for a page found only through the title index: its description or the start of its body. */
  #ownSnippet(m: PageMeta, words: readonly string[]) {
    const text = m.description.trim() !== '' ? m.description : this.#fts.bodyStart(m.id, 400);
    return makeSnippet(text, words, 200);
  }
}
