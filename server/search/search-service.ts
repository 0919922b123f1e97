/**
 * Search as the server offers it: one query asks the full-text index (FTS5, in the database) and
 * the title index (MiniSearch, in memory), and fuses their top-k lists (rank-fusion.ts).
 *
 * Per query, with depth = max(100, offset + limit):
 * 1. parse (query-parser.ts); nothing searchable → BadQueryError;
 * 2. spelling (query-spelling.ts): when a word of 4+ letters is in no page and a close indexed
 *    word makes the query find something, the results are the corrected query's ("Showing results
 *    for …; search instead for …", `correction.applied`); when a query finds little and a rare word
 *    of it has a far more common close word, the correction is offered (`correction`, "did you mean");
 * 3-4. the candidate lists (candidate-lists.ts):
 * 3. title index: best `depth` pages for the words (ANDed, prefix on the last word, typo-tolerant;
 *    very common words are left to FTS, see title-search.ts);
 * 4. FTS: a count capped at COUNT_CAP; the best `depth` by weighted bm25 for the words ANDed
 *    (bounded for very common words, see CandidateLists #ranked), plus the best `depth` of those containing
 *    typed identifiers exactly; title-index hits join when they are full-text matches, or, when
 *    they matched every word only in the title index (a prefix, a typo, a URL word), if they pass
 *    the phrases, exclusions and site:, label: and filetype: filters (checked in SQL for just those ids);
 *    pages whose incoming links' words (anchor text, anchors_fts) match join as a list of their own
 *    when they are full-text matches;
 * 5. nothing at all → the same with the words ORed (mode 'or', and the notice says so when that
 *    finds something); a question (question-lists.ts) whose topic words found pages skips that pass:
 *    its topic lists rank the pages that lack some words;
 * 6. fuse (rank-fusion.ts), one result per content, deal the ranking into pages with at most two
 *    results of a site on a page while other sites' results can fill it (site-folding.ts), page with
 *    offset/limit, snippets for that page only (and in mode 'or', each result's missing words).
 * A query of only site:, label: or filetype: filters lists what they select, newest first (filter-browse.ts).
 * Nothing ever ranks all matches in JavaScript, and a common word costs a bounded count.
 */
import type { Database } from 'better-sqlite3';
import { pageQueries } from '../../db/pages.ts';
import { FtsSearch } from './fts-search.ts';
import { itemWords, parseQuery } from './query-parser.ts';
import type { ParsedQuery } from './query-parser.ts';
import { FtsPrefixes } from './fts-prefixes.ts';
import { rankWindow } from './ranked-window.ts';
import { TitleIndex } from './title-index.ts';
import type { TitleSnapshotOptions } from './title-index.ts';
import type { SearchResponse, SuggestResponse } from './types.ts';
import { Completions } from './completions.ts';
import { QuerySpelling } from './query-spelling.ts';
import { moreFromSite, spreadSites } from './site-folding.ts';
import { FilterBrowse, isBrowse } from './filter-browse.ts';
import { missingWords } from './missing-words.ts';
import { FEW_RESULTS } from './search-options.ts';
import type { RankingOptions, SearchOptions } from './search-options.ts';
import { CaptureSearch } from './capture-filters.ts';
import { ResultShaper } from './result-shape.ts';
import { CANDIDATES, CandidateLists, COUNT_CAP, RANK_ALL_MAX, RANK_SAMPLE } from './candidate-lists.ts';
import { QuestionLists } from './question-lists.ts';
import { snippetMatch } from './snippet-match.ts';
import { WordNet } from './wordnet.ts';
import { startWarmUp, WARM_TERMS } from './term-warm-up.ts';
import { FtsStems } from './fts-stems.ts';
import type { WarmUp, WarmUpReport } from './term-warm-up.ts';
import { primeCache } from './cache-prime-run.ts';
import type { PrimeReport } from './cache-prime-run.ts';

/** A query with nothing searchable in it (the API answers 400 bad-query with the message). */
export class BadQueryError extends Error {
  readonly code = 'bad-query';
  override name = 'BadQueryError';
}

export const MAX_LIMIT = 50;
export const MAX_OFFSET = 1000;
export const MAX_SUGGEST = 20;
/**
 * SQLite's page cache on the search's connection, in KiB (better-sqlite3's default is 16 MB). At 1M pages the
 * workload's searches read 6 MB each through system calls with 16 MB (1.27 GB per 200), the
 * same few interior and index pages again and again; with 128 MB, 0.55 GB (search-profile.ts). The
 * cache fills as pages are read: RSS grows by at most this much.
 */
