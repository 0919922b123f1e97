/**
 * Ranked lists for queries asked as questions ("how do I throw away my local changes"), joined to
 * the query's own candidate lists (candidate-lists.ts) before fusion. The query's own lists need
 * every word, function words included, so a question in a person's words finds long pages that
 * happen to hold them all; these lists rank by the topic words only (question-plan.ts):
 *
 * - topic: pages with any of the topic words, by weighted bm25 (rare words count most);
 * - synonyms: the same with each word's synonyms as alternatives (synonyms.ts), a list of its own
 *   with a lower weight, so a synonym helps a page without outranking the words typed;
 * - purpose: the best candidates of every list, ordered by how many of the topic words (or their
 *   synonyms) the page's opening holds (title, description, first lines: a man page's NAME line);
 * - anchors: pages whose incoming links' words hold the topic words (anchor text: how other pages
 *   name a page, often in a reader's words), kept when they hold two of the topic words;
 * - feedback (RM3-style, feedback-terms.ts): the words the openings of the first FEEDBACK_PAGES
 *   results share, and that the openings of all the candidates read use less, expand the question:
 *   pages with a topic word, by bm25 over the topic and expansion words.
 *
 * Bounded like the query's own lists: the topic words are taken rarest first while their matches
 * add up to at most RANK_ALL_MAX (each word counted once, remembered); every list needs a topic word
 * (so the expansion words add no matches to rank), and the purpose and feedback lists read the
 * openings of at most PURPOSE_CANDIDATES pages (the feedback pages are among them, or a few more).
 */
import type { FtsSearch, HostFilters } from './fts-search.ts';
import { excludedExpression, phrasesExpression, quote } from './fts-expression.ts';
import type { ParsedQuery } from './query-parser.ts';
import { purposeScore, stems, topicExpression, topicWords } from './question-plan.ts';
import type { TopicWord } from './question-plan.ts';
import { feedbackTerms } from './feedback-terms.ts';
import { lightStem } from './function-words.ts';
import { fuseRankings } from './rank-fusion.ts';
import { hasFilters } from './capture-filters.ts';

/** Pages whose openings the purpose list reads. */
export const PURPOSE_CANDIDATES = 40;
/** Characters of a page's body read as its opening. */
export const OPENING_CHARS = 300;
/** List weights in fusion (the query's own full-text and title lists weigh 1). */
export const QUESTION_WEIGHTS = {
  own: 0.3,
  topic: 3,
  near: 2,
  synonyms: 0.2,
  purpose: 0.5,
  anchors: 1,
  feedback: 1,
} as const;
/** A query with a function word whose own lists hold fewer pages than this (less than a page of results) is searched as a question too. */
export const SPARSE_RESULTS = 10;
/** Pages whose incoming links' words the anchors list ranks. */
export const ANCHOR_PAGES = 30;
/** The first results taken as relevant by the feedback list, and in how many of them an expansion word must be. */
export const FEEDBACK_PAGES = 10;
export const FEEDBACK_MIN_PAGES = 3;
/** Expansion words the feedback list adds. */
export const FEEDBACK_WORDS = 5;
/** Topic words this close (in tokens) count as near each other (proximity list). */
export const NEAR_TOKENS = 10;
/** Column weights of the topic lists' bm25 (title, headings, description, body). */
export const TOPIC_COLUMNS = [1, 1, 1, 1] as const;
/** The question lists' RRF constant: their first ranks count far more than their later ones. */
export const QUESTION_K = 10;
const COUNT_CACHE_MAX = 5000;
/** How long a word's count is reused (pages come and go; a slightly stale count weighs words just as well). */
const COUNT_TTL_MS = 60_000;

/** What question search made of a query: the lists to fuse (the query's own weighed down, then its own), and the words the snippets should mark. */
export interface QuestionResult {
  lists: WeightedList[];
  /** The expression of every topic word and alternative used (for snippets), undefined when none. */
  match: string | undefined;
  /**
   * The synonyms used (folded), each with the topic word it stands for, and the expansion words
   * (feedback list), each with the topic words it was found for (joined by spaces).
   */
  synonyms: Map<string, string>;
}

/** A ranked list of page ids (best first) with its weight in fusion (rank-fusion.ts). */
export interface WeightedList {
  ids: number[];
  weight: number;
  k?: number;
}

/** Synonyms of a folded word, best first (synonyms.ts); none when the source has none. */
export type SynonymSource = (word: string) => readonly string[];

