/**
 * Stores a generated site (doc-site.ts, or any SiteSpec) in a database the way the crawler primary
 * does, without the processes: each page through the worker's processPage and the primary's
 * pageRecord, upsertPage and recordLinks. For search tests that need real extraction (permalinks,
 * link density, anchor text) without a crawl.
 */
import type { Database } from 'better-sqlite3';
import { linkTargetQueries } from '../db/link-targets.ts';
import { pageQueries } from '../db/pages.ts';
import { pageRecord } from '../crawler/coordination/page-outcome.ts';
import type { FetchResult } from '../crawler/common/protocol.ts';
import { processPage } from '../crawler/extract/page-processor.ts';
import type { SiteSpec } from './test-web.ts';

/** Stores every HTML page of `site` as served at `origin` (e.g. 'http://docs.test'); returns the urls stored. */
export function indexSite(db: Database, origin: string, site: SiteSpec): string[] {
  const pages = pageQueries(db);
  const links = linkTargetQueries(db);
  const stored: string[] = [];
  db.transaction(() => {
    for (const [path, spec] of Object.entries(site.pages)) {
      const body = typeof spec === 'string' ? spec : String(spec.body ?? '');
      const url = new URL(path, origin).href;
      const page = processPage({
        url,
        body: Buffer.from(body),
        contentType: 'text/html; charset=utf-8',
        xRobotsTag: undefined,
        userAgent: 'LanternBot/0.1',
        allowPrivate: true,
        maxLinks: 5000,
      });
      if (page === null) continue;
      const result: FetchResult = {
        jobId: 0,
        startedAt: 0,
        endedAt: 0,
        status: 200,
        contentType: 'text/html',
        etag: null,
        lastModified: null,
        retryAfterMs: null,
        location: null,
        locationRefusal: null,
        robotsBody: null,
        page,
        error: null,
      };
      const u = new URL(url);
      const record = {
        ...pageRecord({ url, origin: u.origin, host: u.host, seedId: 0 }, result, page, Date.UTC(2026, 0, 1)),
        seedId: null,
      };
      const id = pages.upsertPage(record);
      links.recordLinks(id, page.anchors ?? []);
      stored.push(url);
    }
  })();
  return stored;
}
