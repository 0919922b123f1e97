import type { SitemapJobRow, SitemapValidators } from '../../db/sitemap-jobs.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { Scheduler } from './scheduler.ts';
import type { QueueHostWrite } from './host-writes.ts';

/** Sitemaps taken from one robots.txt, and child sitemaps taken from one sitemap index. */
export const SITEMAPS_PER_FILE = 20;

/**
 * The crawler primary's sitemap jobs, a part of its HostBook: the sitemaps a host lists, each queued once as
 * a job of the host's own queue (spaced like any request), and stored until it is over so that a restart
 * reads what it had not; and what each sitemap last answered (its ETag and Last-Modified, and the sitemaps an index
 * listed), so that it is read again conditionally and an unchanged sitemap costs its site a 304. Writes are
 * queued as data (host-writes.ts `write`), written with the primary's next batch; what sitemaps answered is
 * kept in memory too (loaded at start), so dispatch reads no storage.
 */
export class SitemapBook {
  /** Sitemap URLs queued or in flight, so that one listed twice (or again at a robots.txt refresh) is read once. */
  private readonly sitemapsQueued = new Set<string>();
  /** What each sitemap last answered, if it sent a validator: as stored, and as written since. */
  private answered = new Map<string, SitemapValidators>();

  constructor(
    private readonly scheduler: Scheduler<CrawlJob>,
    /** Queues a write intent for the primary's next batch. */
    private readonly write: QueueHostWrite,
  ) {}

  /** Takes what sitemaps last answered, as stored (at start). */
  load(answered: Map<string, SitemapValidators>): void {
    this.answered = answered;
  }

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
      this.write({ kind: 'remember-sitemap', job });
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
    this.write({ kind: 'forget-sitemap', url });
  }

  /** The validators to ask for `url` with (If-None-Match / If-Modified-Since), if it sent any when last read. */
  validators(url: string): SitemapValidators | undefined {
    return this.answered.get(url);
  }

  /** A sitemap was read (200): its validators and, for an index, the sitemaps it listed, kept for its next read. */
  noteRead(url: string, read: SitemapValidators): void {
    // As rememberSitemapValidators keeps it (db/sitemap-jobs.ts): one that sent neither validator is forgotten.
    if (read.etag === null && read.lastModified === null) this.answered.delete(url);
    else this.answered.set(url, read);
    this.write({ kind: 'sitemap-validators', url, read });
  }

  /** A sitemap job in flight when the crawl stops: its stored row stays, so the next start reads it. */
  sitemapReturned(url: string): void {
    this.sitemapsQueued.delete(url);
  }
}
