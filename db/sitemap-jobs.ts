import type { Database } from 'better-sqlite3';

/** A sitemap job as stored (see migration 0007): what it takes to queue it again after a restart. */
export interface SitemapJobRow {
  url: string;
  origin: string;
  seedId: number;
  hops: number;
  redirects: number;
}

/** Prepared statements for the stored sitemap jobs, created once per connection (the crawler primary's). */
export function sitemapJobQueries(db: Database) {
  const insert = db.prepare(
    // A seed deleted meanwhile (its removal just finished) has no jobs to keep: nothing is stored, no FK error.
    `INSERT OR REPLACE INTO sitemap_jobs (url, origin, seed_id, hops, redirects)
     SELECT @url, @origin, @seedId, @hops, @redirects WHERE EXISTS (SELECT 1 FROM seeds WHERE id = @seedId)`,
  );
  const remove = db.prepare(`DELETE FROM sitemap_jobs WHERE url = ?`);
  const pending = db.prepare(`SELECT url, origin, seed_id AS seedId, hops, redirects FROM sitemap_jobs ORDER BY id`);
  return {
    /** Records a queued sitemap job. */
    rememberSitemapJob(job: SitemapJobRow): void {
      insert.run(job);
    },
    /** The job is over (read, failed, or dropped): a restart does not read it again. */
    forgetSitemapJob(url: string): void {
      remove.run(url);
    },
    /** Jobs not over when the crawler last stopped, in the order they were queued. */
    pendingSitemapJobs(): SitemapJobRow[] {
      return pending.all() as SitemapJobRow[];
    },
  };
}