export const PAGE_CACHE_KIB = 131_072;
/** Results are ranked this many at a time (see #search), so that the pages of a query share one ranking. */
const WANT_STEP = 50;

export type { RankingOptions, SearchOptions } from './search-options.ts';
/** A finished start-up warm-up: the thread's report, and then the search connection's own page cache primed (cache-prime.ts). */
export type SearchWarmUpReport = WarmUpReport & { prime: PrimeReport };
export { CANDIDATES, COUNT_CAP, RANK_ALL_MAX, RANK_SAMPLE, VERIFY_MAX } from './candidate-lists.ts';

function clampInt(n: number, min: number, max: number, fallback: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.trunc(n))) : fallback;
}

function round(n: number): number {
  return Number(n.toPrecision(6));
}

let wordnet: WordNet | undefined;
/** Synonyms from WordNet, one reader per process (its files open on first use; wordnet.ts). */
function wordnetSynonyms(): (word: string) => string[] {
  return (word) => {
    wordnet ??= new WordNet();
    return wordnet.synonyms(word);
  };
}

/** Search over one database: construct, `start()`, then `search`/`suggest`; `refresh()` when pages were stored. */
export class SearchService {
  readonly #fts: FtsSearch;
  readonly #titles: TitleIndex;
  readonly #refreshIntervalMs: number;
  readonly #prefixes: FtsPrefixes;
  readonly #completions: Completions;
  readonly #spelling: QuerySpelling;
  readonly #ranking: RankingOptions;
  readonly #candidates: CandidateLists;
  readonly #shape: ResultShaper;
  readonly #questions: QuestionLists | undefined;
  readonly #browse: FilterBrowse;
  readonly #db: Database;
  #timer: NodeJS.Timeout | undefined;
  #warmUp: WarmUp | undefined;
  #warmed: Promise<SearchWarmUpReport | undefined> | undefined;
  #closed = false;
  readonly #warmTerms: number;

