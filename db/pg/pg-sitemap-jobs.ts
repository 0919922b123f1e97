/**
 * Stored sitemap jobs and validators on PostgreSQL: db/sitemap-jobs.ts's methods, each answering a Promise,
 * on a PgRunner. SQLite's INSERT OR REPLACE deletes the old row and inserts a new one (a new id: the job moves
 * to the end of the pending order) only when the seed still exists; here a DELETE and an INSERT with the
 * same condition do the same.
 */
import { parseChildren, type SitemapJobRow, type SitemapValidators } from '../sitemap-jobs.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const REPLACED = statement(
  'crawl.sitemap-jobs.replaced',
  'DELETE FROM sitemap_jobs WHERE url = $1 AND EXISTS (SELECT 1 FROM seeds WHERE id = $2)',
);
const INSERT = statement(
  'crawl.sitemap-jobs.insert',
  `INSERT INTO sitemap_jobs (url, origin, seed_id, hops, redirects)
   SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM seeds WHERE id = $3)`,
);
const REMOVE = statement('crawl.sitemap-jobs.remove', 'DELETE FROM sitemap_jobs WHERE url = $1');
const PENDING = statement(
  'crawl.sitemap-jobs.pending',
  'SELECT url, origin, seed_id AS "seedId", hops, redirects FROM sitemap_jobs ORDER BY id',
);
const VALIDATORS = statement(
  'crawl.sitemap-jobs.validators',
  'SELECT etag, last_modified AS "lastModified", children FROM sitemap_validators WHERE url = $1',
);
const ALL_VALIDATORS = statement(
  'crawl.sitemap-jobs.all-validators',
  'SELECT url, etag, last_modified AS "lastModified", children FROM sitemap_validators',
);
const SAVE_VALIDATORS = statement(
  'crawl.sitemap-jobs.save-validators',
  `INSERT INTO sitemap_validators (url, etag, last_modified, children) VALUES ($1, $2, $3, $4)
   ON CONFLICT (url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified, children = excluded.children`,
);
const DROP_VALIDATORS = statement(
  'crawl.sitemap-jobs.drop-validators',
  'DELETE FROM sitemap_validators WHERE url = $1',
);

/** The sitemap job queries on `db` (each method as db/sitemap-jobs.ts documents it). */
export function pgSitemapJobQueries(db: PgRunner) {
  return {
    /** Records a queued sitemap job. */
    async rememberSitemapJob(job: SitemapJobRow): Promise<void> {
      await db.write(REPLACED, [job.url, job.seedId]);
      await db.write(INSERT, [job.url, job.origin, job.seedId, job.hops, job.redirects]);
    },
    /** The job is over (read, failed, or dropped): a restart does not read it again. */
    forgetSitemapJob(url: string): Promise<void> {
      return db.write(REMOVE, [url]);
    },
    /** Jobs not over when the crawler last stopped, in the order they were queued. */
    pendingSitemapJobs(): Promise<SitemapJobRow[]> {
      return db.rows<SitemapJobRow>(PENDING);
    },
    /** What a sitemap last answered, if it sent an ETag or Last-Modified. */
    async sitemapValidators(url: string): Promise<SitemapValidators | undefined> {
      const found = (
        await db.rows<{ etag: string | null; lastModified: string | null; children: string | null }>(VALIDATORS, [url])
      )[0];
      if (found === undefined) return undefined;
      return { etag: found.etag, lastModified: found.lastModified, children: parseChildren(found.children) };
    },
    /** Every sitemap's validators, by URL (the primary holds them in memory from its start). */
    async allSitemapValidators(): Promise<Map<string, SitemapValidators>> {
      const all = new Map<string, SitemapValidators>();
      for (const row of await db.rows<{
        url: string;
        etag: string | null;
        lastModified: string | null;
        children: string | null;
      }>(ALL_VALIDATORS))
        all.set(row.url, { etag: row.etag, lastModified: row.lastModified, children: parseChildren(row.children) });
      return all;
    },
    /** Keeps what a sitemap answered for its next read; one that sent neither validator is forgotten. */
    rememberSitemapValidators(url: string, v: SitemapValidators): Promise<void> {
      if (v.etag === null && v.lastModified === null) return db.write(DROP_VALIDATORS, [url]);
      return db.write(SAVE_VALIDATORS, [
        url,
        v.etag,
        v.lastModified,
        v.children === null ? null : JSON.stringify(v.children),
      ]);
    },
  };
}
