/**
 * A write batch's revisit states, read once: the batch's pages (and their seeds' pages, whose crawl start each
 * page counts from) are read in one statement before the batch's intents run, instead of two reads per page
 * stored (revisit-book.ts noteVisit). On PostgreSQL each read is a round trip inside the batch's transaction;
 * 1,500 pages made 3,000 of them (bench/crawl/store-profile.ts). The batch's own writes go through the cache
 * as well as to the store, so every read answers what the store itself would answer at that point: the
 * primary is the only writer of these rows, and the batch runs in one transaction.
 */
import type { CrawlRevisitStore } from '../../db/crawl-store.ts';
import type { RevisitState } from '../../db/revisits.ts';

/**
 * `store` with the states of `urls` read at once (one `revisitsOf`), then kept current by the batch's own
 * writes; a url not read ahead is read from the store as before.
 */
export async function cachedRevisits(store: CrawlRevisitStore, urls: readonly string[]): Promise<CrawlRevisitStore> {
  const known = new Map<string, RevisitState | undefined>();
  if (urls.length > 0) {
    const found = await store.revisitsOf(urls);
    for (const url of urls) known.set(url, found.get(url));
  }
  /** An UPDATE of an existing row: the cached state follows it (a url known to have none stays without). */
  const touch = (url: string, change: Partial<RevisitState>) => {
    const st = known.get(url);
    if (st !== undefined) known.set(url, { ...st, ...change });
  };
  return {
    revisitOf: async (url) => (known.has(url) ? known.get(url) : store.revisitOf(url)),
    revisitsOf: (many) => store.revisitsOf(many),
    saveRevisit: async (url, st) => {
      known.set(url, st);
      await store.saveRevisit(url, st);
    },
    noteSitemapLastmod: async (url, ms) => {
      touch(url, { sitemapLastmod: ms });
      await store.noteSitemapLastmod(url, ms);
    },
    markChecked: async (url, at) => {
      touch(url, { checkedAt: at });
      await store.markChecked(url, at);
    },
    refreshCandidates: (seedId, maxDepth) => store.refreshCandidates(seedId, maxDepth),
  };
}
