/**
 * Search as the server offers it: one query asks the full-text index (FTS5, in the database) and
 * the title index (MiniSearch, in memory), and fuses their top-k lists (rank-fusion.ts).
 *
 * Per query, with depth = max(100, offset + limit):
 * 1. parse (query-parser.ts); nothing searchable → BadQueryError;
 * 2. typo correction for FTS: a word of 5+ letters that no page contains is ORed with indexed
 *    title-index words one or two edits away ("telescpe" → "telescope"), and the notice says so;
 * 3. title index: best `depth` pages for the words (ANDed, prefix on the last word, typo-tolerant;
 *    very common words are left to FTS, see TitleIndex.search);
 * 4. FTS: a count capped at COUNT_CAP; the best `depth` by weighted bm25 for the words ANDed
 *    (bounded for very common words, see #ranked), plus the best `depth` of those containing
 *    typed identifiers exactly; title-index hits join when they are full-text matches, or, when
 *    they matched every word only in the title index (a prefix, a typo, a URL word), if they pass
 *    the phrases, exclusions and site: filters (checked in SQL for just those ids);
 * 5. nothing at all → the same with the words ORed (mode 'or', and the notice says so);
 * 6. fuse, page with offset/limit, snippets for that page only.
 * Nothing ever ranks all matches in JavaScript, and a common word costs a bounded count.
 */
import type { Database } from 'better-sqlite3';
import { pageQueries } from '../../db/pages.ts';
import { excludedExpression, identExpression, matchExpression, phrasesExpression, quote } from './fts-expression.ts';
import type { Corrections } from './fts-expression.ts';
import { FtsSearch, MARK_END, MARK_START } from './fts-search.ts';
import type { HostFilters, PageMeta } from './fts-search.ts';
import { itemWords, parseQuery } from './query-parser.ts';
import type { ParsedQuery } from './query-parser.ts';
import { FtsPrefixes } from './fts-prefixes.ts';
import { fuseRankings } from './rank-fusion.ts';
import type { PageSignals } from './rank-fusion.ts';
import { makeSnippet, piecesFromMarked } from './snippet.ts';
import { firstPerContent } from './duplicates.ts';
import { FUZZY_MIN_CHARS, TitleIndex } from './title-index.ts';
import type { TitleHit, TitleSnapshotOptions } from './title-index.ts';
import type { SearchResponse, SearchResult, Suggestion, SuggestResponse } from './types.ts';
import { CaptureSearch, hasCaptureFilters } from './capture-filters.ts';

/** A query with nothing searchable in it (the API answers 400 bad-query with the message). */
export class BadQueryError extends Error {
  readonly code = 'bad-query';
  override name = 'BadQueryError';
}

/** Candidates taken from each ranking before fusion (more when paging deeper). */
export const CANDIDATES = 100;
/** Places below the wanted page whose boosts are looked at (see #search). */
export const BOOST_REACH = 45;
/** Up to this many full-text matches are ranked exactly by bm25 (see #ranked). */
export const RANK_ALL_MAX = 2000;
/** Above RANK_ALL_MAX, bm25 ranks only this many of the newest matches per list. */
export const RANK_SAMPLE = 1500;
/** Title-index hits below the full-text top list checked against the full-text query (when it has more matches). */
export const VERIFY_MAX = 20;
/** Matches are counted up to this many; above it `total` is this number (a lower bound). */
export const COUNT_CAP = 10_000;
export const MAX_LIMIT = 50;
export const MAX_OFFSET = 1000;
export const MAX_SUGGEST = 20;

interface Attempt {
  match: string;
  lists: Array<{ ids: number[]; weight: number }>;
  titleHits: Map<number, TitleHit>;
  /** Full-text matches, counted up to COUNT_CAP. */
  ftsTotal: number;
  /** Title-index-only matches (prefix or typo matches in short fields). */
  extra: number[];
}

function clampInt(n: number, min: number, max: number, fallback: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.trunc(n))) : fallback;
}

function round(n: number): number {
  return Number(n.toPrecision(6));
}

