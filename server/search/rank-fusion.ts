/**
 * Fuses the rankings of the full-text index, the exact-identifier index and the title index into
 * one list. Pure.
 *
 * Formula (reciprocal rank fusion plus small multiplicative boosts):
 *
 *   rrf(d)   = Σ over lists l that contain d of  w_l / (K + rank_l(d))        (rank from 1, K = 60)
 *   score(d) = rrf(d) × (1 + 0.2 · titleMatch(d)) × (1 + 0.1 · cleanUrl(d)) × (1 + 0.1 · popularity(d))
 *              × linkPenalty(d)
 *
 * - Lists: full-text bm25 order (weights title 10, headings 5, description 3, body 1) with w = 1;
 *   the title index (title, headings, URL words, description; prefix and typo matches) with w = 1;
 *   pages containing a typed identifier exactly (capture_output) with w = 2, so they lead.
 *   RRF uses ranks only, so the two engines' incomparable scores never need calibrating, and a page
 *   both engines like beats a page only one of them likes.
 * - titleMatch ∈ [0, 1]: share of the query words found in the page's title or headings, so title
 *   and heading matches rank above body-only matches (on top of bm25's column weights).
 * - cleanUrl ∈ [0, 1]: 1 for a short path without a query string, less for deep paths and queries.
 * - popularity ∈ [0, 1]: log10(1 + inlinks) / 3, capped (1000 linking pages give the full boost);
 *   inlinks are the distinct pages linking to it from their content (db/link-targets.ts).
 * - linkPenalty ∈ [MIN_LINK_PENALTY, 1]: 1 for a page whose text is at most 40 % link text, falling
 *   linearly to MIN_LINK_PENALTY at 80 % and above: tables of contents, indexes and site maps hold
 *   the words of every page they list, and rank below the pages they link to. A list of anchor-text
 *   matches (pages whose incoming links' words match, w = 1) joins the lists when there is one.
 *
 * Why these sizes: near the top, adjacent RRF ranks differ by about 1.6 %, so one boost (20 %,
 * 10 %, 10 %) wins a close call among neighbours, while all three together (at most × 1.45) can
 * lift a page from rank 50 of a single list to about rank 16, never to the top. The title index
 * list already rewards short-field matches, so titleMatch only tips the balance.
 */

/** RRF's constant: dampens the difference between the first few ranks. */
export const RRF_K = 60;
/** The most the boosts together multiply a score by. */
export const MAX_BOOST = 1.2 * 1.1 * 1.1;
/** The least the link penalty multiplies a score by (a page that is nearly all links). */
export const MIN_LINK_PENALTY = 0.6;

/** One ranked list of page ids (best first) and its weight; `k`: its own RRF constant (default RRF_K; smaller tells its ranks further apart). */
export interface RankedList {
  ids: readonly number[];
  weight: number;
  k?: number;
}

/** Per-page signals for the boosts. */
export interface PageSignals {
  url: string;
  inlinks: number;
  /** Share of the query words found in title or headings, 0..1. */
  titleMatch: number;
  /** Share of its text that is link text, 0..1; null when unknown (no penalty). */
  linkDensity?: number | null;
}

/** A page's fused score. */
export interface FusedResult {
  id: number;
  score: number;
}

/** 1 for `https://host/` or `https://host/one-segment`, minus 0.2 per further path segment, minus 0.4 for a query string; at least 0. */
export function cleanUrl(url: string): number {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 0;
  }
  const segments = u.pathname.split('/').filter((s) => s.length > 0).length;
  const score = 1 - 0.2 * Math.max(0, segments - 1) - (u.search.length > 1 ? 0.4 : 0);
  return Math.max(0, Math.min(1, score));
}

/** 1 up to 40 % link text, down linearly to MIN_LINK_PENALTY at 80 % and above; 1 when unknown. */
export function linkPenalty(linkDensity: number | null | undefined): number {
  if (linkDensity === null || linkDensity === undefined) return 1;
  const over = Math.max(0, Math.min(1, (linkDensity - 0.4) / 0.4));
  return 1 - (1 - MIN_LINK_PENALTY) * over;
}

/**
 * How many places below rank `want` by plain RRF a page may sit and still end within the first
 * `want` once boosts and penalties apply (at most MAX_BOOST / MIN_LINK_PENALTY apart).
 */
export function boostReach(want: number): number {
  return Math.ceil((MAX_BOOST / MIN_LINK_PENALTY - 1) * (RRF_K + want)) + 1;
}

/** log10(1 + inlinks) / 3, capped at 1. */
export function popularity(inlinks: number): number {
  return Math.min(1, Math.log10(1 + Math.max(0, inlinks)) / 3);
}

/**
 * Fuses the lists with the formula above. Pages without signals get no boosts. Best first; ties
 * broken by id so the order is stable across requests (pagination needs that).
 */
export function fuseRankings(lists: readonly RankedList[], signals: ReadonlyMap<number, PageSignals>): FusedResult[] {
  const rrf = new Map<number, number>();
  for (const list of lists) {
    const k = list.k ?? RRF_K;
    list.ids.forEach((id, i) => {
      rrf.set(id, (rrf.get(id) ?? 0) + list.weight / (k + i + 1));
    });
  }
  const out: FusedResult[] = [];
  for (const [id, base] of rrf) {
    const s = signals.get(id);
    const boost =
      s === undefined
        ? 1
        : (1 + 0.2 * Math.max(0, Math.min(1, s.titleMatch))) *
          (1 + 0.1 * cleanUrl(s.url)) *
          (1 + 0.1 * popularity(s.inlinks)) *
          linkPenalty(s.linkDensity);
    out.push({ id, score: base * boost });
  }
  return out.sort((a, b) => b.score - a.score || a.id - b.id);
}
