/** What a search may be asked to do differently, and the bounds of the link signals (search-service.ts). */

/** Pages taken from the anchor-text ranking (each is checked against the full-text query by id). */
export const ANCHOR_CANDIDATES = 30;
/**
 * Most anchor-text matches one query's anchor ranking may score (bm25 reads each one: about 2 µs a
 * row at 100k pages, so a word in 40 % of the link targets cost 100 ms). The words are taken rarest
 * first while their matches add up to at most this; a word in more is left to the other lists, as a
 * word with more than RANK_ALL_MAX full-text matches is (candidate-lists.ts).
 */
export const ANCHOR_RANK_MAX = 5000;
/**
 * How long a word's capped count (its anchor-text matches, or in OR mode its full-text matches) is reused, and how
 * many of each are kept (candidate-lists.ts, capped-counts.ts).
 */
export const COUNT_CACHE_TTL_MS = 60_000;
export const COUNT_CACHE_MAX = 5000;
/** A query with fewer results than this is checked for a rare misspelled word ("did you mean"). */
export const FEW_RESULTS = 3;

/** Which signals rank results (all on by default; bench:search turns them off to measure each). */
export interface RankingOptions {
  /** The words of links pointing to a page as a ranked list of their own. */
  anchors: boolean;
  /** Inlinks counted as distinct pages linking from their content (else the crawler's count of links seen). */
  linkInlinks: boolean;
  /** Pages that are mostly links rank lower. */
  linkDensity: boolean;
  /** Queries asked as questions also rank by their topic words and the pages' openings (question-lists.ts). */
  questions: boolean;
  /** Question search adds synonyms of the topic words (synonyms.ts). */
  synonyms: boolean;
  /** Question search ranks the pages whose incoming links' words hold the topic words (question-lists.ts). */
  topicAnchors: boolean;
  /** Question search expands the question with the words its first results share (feedback-terms.ts). */
  feedback: boolean;
}

/** Options of one search. */
export interface SearchOptions {
  limit: number;
  offset: number;
  /** false: search the words exactly as typed, without a spelling correction ("search instead for"). */
  correct?: boolean;
}
