import type { Database } from 'better-sqlite3';

/** A sitemap job as stored (see migration 0007): what it takes to queue it again after a restart. */
export interface SitemapJobRow {
  url: string;
  origin: string;
  seedId: number;
  hops: number;
  redirects: number;
}

/** What a sitemap last answered (migration 0019): its validators, and the sitemaps it listed if it was an index. */
export interface SitemapValidators {
  etag: string | null;
  lastModified: string | null;
  /** The sitemaps a sitemap index listed (null for a urlset), read again when the index answers 304. */
  children: string[] | null;
}

/** Prepared statements for the stored sitemap jobs and validators, created once per connection (the crawler primary's). */
export function sitemapJobQueries(db: Database) {
  const insert = db.prepare(
    // A seed deleted meanwhile (its removal just finished) has no jobs to keep: nothing is stored, no FK error.
    `INSERT OR REPLACE INTO sitemap_jobs (url, origin, seed_id, hops, redirects)
     SELECT @url, @origin, @seedId, @hops, @redirects WHERE EXISTS (SELECT 1 FROM seeds WHERE id = @seedId)`,
  );
  const remove = db.prepare(`DELETE FROM sitemap_jobs WHERE url = ?`);
  const pending = db.prepare(`SELECT url, origin, seed_id AS seedId, hops, redirects FROM sitemap_jobs ORDER BY id`);
  const allValidators = db.prepare(`SELECT url, etag, last_modified AS lastModified, children FROM sitemap_validators`);
  const validatorsOf = db.prepare(
    `SELECT etag, last_modified AS lastModified, children FROM sitemap_validators WHERE url = ?`,
  );
  const saveValidators = db.prepare(
    `INSERT OR REPLACE INTO sitemap_validators (url, etag, last_modified, children) VALUES (?, ?, ?, ?)`,
  );
  const dropValidators = db.prepare(`DELETE FROM sitemap_validators WHERE url = ?`);
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
    /** What a sitemap last answered, if it sent an ETag or Last-Modified (else nothing: it is read in full). */
    sitemapValidators(url: string): SitemapValidators | undefined {
      const row = validatorsOf.get(url) as
        | { etag: string | null; lastModified: string | null; children: string | null }
        | undefined;
      if (row === undefined) return undefined;
      return { etag: row.etag, lastModified: row.lastModified, children: parseChildren(row.children) };
    },
    /** Every sitemap's last validators, by URL (the crawler primary keeps them in memory, read at start). */
    allSitemapValidators(): Map<string, SitemapValidators> {
      const all = new Map<string, SitemapValidators>();
      for (const row of allValidators.all() as Array<{
        url: string;
        etag: string | null;
        lastModified: string | null;
        children: string | null;
      }>)
        all.set(row.url, { etag: row.etag, lastModified: row.lastModified, children: parseChildren(row.children) });
      return all;
    },
    /** Keeps what a sitemap answered for its next read; one that sent neither validator is forgotten. */
    rememberSitemapValidators(url: string, v: SitemapValidators): void {
      if (v.etag === null && v.lastModified === null) dropValidators.run(url);
      else saveValidators.run(url, v.etag, v.lastModified, v.children === null ? null : JSON.stringify(v.children));
    },
  };
}

/** A stored list of child sitemaps; anything but an array of strings reads as none (the index is read in full again). */
export function parseChildren(json: string | null): string[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) && value.every((u) => typeof u === 'string') ? value : null;
  } catch (error) {
    if (error instanceof SyntaxError) return null;
    throw error;
  }
}
