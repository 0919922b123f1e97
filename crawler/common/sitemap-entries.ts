/**
 * What a sitemap job brings back: a crawler worker reads the file (crawler/extract/sitemap.ts) and sends
 * these entries to the primary in the job's result (protocol.ts FetchResult.sitemap). A shape of the
 * protocol, so it stands on the floor below both sides.
 */

/** What one sitemap file lists. */
export interface SitemapEntries {
  /** A sitemap index lists other sitemaps; a urlset lists pages. */
  index: boolean;
  /** Normalized http(s) URLs on the sitemap's own origin, deduplicated, in file order. */
  urls: string[];
  /** Entries left out: another origin, refused by the URL rules, or beyond SITEMAP_MAX_ENTRIES. */
  dropped: number;
  /**
   * A urlset's `<lastmod>` per URL that has a valid one (ms since the epoch; scanSitemap): when the page last
   * changed, as the site says. Read by crawler/frontier/revisit.ts to skip pages that did not change.
   */
  lastmod?: Record<string, number>;
}
