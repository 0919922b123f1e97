/**
 * Step 3 and 4 of a search (server/search/search-service.ts): the candidate lists of one query in one
 * mode, before fusion. The title index's best pages; the full-text matches counted (up to COUNT_CAP)
 * and ranked by bm25 within bounds (#ranked); pages with the typed identifiers; title-index hits that
 * are not full-text matches (a prefix, a typo, a URL word) kept only when they pass the phrases,
 * exclusions and site:, label: and filetype: filters; and the full-text matches whose incoming links'
 * words match (anchor text; the rarer words only, within ANCHOR_RANK_MAX matches). Every read is bounded by `depth`, a LIMIT or a given list of ids.
 */
import {
  excludedExpression,
  identExpression,
  itemExpression,
  matchExpression,
  phrasesExpression,
  quote,
} from './fts-expression.ts';
import type { FtsSearch, HostFilters } from './fts-search.ts';
import type { ParsedQuery } from './query-parser.ts';
import type { TitleIndex } from './title-index.ts';
import type { TitleHit } from './title-search.ts';
import { ANCHOR_CANDIDATES, ANCHOR_RANK_MAX, COUNT_CACHE_MAX, COUNT_CACHE_TTL_MS } from './search-options.ts';
import { hasFilters } from './capture-filters.ts';
import { CommonTerms } from './common-terms.ts';
import type { FtsStems } from './fts-stems.ts';
import type { FtsPrefixes } from './fts-prefixes.ts';
import type { PrefixWords } from './fts-expression.ts';
import { PrefixTerms } from './prefix-terms.ts';
import { CappedCounts } from './capped-counts.ts';

/** The columns the first bounded list of a very common query ranks in (see CandidateLists #ranked). */
export const SHORT_COLUMNS: readonly string[] = ['title', 'headings', 'description'];

/**
 * What a word's commonness is kept under (CommonTerms): its index word `stem` (fts-stems.ts) quoted,
 * within `columns`. The warm-up (warm-verdicts.ts) remembers its verdicts under the same keys.
 */
export function commonKey(stem: string, columns?: readonly string[]): string {
  return withinColumns(quote(stem), columns);
}

/**
 * One item's expression within `columns` (every column when undefined): the form in which #rankExpression
 * asks CommonTerms whether the item is common (the warm-up, term-warm-up.ts, primes the same strings).
 */
export function withinColumns(expression: string, columns?: readonly string[]): string {
  return columns === undefined ? expression : `{${columns.join(' ')}} : ${expression}`;
}

/** Candidates taken from each ranking before fusion (more when paging deeper). */
export const CANDIDATES = 100;
/** Up to this many full-text matches are ranked exactly by bm25 (see #ranked). */
export const RANK_ALL_MAX = 2000;
/** Above RANK_ALL_MAX, bm25 ranks only this many of the newest matches per list. */
export const RANK_SAMPLE = 1500;
/** Title-index hits below the full-text top list checked against the full-text query (when it has more matches). */
export const VERIFY_MAX = 20;
/** Matches are counted up to this many; above it `total` is this number (a lower bound). */
export const COUNT_CAP = 10_000;

/** The candidate lists of one query in one mode (see the file comment). */
export interface Attempt {
  match: string;
  lists: Array<{ ids: number[]; weight: number }>;
  titleHits: Map<number, TitleHit>;
  /** Full-text matches, counted up to COUNT_CAP. */
  ftsTotal: number;
  /** Title-index-only matches (prefix or typo matches in short fields); unchecked hits at COUNT_CAP (see attempt). */
  extra: number[];
}

/** What a query looks for: its words, whether the last is a prefix, and how many results are wanted (offset + limit). */
export interface AttemptShape {
  words: string[];
  prefixLast: boolean;
  want: number;
}

/** The candidate lists of queries over one full-text index and one title index (see the file comment). */
export class CandidateLists {
  readonly #fts: FtsSearch;
  readonly #titles: TitleIndex;
  readonly #rankAllMax: number;
  readonly #rankSample: number;
  readonly #anchors: boolean;
  readonly #anchorCounts: CappedCounts;
  readonly #termCounts: CappedCounts;
  readonly #common: CommonTerms;
  readonly #stems: FtsStems | undefined;
  readonly #prefixes: FtsPrefixes | undefined;
  readonly #prefixTerms: PrefixTerms | undefined;

