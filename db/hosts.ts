import type { Database } from 'better-sqlite3';
import type { RobotsStatus } from '../shared/enumerations.ts';

/** What the crawler knows of one host, as stored. */
export interface HostRow {
  origin: string;
  host: string;
  robotsStatus: RobotsStatus;
  robotsHttpStatus: number | null;
  robotsBody: string | null;
  /** Validators of the stored robots.txt (its refresh asks If-None-Match / If-Modified-Since). */
  robotsEtag: string | null;
  robotsLastModified: string | null;
  robotsFetchedAt: number | null;
  robotsExpiresAt: number | null;
  crawlDelayMs: number | null;
  backoffMs: number;
  backoffUntil: number;
  backoffReason: string | null;
  consecutiveErrors: number;
  lastRequestStart: number | null;
  lastRequestEnd: number | null;
  fetchedCount: number;
  errorCount: number;
  lastError: string | null;
}

const COLUMNS: Array<[keyof HostRow, string]> = [
  ['origin', 'origin'], ['host', 'host'], ['robotsStatus', 'robots_status'], ['robotsHttpStatus', 'robots_http_status'],
  ['robotsBody', 'robots_body'], ['robotsEtag', 'robots_etag'], ['robotsLastModified', 'robots_last_modified'],
  ['robotsFetchedAt', 'robots_fetched_at'], ['robotsExpiresAt', 'robots_expires_at'],
  ['crawlDelayMs', 'crawl_delay_ms'], ['backoffMs', 'backoff_ms'], ['backoffUntil', 'backoff_until'],
  ['backoffReason', 'backoff_reason'], ['consecutiveErrors', 'consecutive_errors'], ['lastRequestStart', 'last_request_start'],
  ['lastRequestEnd', 'last_request_end'], ['fetchedCount', 'fetched_count'], ['errorCount', 'error_count'], ['lastError', 'last_error'],
];

/** A host never contacted yet. */
export function newHostRow(origin: string, host: string): HostRow {
  return {
    origin, host, robotsStatus: 'pending', robotsHttpStatus: null, robotsBody: null, robotsEtag: null, robotsLastModified: null, robotsFetchedAt: null,
    robotsExpiresAt: null, crawlDelayMs: null, backoffMs: 0, backoffUntil: 0, backoffReason: null, consecutiveErrors: 0,
    lastRequestStart: null, lastRequestEnd: null, fetchedCount: 0, errorCount: 0, lastError: null,
  };
}

/** Prepared statements for hosts, created once per connection (the crawler primary's). */
export function hostQueries(db: Database) {
  const select = db.prepare(`SELECT ${COLUMNS.map(([k, c]) => `${c} AS ${k}`).join(', ')} FROM hosts`);
  const upsert = db.prepare(
    `INSERT INTO hosts (${COLUMNS.map(([, c]) => c).join(', ')}, updated_at)
     VALUES (${COLUMNS.map(([k]) => `@${k}`).join(', ')}, @updatedAt)
     ON CONFLICT (origin) DO UPDATE SET ${COLUMNS.slice(1).map(([k, c]) => `${c} = @${k}`).join(', ')}, updated_at = @updatedAt`,
  );
  const start = db.prepare(`UPDATE hosts SET last_request_start = ? WHERE origin = ?`);

  return {
    /** Every known host. */
    allHosts(): HostRow[] {
      return select.all() as HostRow[];
    },
    /** Writes a host's whole state. */
    saveHost(h: HostRow, now: number): void {
      upsert.run({ ...h, updatedAt: now });
    },
    /**
     * Records, before the request is sent, that a request to the host starts: if the crawler dies before it
     * records the end, the next start sees start > end and waits a full delay from its own start.
     */
    recordRequestStart(origin: string, startedAt: number): void {
      start.run(startedAt, origin);
    },
  };
}