/** Search over one database: construct, `start()`, then `search`/`suggest`; `refresh()` when pages were stored. */
export class SearchService {
  readonly #fts: FtsSearch;
  readonly #titles: TitleIndex;
  readonly #refreshIntervalMs: number;
  readonly #rankAllMax: number;
  readonly #rankSample: number;
  readonly #prefixes: FtsPrefixes;
  readonly #capture: CaptureSearch;
  #timer: NodeJS.Timeout | undefined;

  /**
   * A service reading `db` (migrated through 0002); nothing runs until `start()`. `chunkRows`,
   * `rankAllMax` and `rankSample` default to CHUNK_ROWS, RANK_ALL_MAX and RANK_SAMPLE (tests shrink
   * them). With `snapshot`, the title index starts from (and keeps) a snapshot file (title-index.ts).
   */
  constructor(db: Database, opts: {
    refreshIntervalMs?: number; chunkRows?: number; rankAllMax?: number; rankSample?: number; snapshot?: TitleSnapshotOptions;
  } = {}) {
    this.#fts = new FtsSearch(db);
    this.#capture = new CaptureSearch(db);
    this.#prefixes = new FtsPrefixes(this.#fts);
    this.#titles = new TitleIndex(pageQueries(db), { chunkRows: opts.chunkRows, snapshot: opts.snapshot });
    this.#refreshIntervalMs = opts.refreshIntervalMs ?? 500;
    this.#rankAllMax = opts.rankAllMax ?? RANK_ALL_MAX;
    this.#rankSample = opts.rankSample ?? RANK_SAMPLE;
  }

  /**
   * Starts building the title index in the background (restoring its snapshot first when there is
   * a usable one), and the backstop refresh timer (unref'd).
   */
  start(): void {
    this.#titles.catchUpLater();
    if (this.#timer === undefined) {
      this.#timer = setInterval(() => this.refresh(), this.#refreshIntervalMs);
      this.#timer.unref();
    }
  }

  /** True once the title index has been built. */
  get ready(): boolean {
    return this.#titles.ready;
  }

  /** True when the title index started from its snapshot file (not from the pages table). */
  get restoredFromSnapshot(): boolean {
    return this.#titles.restoredFrom !== undefined;
  }

  /** Writes the title index's snapshot now (see TitleIndex.writeSnapshot); nothing without a snapshot file. */
  writeSnapshot(): Promise<void> {
    return this.#titles.writeSnapshot();
  }

  /** Reads pages stored since the last refresh into the title index now (FTS5 is always current). */
  refresh(): void {
    this.#titles.catchUp();
  }

  /** Stops the timer and any build in progress (with a snapshot file, writes a last snapshot: see TitleIndex.close). */
  close(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#titles.close();
  }

  /**
   * Searches (see the file comment); throws BadQueryError when nothing searchable was typed. Any
   * other failure is rethrown as a plain `search:` error (its cause kept for the log), so no
   * SQLite or FTS5 message ever reaches a client.
   */
  search(q: string, opts: { limit: number; offset: number }): SearchResponse {
    try {
      return this.#search(q, opts);
    } catch (err) {
      if (err instanceof BadQueryError) throw err;
      throw new Error('search: the index could not answer this query', { cause: err });
    }
  }

  /** Completions for as-you-type: words completing the last word, and matching page titles. */
  suggest(q: string, limit: number): SuggestResponse {
    try {
      return this.#suggest(q, limit);
    } catch (err) {
      throw new Error('search: the index could not answer this suggestion request', { cause: err });
    }
  }

