/** A job in a host's queue: a frontier URL, a robots.txt fetch on behalf of `forOrigin`, or a sitemap its robots.txt listed. */
export interface CrawlJob {
  notBefore: number;
  kind: 'page' | 'robots' | 'sitemap';
  url: string;
  frontierId: number;
  seedId: number;
  depth: number;
  attempts: number;
  /** Redirects that led to this URL (a page's or a sitemap's chain ends after MAX_REDIRECTS). */
  redirects: number;
  /** The host a robots.txt job fetches rules for (a redirected robots.txt is fetched from another host). */
  forOrigin: string;
  /** Robots jobs: redirect hops so far; sitemap jobs: 0 for those robots.txt lists, 1 for those an index lists. */
  hops: number;
  /** A page job of a URL finished before (a re-crawl): only such a URL can have a stored page to ask for conditionally. */
  refetch?: boolean;
  /**
   * A re-crawled page's stored validators (ETag, Last-Modified) as its frontier row brought them
   * (db/frontier.ts FrontierRow): dispatch asks for the page conditionally without reading storage.
   */
  validators?: { etag: string | null; lastModified: string | null };
}
