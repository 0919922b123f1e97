import type { sitemapJobQueries, SitemapJobRow } from '../../db/sitemap-jobs.ts';
import { SITEMAPS_PER_FILE } from '../extract/sitemap.ts';
import type { CrawlJob } from '../frontier/crawl-job.ts';
import type { Scheduler } from './scheduler.ts';

type SitemapJobQueries = ReturnType<typeof sitemapJobQueries>;

/**
 * The crawler primary's sitemap jobs, a part of its HostBook: the sitemaps a host lists, each queued once as
 * a job of the host's own queue (spaced like any request), and stored until it is over so that a restart
 * reads what it had not. Writes go into the coordinator's queue (`write`), applied in its next transaction.
 */
export class SitemapBook {
  /** Sitemap URLs queued or in flight, so that one listed twice (or again at a robots.txt refresh) is read once. */
  private readonly sitemapsQueued = new Set<string>();

  constructor(
    private readonly scheduler: Scheduler<CrawlJob>,
    private readonly sitemapJobs: SitemapJobQueries,
    /** Queues a write for the coordinator's next batch. */
    private readonly write: (w: (now: number) => void) => void,
  ) {}

  /**
   * Queues sitemaps of `origin` (same origin only, at most SITEMAPS_PER_FILE, each once until it is
   * done) as jobs of the host's own queue, spaced like any request; `hops` is 1 for those a sitemap
   * index lists, `seedId` the seed whose links their entries count as, `redirects` how many redirects led here.
   */
  queueSitemaps(origin: string, urls: readonly string[], hops: number, seedId: number, redirects = 0): void {
    let taken = 0;
    for (const url of urls) {
      if (taken >= SITEMAPS_PER_FILE) break;
      if (new URL(url).origin !== origin || this.sitemapsQueued.has(url)) continue;
      taken++;
      const job: SitemapJobRow = { url, origin, seedId, hops, redirects };
      this.addSitemapJob(job);
      this.write(() => this.sitemapJobs.rememberSitemapJob(job));
    }
  }

  /** Queues a sitemap job in the scheduler, stored already (by queueSitemaps, or before a restart: HostBook.restore). */
  addSitemapJob({ url, origin, seedId, hops, redirects }: SitemapJobRow): void {
    this.sitemapsQueued.add(url);
    this.scheduler.add(origin, {
      notBefore: 0,
      kind: 'sitemap',
      url,
      frontierId: 0,
      seedId,
      depth: 0,
      attempts: 0,
      redirects,
      forOrigin: origin,
      hops,
    });
  }

  /** A sitemap job is over (read, failed, skipped or dropped): it may be queued again, and a restart forgets it. */
  sitemapDone(url: string): void {
    this.sitemapsQueued.delete(url);
    this.write(() => this.sitemapJobs.forgetSitemapJob(url));
  }

  /** A sitemap job in flight when the crawl stops: its stored row stays, so the next start reads it. */
  sitemapReturned(url: string): void {
    this.sitemapsQueued.delete(url);
  }
}