  #search(q: string, opts: { limit: number; offset: number }): SearchResponse {
    const started = performance.now();
    const limit = clampInt(opts.limit, 1, MAX_LIMIT, 10);
    const offset = clampInt(opts.offset, 0, MAX_OFFSET, 0);
    const typed = parseQuery(q);
    if (typed.items.length === 0) {
      throw new BadQueryError(typed.text === ''
        ? 'search: type some words to search for'
        : 'search: nothing to search for (only operators, excluded words or site:, label: or filetype: filters)');
    }
    const parsed = this.#prefixes.apply(typed);
    const depth = Math.max(CANDIDATES, offset + limit);
    const words = itemWords(parsed.items);
    const last = typed.items[typed.items.length - 1];
    const prefixLast = last.kind === 'term' && last.prefix;
    const queryTerms = this.#titles.queryTerms(words);
    const corrections = this.#corrections(parsed);
    const notices: string[] = [];
    if (parsed.truncated) notices.push('The query was cut to its first 1000 characters.');
    for (const [word, alternatives] of corrections) {
      notices.push(`No page contains “${word}”; also searched for ${alternatives.map((a) => `“${a}”`).join(', ')}.`);
    }

    let mode: 'and' | 'or' = 'and';
    const shape = { words, prefixLast, want: offset + limit };
    let attempt = this.#attempt(parsed, 'and', corrections, shape, depth);
    if (attempt.lists.every((l) => l.ids.length === 0) && parsed.items.length > 1) {
      mode = 'or';
      attempt = this.#attempt(parsed, 'or', corrections, shape, depth);
      notices.push('No page contains all of the words; showing pages that contain some of them.');
    }

