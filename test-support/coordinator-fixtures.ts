/**
 * Builders for unit tests that drive the crawler's Coordinator by hand on a real SQLite file: a worker's
 * answer to a job, the page a worker parsed, and a Coordinator started on a temporary database
 * (tempDatabase in test-corpus.ts). Each default is a plain 200 text/html answer; a test names what it
 * needs different at the call site.
 */
import type { Database } from 'better-sqlite3';
import { Coordinator } from '../crawler/coordination/coordinator.ts';
import type { FetchResult, ParsedPage, WorkerSettings } from '../crawler/common/protocol.ts';
import { loadConfig } from '../shared/config.ts';
import { sqliteCrawlStore } from '../db/sqlite-crawl-store.ts';

/** Worker settings for tests that never fetch: short limits, private addresses refused. */
export const TEST_WORKER_SETTINGS: WorkerSettings = {
  userAgent: 'LanternBot/test',
  allowPrivate: false,
  connectTimeoutMs: 1000,
  headersTimeoutMs: 1000,
  bodyTimeoutMs: 1000,
  totalTimeoutMs: 1000,
  maxBodyBytes: 1000,
  maxLinks: 10,
};

/** A worker's result for job `jobId`: a 200 text/html with no page, no validators and no error, then `part` over it. */
export function fetchResult(jobId: number, part: Partial<FetchResult> = {}): FetchResult {
  return {
    jobId,
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
    page: null,
    error: null,
    ...part,
  };
}

/**
 * The page a worker parsed at `finalUrl`, linking to `links`: titled 'Home', the text 'words', no directives,
 * and its URL as its content hash (so no two pages look alike), then `part` over it.
 */
export function parsedPage(finalUrl: string, links: string[], part: Partial<ParsedPage> = {}): ParsedPage {
  return {
    finalUrl,
    title: 'Home',
    description: '',
    headings: [],
    text: 'words',
    lang: null,
    canonical: null,
    links,
    noindex: false,
    nofollow: false,
    noarchive: false,
    nosnippet: false,
    contentHash: finalUrl,
    ...part,
  };
}

/**
 * A Coordinator on `data`'s database, configured from `settings` (variables as loadConfig reads them; DATA_DIR
 * is the database's folder) and started at `now` under `runId`: what the primary does at boot, so a second
 * call on the same database is a restart. Resolves once it started (storage is read asynchronously).
 */
export async function startCoordinator(
  data: { db: Database; dir: string },
  settings: Record<string, string>,
  runId: string,
  now: number,
): Promise<Coordinator> {
  const coordinator = new Coordinator(
    sqliteCrawlStore(data.db),
    loadConfig({ ...settings, DATA_DIR: data.dir }),
    runId,
  );
  await coordinator.start(now);
  return coordinator;
}