  /**
   * `rankAllMax` and `rankSample`: see RANK_ALL_MAX and RANK_SAMPLE; `anchors`: whether anchor text
   * ranks (RankingOptions); `stems`: when given, a word's commonness is kept under its index word
   * (commonKey), as the start-up warm-up remembers it, and a word outside the warm-up's list or (with
   * `prefixes`) a prefix whose words are in fewer than half the pages is not common without a count;
   * and the statements that only list or count matches get a prefix as its index words ORed (prefix-terms.ts).
   */
  constructor(
    fts: FtsSearch,
    titles: TitleIndex,
    opts: { rankAllMax: number; rankSample: number; anchors: boolean; stems?: FtsStems; prefixes?: FtsPrefixes },
  ) {
    this.#fts = fts;
    this.#stems = opts.stems;
    this.#prefixes = opts.prefixes;
    this.#titles = titles;
    this.#rankAllMax = opts.rankAllMax;
    this.#rankSample = opts.rankSample;
    this.#anchors = opts.anchors;
    this.#common = new CommonTerms(fts);
    const kept = { ttlMs: COUNT_CACHE_TTL_MS, max: COUNT_CACHE_MAX };
    this.#termCounts = new CappedCounts((e, cap) => fts.count(e, cap), kept);
    this.#anchorCounts = new CappedCounts((e, cap) => fts.anchorCount(e, cap), kept);
    const stems = opts.stems;
    this.#prefixTerms =
      stems === undefined
        ? undefined
        : new PrefixTerms({
            termsStartingWith: (prefix, max) => fts.termsStartingWith(prefix, max),
            indexVersion: () => fts.indexVersion(),
            stem: (word) => stems.stem(word),
          });
  }

  /** Takes a verdict on whether a word is common, learned by the warm-up, under its commonKey (CommonTerms.remember). */
  rememberCommon(key: string, common: boolean): void {
    this.#common.remember(key, common);
  }

  /** Takes the warm-up's list of the index words in the most pages, the fewest of which `pages` (CommonTerms.rememberCeiling). */
  rememberCeiling(words: Iterable<string>, pages: number): void {
    this.#common.rememberCeiling(words, pages);
  }