  /**
   * A service reading `db` (migrated through 0002), whose page cache it sets to PAGE_CACHE_KIB; nothing runs until `start()`. `chunkRows`,
   * `rankAllMax` and `rankSample` default to CHUNK_ROWS, RANK_ALL_MAX and RANK_SAMPLE (tests shrink
   * them), and `warmTerms` WARM_TERMS. With `snapshot`, the title index starts from (and keeps) a
   * snapshot file (title-index.ts).
   */
  constructor(
    db: Database,
    opts: {
      refreshIntervalMs?: number;
      chunkRows?: number;
      rankAllMax?: number;
      rankSample?: number;
      snapshot?: TitleSnapshotOptions;
      ranking?: Partial<RankingOptions>;
      warmTerms?: number;
    } = {},
  ) {
    this.#db = db;
    db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
    this.#warmTerms = opts.warmTerms ?? WARM_TERMS;
    this.#fts = new FtsSearch(db);
    this.#shape = new ResultShaper(this.#fts, new CaptureSearch(db));
    this.#browse = new FilterBrowse(db);
    this.#prefixes = new FtsPrefixes(this.#fts);
    this.#titles = new TitleIndex(pageQueries(db), { chunkRows: opts.chunkRows, snapshot: opts.snapshot });
    this.#refreshIntervalMs = opts.refreshIntervalMs ?? 500;
    this.#completions = new Completions(this.#titles, this.#fts);
    this.#spelling = new QuerySpelling(this.#titles, this.#fts);
    this.#ranking = {
      anchors: true,
      linkInlinks: true,
      linkDensity: true,
      questions: true,
      synonyms: true,
      topicAnchors: true,
      feedback: true,
      ...opts.ranking,
    };
    this.#candidates = new CandidateLists(this.#fts, this.#titles, {
      rankAllMax: opts.rankAllMax ?? RANK_ALL_MAX,
      rankSample: opts.rankSample ?? RANK_SAMPLE,
      anchors: this.#ranking.anchors,
      stems: new FtsStems(db),
      prefixes: this.#prefixes,
    });
    this.#questions = this.#ranking.questions
      ? new QuestionLists(this.#fts, {
          rankAllMax: opts.rankAllMax ?? RANK_ALL_MAX,
          synonyms: this.#ranking.synonyms ? wordnetSynonyms() : undefined,
          anchors: this.#ranking.topicAnchors,
          feedback: this.#ranking.feedback,
        })
      : undefined;
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

  /**
   * Starts the start-up warm-up in a thread of its own (term-warm-up.ts): the full-text index read
   * once, and the most common words' commonness decided before searches ask. Searches answer
   * meanwhile. Then fills this connection's page cache with what every search reads (cache-prime.ts),
   * a slice per turn of the event loop. Settles with its report (undefined when closed first, or for a
   * database in memory); rejects with a `term-warm-up:` error when its thread failed, or a `cache-prime-run:`
   * error when a read of the prime failed. Started once: a second call gets the first's.
   */
  warmUp(): Promise<SearchWarmUpReport | undefined> {
    if (this.#db.memory) return Promise.resolve(undefined);
    if (this.#warmed !== undefined) return this.#warmed;
    this.#warmUp = startWarmUp(
      this.#db.name,
      {
        pageCount: () => this.#fts.pageCount(),
        rememberCommon: (key, common) => this.#candidates.rememberCommon(key, common),
        rememberCeiling: (words, pages) => this.#candidates.rememberCeiling(words, pages),
      },
      this.#warmTerms,
    );
    this.#warmed = this.#warmUp.done.then(async (report) => {
      if (report === undefined || this.#closed) return undefined;
      const prime = await primeCache(this.#db, () => this.#closed);
      return this.#closed ? undefined : { ...report, prime };
    });
    return this.#warmed;
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

  /**
   * Stops the timer, the warm-up and any build in progress (with a snapshot file, writes a last
   * snapshot: see TitleIndex.close).
   */
  close(): void {
    this.#closed = true;
    this.#warmUp?.stop();
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#titles.close();
  }

  /**
   * Searches (see the file comment); throws BadQueryError when nothing searchable was typed. Any
   * other failure is rethrown as a plain `search:` error (its cause kept for the log), so no
   * SQLite or FTS5 message ever reaches a client.
   */
  search(q: string, opts: SearchOptions): SearchResponse {
    try {
      return this.#corrected(q, opts);
    } catch (err) {
      if (err instanceof BadQueryError) throw err;
      throw new Error('search: the index could not answer this query', { cause: err });
    }
  }

  /** As-you-type suggestions: query completions and pages (completions.ts). */
  suggest(q: string, limit: number): SuggestResponse {
    try {
      return this.#completions.suggest(q, clampInt(limit, 1, MAX_SUGGEST, 8));
    } catch (err) {
      throw new Error('search: the index could not answer this suggestion request', { cause: err });
    }
  }

  /** Step 2 (see the file comment) around the search itself. */
  #corrected(q: string, opts: SearchOptions): SearchResponse {
    const started = performance.now();
    const typed = parseQuery(q);
    if (opts.correct !== false && typed.items.length > 0) {
      const fix = this.#spelling.fixMissing(typed);
      if (fix !== undefined) {
        const { response: fixed } = this.#search(fix.text, opts);
        if (fixed.total > 0) {
          const missing = fix.changed.map((c) => `“${c.from}”`).join(', ');
          const notice = `No page contains ${missing}. Showing results for “${fix.text}”; search instead for “${typed.text}”.`;
          return {
            ...fixed,
            query: typed.text,
            correction: { query: fix.text, applied: true },
            notice: [notice, fixed.notice].filter((n) => n !== null).join(' '),
            tookMs: round(performance.now() - started),
          };
        }
      }
    }
    const { response: r, ftsTotal } = this.#search(q, opts);
    // Few pages have the words as typed (title-index typo matches aside): maybe a word is misspelled.
    if (opts.correct !== false && Math.min(r.total, ftsTotal) < FEW_RESULTS) {
      const fix = this.#spelling.fixRare(typed);
      if (fix !== undefined && fix.text !== typed.text) r.correction = { query: fix.text, applied: false };
      r.tookMs = round(performance.now() - started);
    }
    return r;
  }

  /** Steps 1 and 3-6 (see the file comment) for the query as typed; with the full-text match count (words as typed). */
  #search(q: string, opts: SearchOptions): { response: SearchResponse; ftsTotal: number } {
    const started = performance.now();
    const limit = clampInt(opts.limit, 1, MAX_LIMIT, 10);
    const offset = clampInt(opts.offset, 0, MAX_OFFSET, 0);
    const typed = parseQuery(q);
    if (isBrowse(typed)) {
      const response = this.#browsed(typed, offset, limit, started);
      return { response, ftsTotal: response.total };
    }
    if (typed.items.length === 0) {
      throw new BadQueryError(
        typed.text === ''
          ? 'search: type some words to search for'
          : 'search: nothing to search for (only excluded words or -site: filters); add a word, or a site:, label: or filetype: filter',
      );
    }
    const parsed = this.#prefixes.apply(typed);
    const depth = Math.max(CANDIDATES, offset + limit);
    const words = itemWords(parsed.items);
    const last = typed.items[typed.items.length - 1];
    const prefixLast = last.kind === 'term' && last.prefix;
    const queryTerms = this.#titles.queryTerms(words);
    const notices: string[] = [];
    if (parsed.truncated) notices.push('The query was cut to its first 1000 characters.');

    let mode: 'and' | 'or' = 'and';
    const shape = { words, prefixLast, want: offset + limit };
    let attempt = this.#candidates.attempt(parsed, 'and', shape, depth);
    // Full-text matches of the expression `attempt.match` (what snippetMatch needs).
    let ownMatches = attempt.ftsTotal;
    let question = this.#questions?.lists(parsed, parsed, depth, attempt.lists);
    if (attempt.lists.every((l) => l.ids.length === 0) && parsed.items.length > 1) {
      // A question's topic words rank pages that lack some of its words (question-lists.ts): the OR
      // pass, which costs as much again, runs only when they found nothing.
      const answered = question !== undefined && question.lists.some((l) => l.ids.length > 0);
      const any = answered ? undefined : this.#candidates.attempt(parsed, 'or', shape, depth);
      // Said only when it finds something: a notice above no results would contradict itself.
      if (any === undefined || any.lists.some((l) => l.ids.length > 0)) {
        mode = 'or';
        notices.push('No page contains all of the words; showing pages that contain some of them.');
        if (any !== undefined) {
          question = this.#questions?.lists(parsed, parsed, depth, any.lists);
          ownMatches = any.ftsTotal;
        }
        attempt = any ?? { ...attempt, ftsTotal: new Set(question?.lists.flatMap((l) => l.ids)).size };
      }
    }
    if (question !== undefined) attempt = { ...attempt, lists: question.lists };
    // Ranked in steps of WANT_STEP, so that the pages of one query deal the same ranking (site-folding.ts).
    const { fused, meta, window, folded } = rankWindow(
      this.#fts,
      this.#ranking,
      attempt,
      queryTerms,
      Math.ceil((offset + limit) / WANT_STEP) * WANT_STEP,
    );
    const hosts = fused.map((r) => meta.get(r.id)!.host);
    const order = spreadSites(hosts, limit);
    const page = order.slice(offset, offset + limit).map((i) => fused[i]);
    const more = moreFromSite(hosts, order, offset, limit);
    // A page that said nosnippet shows no text of its own: no snippet is made for it.
    // Pages the question lists found mark the words they matched, their own words for a synonym.
    const snippets = this.#fts.snippets(
      snippetMatch(attempt.match, ownMatches, parsed, question?.match),
      page.filter((r) => !meta.get(r.id)!.nosnippet).map((r) => r.id),
    );
    const missing =
      mode === 'or'
        ? missingWords(
            this.#fts,
            parsed.items,
            page.map((r) => r.id),
          )
        : undefined;
    const results = this.#shape.results(page, meta, snippets, words, question?.synonyms ?? new Map(), (r, i) => ({
      score: round(r.score),
      moreFromSite: more[i],
      missing: missing?.get(r.id) ?? [],
    }));
    const response: SearchResponse = {
      query: parsed.text,
      // Duplicates folded in the window are not counted; any beyond it are (their content is not read).
      total: Math.max(
        fused.length,
        attempt.ftsTotal >= COUNT_CAP
          ? COUNT_CAP
          : attempt.ftsTotal + attempt.extra.filter((id) => meta.has(id) || !window.has(id)).length - folded,
      ),
      tookMs: round(performance.now() - started),
      mode,
      notice: notices.length > 0 ? notices.join(' ') : null,
      indexing: !this.#titles.ready,
      correction: null,
      results,
    };
    return { response, ftsTotal: attempt.ftsTotal };
  }

  /** A filters-only query (filter-browse.ts): the pages it selects, newest first. */
  #browsed(typed: ParsedQuery, offset: number, limit: number, started: number): SearchResponse {
    const ids = this.#browse.newest(typed, offset, limit);
    const meta = this.#fts.meta(ids);
    const page = ids.filter((id) => meta.has(id)).map((id) => ({ id }));
    return {
      query: typed.text,
      total: Math.max(offset + page.length, this.#browse.count(typed, COUNT_CAP)),
      tookMs: round(performance.now() - started),
      mode: 'and',
      notice: typed.truncated ? 'The query was cut to its first 1000 characters.' : null,
      indexing: false,
      correction: null,
      results: this.#shape.results(page, meta, new Map(), [], new Map(), () => ({
        score: 0,
        moreFromSite: false,
        missing: [],
      })),
    };
  }
}
