/**
 * The ranking of one search's candidate lists with each page's signals (rank-fusion.ts), one result per content
 * (duplicates.ts), only as far as the wanted results need. Apart from SearchService (search-service.ts) because
 * it is the one step that bounds how many pages' facts a query reads: boosts and penalties change a score by at
 * most MAX_BOOST / MIN_LINK_PENALTY, so a page more than boostReach(want) places below the last wanted one by
 * plain RRF cannot reach them, and only that window needs signals; it widens while folded duplicates leave it
 * short of `want`.
 */
import type { Attempt } from './candidate-lists.ts';
import { firstPerContent } from './duplicates.ts';
import type { FtsSearch } from './fts-search.ts';
import { boostReach, fuseRankings } from './rank-fusion.ts';
import type { PageSignals } from './rank-fusion.ts';
import type { RankingOptions } from './search-options.ts';

/**
 * The attempt's lists ranked far enough for `want` results: `fused` (one per content), the pages' facts read
 * (`meta`), the window of ids whose facts were read, and how many duplicates were folded within it.
 */
export function rankWindow(
  fts: FtsSearch,
  ranking: Pick<RankingOptions, 'linkInlinks' | 'linkDensity'>,
  attempt: Attempt,
  queryTerms: readonly string[],
  want: number,
) {
  const plain = fuseRankings(attempt.lists, new Map());
  const first = boostReach(want);
  for (let reach = first; ; reach *= 2) {
    const ids = plain.slice(0, want + reach).map((r) => r.id);
    const meta = fts.meta(ids, !ranking.linkInlinks);
    const signals = new Map<number, PageSignals>();
    for (const [id, m] of meta) {
      const hit = attempt.titleHits.get(id);
      const titleMatch =
        hit === undefined || queryTerms.length === 0 ? 0 : Math.min(1, hit.titleTerms / queryTerms.length);
      signals.set(id, {
        url: m.url,
        inlinks: m.inlinks,
        titleMatch,
        linkDensity: ranking.linkDensity ? m.linkDensity : null,
      });
    }
    // Pages gone since the title index last caught up have no meta: they are left out (and not counted).
    const ranked = fuseRankings(attempt.lists, signals).filter((r) => meta.has(r.id));
    const fused = firstPerContent(ranked, (id) => meta.get(id)!.contentHash);
    if (fused.length >= want || ids.length === plain.length || reach >= 8 * first) {
      return { fused, meta, window: new Set(ids), folded: ranked.length - fused.length };
    }
  }
}