/** Question search over one full-text index (see the file comment). */
export class QuestionLists {
  readonly #fts: FtsSearch;
  readonly #rankAllMax: number;
  readonly #synonyms: SynonymSource | undefined;
  readonly #anchors: boolean;
  readonly #feedback: boolean;
  readonly #counts = new Map<string, { n: number; at: number }>();

  /**
   * `rankAllMax`: see RANK_ALL_MAX; `synonyms`: where synonyms come from (none without); `anchors`,
   * `feedback`: whether the anchors and feedback lists run (RankingOptions; off when not given).
   */
  constructor(
    fts: FtsSearch,
    opts: { rankAllMax: number; synonyms?: SynonymSource; anchors?: boolean; feedback?: boolean },
  ) {
    this.#fts = fts;
    this.#rankAllMax = opts.rankAllMax;
    this.#synonyms = opts.synonyms;
    this.#anchors = opts.anchors ?? false;
    this.#feedback = opts.feedback ?? false;
  }

  /**
   * The question lists for `parsed`, or undefined when it does not read as a question (no function
   * word, or nothing else) and its own lists fill a page. `own`: the query's own lists, whose best
   * pages the purpose list also reads.
   */
  lists(
    parsed: ParsedQuery,
    filters: HostFilters,
    depth: number,
    own: readonly WeightedList[],
  ): QuestionResult | undefined {
    const { words, question, worded } = topicWords(parsed);
    // Words as typed that fill less than a page, with a function word among them, are asked too ("get rid of untracked files").
    if (!question && !(worded && new Set(own.flatMap((l) => l.ids)).size < SPARSE_RESULTS)) return undefined;
    const kept = this.#withinBudget(words);
    if (kept.length === 0) return undefined;
    const topics: TopicWord[] = kept.map((word) => ({ word, alternatives: this.#alternatives(word) }));
    // The query's phrases and exclusions hold here as in its own lists.
    const phrases = phrasesExpression(parsed);
    const excluded = excludedExpression(parsed);
    const within = (e: string) =>
      `${phrases === undefined ? e : `(${e} AND ${phrases})`}${excluded === undefined ? '' : ` NOT ${excluded}`}`;
    const plain = within(topicExpression(topics, false) as string);
    const plainIds = this.#fts.topWeighted(plain, depth, TOPIC_COLUMNS, filters);
    let topicIds = plainIds;
    if (topicIds.length === 0 && kept.length > 1) {
      topicIds = this.#fts.topWeighted(
        within(topicExpression(topics, false, 1) as string),
        depth,
        TOPIC_COLUMNS,
        filters,
      );
    }
    const lists: WeightedList[] = [{ ids: topicIds, weight: QUESTION_WEIGHTS.topic, k: QUESTION_K }];
    if (kept.length > 1) {
      const near = within(topicExpression(topics, false, 2, NEAR_TOKENS) as string);
      lists.push({
        ids: this.#fts.topWeighted(near, depth, TOPIC_COLUMNS, filters),
        weight: QUESTION_WEIGHTS.near,
        k: QUESTION_K,
      });
    }
    if (this.#anchors) {
      const ids = this.#fts.anchorTop(topicExpression(topics, false, 1) as string, ANCHOR_PAGES);
      // Fewer than `depth` unfiltered, the topic list is every page `plain` matches: no lookup is needed.
      const every = plainIds.length < depth && !hasFilters(filters) ? new Set(plainIds) : undefined;
      const ok = every ?? this.#fts.matching(plain, ids);
      lists.push({ ids: ids.filter((id) => ok.has(id)), weight: QUESTION_WEIGHTS.anchors, k: QUESTION_K });
    }
    const synonyms = new Map(topics.flatMap((t) => t.alternatives.map((a) => [a, t.word] as const)));
    const expanded = synonyms.size > 0 ? within(topicExpression(topics, true) as string) : undefined;
    if (expanded !== undefined) {
      lists.push({
        ids: this.#fts.topWeighted(expanded, depth, TOPIC_COLUMNS, filters),
        weight: QUESTION_WEIGHTS.synonyms,
        k: QUESTION_K,
      });
    }
    const openings = new Map<number, string>();
    lists.push({
      ids: this.#purpose(topics, [...lists, ...own], openings),
      weight: QUESTION_WEIGHTS.purpose,
      k: QUESTION_K,
    });
    const weighed = own.map((l) => ({ ids: l.ids, weight: l.weight * QUESTION_WEIGHTS.own }));
    let match = expanded ?? plain;
    if (this.#feedback) {
      const words = this.#expansion(topics, [...weighed, ...lists], openings);
      if (words.length > 0) {
        const any = topicExpression(topics, false, 1) as string;
        const added = `(${words.map(quote).join(' OR ')})`;
        lists.push({
          ids: this.#fts.topWeighted(within(`${any} AND ${added}`), depth, TOPIC_COLUMNS, filters),
          weight: QUESTION_WEIGHTS.feedback,
          k: QUESTION_K,
        });
        match = `${match} OR ${added}`;
        const topic = topics.map((t) => t.word).join(' ');
        for (const w of words) if (!synonyms.has(w)) synonyms.set(w, topic);
      }
    }
    return { lists: [...weighed, ...lists], match, synonyms };
  }

  /**
   * The expansion words of the feedback list: the first FEEDBACK_PAGES of `lists` fused are taken
   * as relevant (each weighed by its score), every page whose opening was read (`openings`, those
   * first ones among them) is the background (feedback-terms.ts); none of the words a topic word or an
   * alternative of one, and none
   * in more than rankAllMax pages (a word that common would cost the list and the snippets what the
   * topic words' budget saves, and says little).
   */
  #expansion(topics: readonly TopicWord[], lists: readonly WeightedList[], openings: Map<number, string>): string[] {
    const first = fuseRankings(lists, new Map()).slice(0, FEEDBACK_PAGES);
    const unread = first.map((r) => r.id).filter((id) => !openings.has(id));
    for (const [id, text] of this.#fts.openings(unread, OPENING_CHARS)) openings.set(id, text);
    const asked = new Set(topics.flatMap((t) => [t.word, ...t.alternatives]).map(lightStem));
    return feedbackTerms(
      first.map((r) => ({ text: openings.get(r.id) ?? '', weight: r.score })),
      [...openings.values()],
      asked,
      FEEDBACK_WORDS,
      FEEDBACK_MIN_PAGES,
    )
      .map((t) => t.word)
      .filter((w) => this.#count(w) <= this.#rankAllMax);
  }

  /**
   * The best candidates of `lists`, by how well their openings state the topic (pages stating none
   * left out); the openings read are put in `read`.
   */
  #purpose(topics: readonly TopicWord[], lists: readonly WeightedList[], read: Map<number, string>): number[] {
    const order: number[] = [];
    const seen = new Set<number>();
    for (let i = 0; order.length < PURPOSE_CANDIDATES; i++) {
      let any = false;
      for (const l of lists) {
        if (i >= l.ids.length) continue;
        any = true;
        const id = l.ids[i];
        if (!seen.has(id) && order.length < PURPOSE_CANDIDATES) {
          seen.add(id);
          order.push(id);
        }
      }
      if (!any) break;
    }
    const openings = this.#fts.openings(order, OPENING_CHARS);
    for (const [id, text] of openings) read.set(id, text);
    const weight = (_word: string) => 1;
    const scored = order.map((id, at) => ({
      id,
      at,
      score: purposeScore(stems(openings.get(id) ?? ''), topics, weight),
    }));
    return scored
      .filter((s) => s.score > 0)
      .sort((a, b) => b.score - a.score || a.at - b.at)
      .map((s) => s.id);
  }

  /** The topic words taken rarest first while their matches add up to at most rankAllMax, in the query's order. */
  #withinBudget(words: readonly string[]): string[] {
    // A word no page holds costs nothing and stays: its synonyms may be the pages' words.
    const counted = words.map((w) => ({ w, n: this.#count(w) }));
    const kept = new Set<string>();
    let spent = 0;
    for (const c of [...counted].sort((a, b) => a.n - b.n)) {
      if (spent + c.n > this.#rankAllMax) break;
      spent += c.n;
      kept.add(c.w);
    }
    return words.filter((w) => kept.has(w));
  }

  /** Alternatives of a topic word that some page holds (synonyms.ts), none without a source. */
  #alternatives(word: string): string[] {
    if (this.#synonyms === undefined) return [];
    return this.#synonyms(word).filter((s) => this.#count(s) > 0);
  }

  /** Pages holding `word`, counted up to rankAllMax + 1 and remembered for COUNT_TTL_MS (a bounded cache). */
  #count(word: string): number {
    const now = performance.now();
    const hit = this.#counts.get(word);
    if (hit !== undefined && now - hit.at < COUNT_TTL_MS) return hit.n;
    if (this.#counts.size >= COUNT_CACHE_MAX) this.#counts.clear();
    const n = this.#fts.count(quote(word), this.#rankAllMax + 1);
    this.#counts.set(word, { n, at: now });
    return n;
  }
}