    const { fused, meta, window, folded } = this.#rank(attempt, queryTerms, offset + limit);
    const page = fused.slice(offset, offset + limit);
    // A page that said nosnippet shows no text of its own: no snippet is made for it.
    const snippets = this.#fts.snippets(attempt.match, page.filter((r) => !meta.get(r.id)!.nosnippet).map((r) => r.id));
    const capture = this.#capture.meta(page.map((r) => r.id));
    const results: SearchResult[] = page.map((r) => {
      const m = meta.get(r.id) as PageMeta;
      const marked = snippets.get(r.id);
      const c = capture.get(r.id);
      const fileType = c?.fileType ?? 'html';
      return {
        url: m.url,
        title: m.title,
        host: m.host,
        snippet: m.nosnippet ? [] : marked !== undefined ? piecesFromMarked(marked, MARK_START, MARK_END) : this.#ownSnippet(m, words),
        score: round(r.score),
        fetchedAt: new Date(m.fetchedAt).toISOString(),
        stored: !m.noarchive,
        labels: c?.labels ?? [],
        fileType,
        page: fileType === 'pdf' && marked !== undefined && !m.nosnippet ? this.#capture.pageOf(r.id, marked, MARK_START, MARK_END) : null,
      };
    });
    return {
      query: parsed.text,
      // Duplicates folded in the window are not counted; any beyond it are (their content is not read).
      total: Math.max(fused.length, attempt.ftsTotal >= COUNT_CAP
        ? COUNT_CAP
        : attempt.ftsTotal + attempt.extra.filter((id) => meta.has(id) || !window.has(id)).length - folded),
      tookMs: round(performance.now() - started),
      mode,
      notice: notices.length > 0 ? notices.join(' ') : null,
      indexing: !this.#titles.ready,
      results,
    };
  }

  #suggest(q: string, limit: number): SuggestResponse {
    const max = clampInt(limit, 1, MAX_SUGGEST, 8);
    const parsed = parseQuery(q);
    if (parsed.items.length === 0) return { query: parsed.text, suggestions: [] };
    const last = parsed.items[parsed.items.length - 1];
    const terms: Suggestion[] = [];
    const lastRaw = /\S+$/.exec(parsed.text)?.[0] ?? '';
    if (last.kind === 'term' && !/\s$/.test(q) && lastRaw.length > 0) {
      const head = parsed.text.slice(0, parsed.text.length - lastRaw.length);
      const sign = /^[-+]/.test(lastRaw) ? lastRaw[0] : '';
      for (const word of this.#titles.complete(last.folded, max)) {
        terms.push({ text: `${head}${sign}${word}`, kind: 'term' });
      }
    }
    // While a word is being typed it is a prefix; only if that finds no title is it also taken as a typo.
    const typing = !/\s$/.test(q);
    const words = itemWords(parsed.items);
    let hits = this.#titles.search(words, { prefixLast: typing, fuzzyLast: !typing, limit: max, combineWith: 'AND' }).hits;
    if (hits.length === 0 && typing) hits = this.#titles.search(words, { prefixLast: true, limit: max, combineWith: 'AND' }).hits;
    const meta = this.#fts.meta(hits.map((h) => h.id));
    const titles: Suggestion[] = [];
    for (const h of hits) {
      const m = meta.get(h.id);
      if (m !== undefined && m.title.trim() !== '') titles.push({ text: m.title, kind: 'title', url: m.url });
    }
    const own = parsed.text.toLowerCase();
    const firstTerms = terms.slice(0, Math.ceil(max / 2));
    const ordered = [...firstTerms, ...titles, ...terms.slice(firstTerms.length)];
    const seen = new Set<string>();
    const suggestions = ordered.filter((s) => {
      const key = `${s.kind}:${s.text.toLowerCase()}:${s.url ?? ''}`;
      if (seen.has(key) || (s.kind === 'term' && s.text.toLowerCase() === own)) return false;
      seen.add(key);
      return true;
    }).slice(0, max);
    return { query: parsed.text, suggestions };
  }

  /** Words of 5+ letters that no page contains (not even as a prefix, for a prefix word), with close words from the title index. */
  #corrections(parsed: ParsedQuery): Corrections {
    const out = new Map<string, string[]>();
    for (const item of parsed.items) {
      if (item.kind !== 'term' || item.ident !== undefined || item.folded.length < FUZZY_MIN_CHARS) continue;
      if (out.has(item.folded) || this.#fts.exists(quote(item.text) + (item.prefix ? '*' : ''))) continue;
      const close = this.#titles.corrections(item.folded, 3);
      if (close.length > 0) out.set(item.folded, close);
    }
    return out;
  }

  /**
   * One pass of steps 3 and 4 (see the file comment) in the given mode. Title-index hits outside
   * the full-text top list are either full-text matches ranked lower (already counted) or matches
   * only the title index makes (a prefix, a typo, a URL word): those must pass the phrases,
   * exclusions and site: filters, checked in SQL for just those ids.
   */
  #attempt(
    parsed: ParsedQuery, mode: 'and' | 'or', corrections: Corrections,
    q: { words: string[]; prefixLast: boolean; want: number }, depth: number,
  ): Attempt {
    const title = this.#titles.search(q.words, { prefixLast: q.prefixLast, limit: depth, combineWith: mode === 'and' ? 'AND' : 'OR' });
    const hits = title.hits;
    const match = matchExpression(parsed, mode, corrections) as string;
    const filters: HostFilters = { sites: parsed.sites, excludedSites: parsed.excludedSites, labels: parsed.labels, fileTypes: parsed.fileTypes };
    const ftsTotal = this.#fts.count(match, COUNT_CAP, filters);
    const ftsIds = this.#ranked(parsed, mode, corrections, match, ftsTotal, depth, q.want, filters);
    const identMatch = identExpression(parsed, mode);
    const exactIds = identMatch === undefined ? [] : this.#fts.topExact(match, identMatch, depth, filters);
    // A short top list is every full-text match: no hit outside it matches.
    const complete = ftsTotal < depth;

    // The title index ANDs (or ORs) the words too. When it was not asked for every word (a very
    // common one was left out), its hits qualify only as full-text matches, never as extras.
    const extrasAllowed = mode === 'or' || title.complete;
    const inTop = new Set(ftsIds);
    let outside = hits.filter((h) => !inTop.has(h.id)).map((h) => h.id);
    if (outside.length > 0 && (filters.sites.length > 0 || filters.excludedSites.length > 0 || hasCaptureFilters(filters))) {
      const ok = this.#fts.withinHosts(outside, filters);
      outside = outside.filter((id) => ok.has(id));
    }
    // A rowid lookup per id costs tens of microseconds: check only the best VERIFY_MAX.
    if (!complete) outside = outside.slice(0, VERIFY_MAX);
    const matchingFts = complete ? new Set<number>() : this.#fts.matching(match, outside);
    let extra = extrasAllowed ? outside.filter((id) => !matchingFts.has(id)) : [];
    const phrases = phrasesExpression(parsed);
    if (extra.length > 0 && phrases !== undefined && mode === 'and') {
      const ok = this.#fts.matching(phrases, extra);
      extra = extra.filter((id) => ok.has(id));
    }
    const excluded = excludedExpression(parsed);
    if (extra.length > 0 && excluded !== undefined) {
      const bad = this.#fts.matching(excluded, extra);
      extra = extra.filter((id) => !bad.has(id));
    }
    const keep = new Set([...inTop, ...matchingFts, ...extra]);
    return {
      match,
      lists: [
        { ids: ftsIds, weight: 1 },
        { ids: hits.filter((h) => keep.has(h.id)).map((h) => h.id), weight: 1 },
        { ids: exactIds, weight: 2 },
      ],
      titleHits: new Map(hits.map((h) => [h.id, h])),
      ftsTotal,
      extra,
    };
  }

  /**
   * The best `depth` full-text matches. Exact bm25 order up to RANK_ALL_MAX matches; above that
   * (a very common word), ranking every match would cost tens of ms, so the list is the best
   * matches in title, headings and description (bm25 among the newest RANK_SAMPLE of those), then,
   * if those do not fill the wanted page (`want` = offset + limit), the best among the newest
   * RANK_SAMPLE matches anywhere.
   */
  #ranked(
    parsed: ParsedQuery, mode: 'and' | 'or', corrections: Corrections, match: string, total: number,
    depth: number, want: number, filters: HostFilters,
  ): number[] {
    if (total <= this.#rankAllMax) return this.#fts.top(match, depth, filters);
    const short = matchExpression(parsed, mode, corrections, ['title', 'headings', 'description']) as string;
    const ids = this.#fts.topOfNewest(short, depth, this.#rankSample, filters);
    if (ids.length >= want) return ids;
    const seen = new Set(ids);
    for (const id of this.#fts.topOfNewest(match, depth, this.#rankSample, filters)) {
      if (ids.length >= depth) break;
      if (!seen.has(id)) ids.push(id);
    }
    return ids;
  }

  /**
   * Ranks an attempt's lists with each page's signals, one result per content (duplicates.ts), far
   * enough for `want` results. Boosts are at most × 1.45 (rank-fusion.ts), so a page more than
   * BOOST_REACH places below the last wanted one by plain RRF cannot reach them: only that window
   * needs signals; it widens while folded duplicates leave it short of `want`.
   */
  #rank(attempt: Attempt, queryTerms: readonly string[], want: number) {
    const plain = fuseRankings(attempt.lists, new Map());
    for (let reach = BOOST_REACH; ; reach *= 2) {
      const ids = plain.slice(0, want + reach).map((r) => r.id);
      const meta = this.#fts.meta(ids);
      const signals = new Map<number, PageSignals>();
      for (const [id, m] of meta) {
        const hit = attempt.titleHits.get(id);
        const titleMatch = hit === undefined || queryTerms.length === 0 ? 0 : Math.min(1, hit.titleTerms / queryTerms.length);
        signals.set(id, { url: m.url, inlinks: m.inlinks, titleMatch });
      }
      // Pages gone since the title index last caught up have no meta: they are left out (and not counted).
      const ranked = fuseRankings(attempt.lists, signals).filter((r) => meta.has(r.id));
      const fused = firstPerContent(ranked, (id) => meta.get(id)!.contentHash);
      if (fused.length >= want || ids.length === plain.length || reach >= 8 * BOOST_REACH) {
        return { fused, meta, window: new Set(ids), folded: ranked.length - fused.length };
      }
    }
  }

  /** A snippet for a page found only through the title index: its description or the start of its body. */
  #ownSnippet(m: PageMeta, words: readonly string[]) {
    const text = m.description.trim() !== '' ? m.description : this.#fts.bodyStart(m.id, 400);
    return makeSnippet(text, words, 200);
  }
}