  /**
   * One pass of steps 3 and 4 (see the file comment) in the given mode. Title-index hits outside
   * the full-text top list are either full-text matches ranked lower (already counted) or matches
   * only the title index makes (a prefix, a typo, a URL word): those must pass the phrases,
   * exclusions and site: filters, checked in SQL for just those ids.
   */
  attempt(parsed: ParsedQuery, mode: 'and' | 'or', q: AttemptShape, depth: number): Attempt {
    const title = this.#titles.search(q.words, {
      prefixLast: q.prefixLast,
      limit: depth,
      combineWith: mode === 'and' ? 'AND' : 'OR',
    });
    const hits = title.hits;
    const match = matchExpression(parsed, mode) as string;
    // What lists and counts the matches (the same rows): prefix words spelled out where they can be (prefix-terms.ts).
    const prefixWords = this.#prefixTerms?.forQuery(parsed);
    const listMatch =
      prefixWords === undefined ? match : (matchExpression(parsed, mode, undefined, undefined, prefixWords) as string);
    const filters: HostFilters = {
      sites: parsed.sites,
      excludedSites: parsed.excludedSites,
      labels: parsed.labels,
      fileTypes: parsed.fileTypes,
    };
    // The matches' ids, read once up to COUNT_CAP: their number is the count, and up to RANK_ALL_MAX of
    // them, which ids match is known without a lookup per id below (a capped count after reading
    // RANK_ALL_MAX + 1 ids read those again: 10-30 ms at 1M pages for common words).
    const cap = Math.max(COUNT_CAP, this.#rankAllMax + 1);
    // In OR mode, a word that alone reaches the cap makes the query reach it: its matches need not be read.
    const matchIds = this.#orReaches(parsed, mode, filters, cap)
      ? undefined
      : this.#fts.matchIds(listMatch, cap, filters);
    const everyMatch = matchIds !== undefined && matchIds.length <= this.#rankAllMax ? new Set(matchIds) : undefined;
    const ftsTotal = matchIds === undefined ? COUNT_CAP : Math.min(matchIds.length, COUNT_CAP);
    const ftsIds = this.#ranked(
      parsed,
      mode,
      match,
      ftsTotal,
      depth,
      q.want,
      filters,
      everyMatch && matchIds,
      prefixWords,
    );
    const identMatch = identExpression(parsed, mode);
    const exactIds = identMatch === undefined ? [] : this.#fts.topExact(match, identMatch, depth, filters);
    // A short top list is every full-text match: no hit outside it matches.
    const complete = ftsTotal < depth;

    // The title index ANDs (or ORs) the words too. When it was not asked for every word (a very
    // common one was left out), its hits qualify only as full-text matches, never as extras.
    const extrasAllowed = mode === 'or' || title.complete;
    const inTop = new Set(ftsIds);
    let outside = hits.filter((h) => !inTop.has(h.id)).map((h) => h.id);
    if (outside.length > 0 && hasFilters(filters)) {
      const ok = this.#fts.withinHosts(outside, filters);
      outside = outside.filter((id) => ok.has(id));
    }
    // A rowid lookup per id costs tens of microseconds: check only the best VERIFY_MAX.
    if (!complete) outside = outside.slice(0, VERIFY_MAX);
    const phrases = phrasesExpression(parsed);
    const excluded = excludedExpression(parsed);
    // Extras nothing below checks are kept as matches are, and a capped count adds none: which of
    // them match changes nothing then (a lookup each, of every word: 1-3 ms in OR mode).
    const known = complete || (extrasAllowed && ftsTotal >= COUNT_CAP && !excluded && (!phrases || mode === 'or'));
    // The ids checked pass the filters already (withinHosts), so a filtered match is a match.
    const matchingFts = known
      ? new Set<number>()
      : everyMatch !== undefined
        ? new Set(outside.filter((id) => everyMatch.has(id)))
        : this.#fts.matching(listMatch, outside);
    let extra = extrasAllowed ? outside.filter((id) => !matchingFts.has(id)) : [];
    if (extra.length > 0 && phrases !== undefined && mode === 'and') {
      const ok = this.#fts.matching(phrases, extra);
      extra = extra.filter((id) => ok.has(id));
    }
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
        // Words that many pages have are left to the other lists: ranking their anchors would cost what #ranked avoids.
        {
          ids:
            ftsTotal > this.#rankAllMax
              ? []
              : this.#anchored(parsed, listMatch, filters, complete ? inTop : everyMatch),
          weight: 1,
        },
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
   * RANK_SAMPLE matches anywhere. In each, words in half the pages or more are left out of bm25's
   * expression when other words remain (#rankExpression): the order is the same, without bm25
   * reading such a word's every match. `matchIds`: every match, when there are at most RANK_ALL_MAX;
   * `prefixWords`: the prefix words spelled out for listing the newest matches (not for ranking them).
   */
  #ranked(
    parsed: ParsedQuery,
    mode: 'and' | 'or',
    match: string,
    total: number,
    depth: number,
    want: number,
    filters: HostFilters,
    matchIds: readonly number[] | undefined,
    prefixWords: PrefixWords | undefined,
  ): number[] {
    if (total <= this.#rankAllMax) {
      const rank = matchIds === undefined ? undefined : this.#rankExpression(parsed, mode);
      return rank === undefined || matchIds === undefined
        ? this.#fts.top(match, depth, filters)
        : this.#fts.rankAmong(rank, matchIds, depth, false);
    }
    const short = matchExpression(parsed, mode, undefined, SHORT_COLUMNS) as string;
    const ids = this.#topOfNewest(parsed, mode, short, SHORT_COLUMNS, depth, filters, prefixWords);
    if (ids.length >= want) return ids;
    const seen = new Set(ids);
    for (const id of this.#topOfNewest(parsed, mode, match, undefined, depth, filters, prefixWords)) {
      if (ids.length >= depth) break;
      if (!seen.has(id)) ids.push(id);
    }
    return ids;
  }

  /**
   * The best `depth` among the newest RANK_SAMPLE matches of `match` (the query within `columns`), those
   * listed with `prefixWords` spelled out when bm25 ranks them apart (#rankExpression).
   */
  #topOfNewest(
    parsed: ParsedQuery,
    mode: 'and' | 'or',
    match: string,
    columns: readonly string[] | undefined,
    depth: number,
    filters: HostFilters,
    prefixWords: PrefixWords | undefined,
  ): number[] {
    const rank = this.#rankExpression(parsed, mode, columns);
    if (rank === undefined) return this.#fts.topOfNewest(match, depth, this.#rankSample, filters);
    const list =
      prefixWords === undefined ? match : (matchExpression(parsed, mode, undefined, columns, prefixWords) as string);
    return this.#fts.rankAmong(rank, this.#fts.newestIds(list, this.#rankSample, filters), depth, true);
  }

  /**
   * bm25's expression for ranking pages known to match the whole query (mode 'and'): its items
   * (within `columns`) without those in half the pages or more (common-terms.ts), whose weight is
   * bm25's floor (when every item is, they all weigh alike and stay); and one word typed several
   * times ("niv niv") once, since n times a phrase's bm25 orders as its bm25 does. Undefined when
   * that leaves the items as they are (the query's own expression ranks), and in mode 'or', where a
   * page may match by a common word alone.
   */
  #rankExpression(parsed: ParsedQuery, mode: 'and' | 'or', columns?: readonly string[]): string | undefined {
    if (mode !== 'and' || parsed.items.length < 2) return undefined;
    let items = parsed.items.filter((item) => {
      const stem = item.kind === 'term' ? this.#stems?.stem(item.text) : undefined;
      const expression = withinColumns(itemExpression(item), columns);
      if (item.kind === 'term' && item.prefix) {
        // FTS5 searches the stem of the typed letters as the prefix ("suwe"* is "suw"*).
        const atMost = stem === undefined ? undefined : this.#prefixes?.pagesAtMost(stem);
        return !this.#common.isCommon(expression, expression, atMost);
      }
      const atMost = stem === undefined ? undefined : this.#common.pagesAtMost(stem);
      return !this.#common.isCommon(expression, stem === undefined ? expression : commonKey(stem, columns), atMost);
    });
    if (items.length === 0) items = parsed.items;
    if (new Set(items.map((item) => itemExpression(item))).size === 1) items = items.slice(0, 1);
    if (items.length === parsed.items.length) return undefined;
    return matchExpression({ ...parsed, items, excluded: [] }, 'and', undefined, columns);
  }

  /**
   * True when `parsed` in `mode` 'or' reaches `cap` matches because one plain word alone does (CappedCounts),
   * without exclusions and filters (which could leave out that word's pages).
   */
  #orReaches(parsed: ParsedQuery, mode: 'and' | 'or', filters: HostFilters, cap: number): boolean {
    if (mode !== 'or' || parsed.excluded.length > 0 || hasFilters(filters)) return false;
    return parsed.items.some(
      (item) => item.kind === 'term' && !item.prefix && this.#termCounts.atLeast(itemExpression(item), cap),
    );
  }

  /**
   * The pages whose incoming links' words match the query words (any of them, bm25 over
   * anchors_fts), best first, kept only when they are full-text matches of the whole query (within
   * its site: filters): anchor text ranks a page, it does not make one match. `known`: the complete
   * set of full-text matches when it is known (the top list holds them all, or there are at most
   * RANK_ALL_MAX), so no lookup is needed.
   */
  #anchored(
    parsed: ParsedQuery,
    match: string,
    filters: HostFilters,
    known: ReadonlySet<number> | undefined,
  ): number[] {
    // Known to hold no full-text match (an AND of words no page holds all of): no anchor can rank one.
    if (!this.#anchors || known?.size === 0) return [];
    const expression = this.#anchorExpression(parsed);
    if (expression === undefined) return [];
    let ids = this.#fts.anchorTop(expression, ANCHOR_CANDIDATES);
    if (ids.length === 0) return ids;
    if (hasFilters(filters)) {
      const ok = this.#fts.withinHosts(ids, filters);
      ids = ids.filter((id) => ok.has(id));
    }
    const ok = known ?? this.#fts.matching(match, ids);
    return ids.filter((id) => ok.has(id));
  }

  /**
   * The anchor ranking's expression: the words ORed when their anchor-text matches number at most
   * ANCHOR_RANK_MAX; else the words rarest first while their matches add up to at most that, so a
   * very common word costs a bounded count, never a bm25 over its every match. Undefined when no
   * word fits. Each word's count is remembered (#anchorCount); the whole expression is counted only
   * when the words' counts add up to more than ANCHOR_RANK_MAX (they may overlap).
   */
  #anchorExpression(parsed: ParsedQuery): string | undefined {
    const all = matchExpression(parsed, 'or') as string;
    const counted = parsed.items.map((item) => ({ item, n: this.#anchorCount(itemExpression(item)) }));
    const sum = counted.reduce((a, c) => a + c.n, 0);
    if (sum <= ANCHOR_RANK_MAX || this.#fts.anchorCount(all, ANCHOR_RANK_MAX + 1) <= ANCHOR_RANK_MAX) return all;
    const kept = new Set<ParsedQuery['items'][number]>();
    let spent = 0;
    for (const c of [...counted].sort((a, b) => a.n - b.n)) {
      if (spent + c.n > ANCHOR_RANK_MAX) break;
      spent += c.n;
      kept.add(c.item);
    }
    // In the query's order, so the expression reads as the query does.
    const items = parsed.items.filter((item) => kept.has(item));
    return items.length === 0 ? undefined : matchExpression({ ...parsed, items }, 'or');
  }

  /**
   * A word's anchor-text matches counted up to ANCHOR_RANK_MAX + 1, remembered for
   * COUNT_CACHE_TTL_MS (a common word's capped count still reads thousands of rows, about 1 ms at
   * 100k pages; a slightly stale count decides which words rank anchors just as well).
   */
  #anchorCount(expression: string): number {
    return this.#anchorCounts.upTo(expression, ANCHOR_RANK_MAX + 1);
  }
}
