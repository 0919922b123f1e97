import type { Database } from 'better-sqlite3';
import type { RobotsStatus } from '../shared/enumerations.ts';

/** What the crawler knows of one host, as stored. */
export interface HostRow {
  origin: string;
  host: string;
  /** `unusable`: fetched, but its rules cost more than the crawler's budget to check (crawler/politeness/robots-matcher.ts). */
  robotsStatus: RobotsStatus;
  robotsHttpStatus: number | null;
  /** A robots.txt as stored by earlier versions; now always written null (robotsRules is kept instead). */
  robotsBody: string | null;
  /** Validators of the stored robots.txt (its refresh asks If-None-Match / If-Modified-Since). */
  robotsEtag: string | null;
  robotsLastModified: string | null;
  /** The host's robots.txt as a crawler worker compiled it for our product token (JSON of CompiledRobots), or null. */
  robotsRules: string | null;
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

/** Each HostRow field and its column: both engines' host queries map rows by it (db/pg/pg-hosts.ts). */
export const HOST_COLUMNS: Array<[keyof HostRow, string]> = [
  ['origin', 'origin'],
  ['host', 'host'],
  ['robotsStatus', 'robots_status'],
  ['robotsHttpStatus', 'robots_http_status'],
  ['robotsBody', 'robots_body'],
  ['robotsEtag', 'robots_etag'],
  ['robotsLastModified', 'robots_last_modified'],
  ['robotsRules', 'robots_rules'],
  ['robotsFetchedAt', 'robots_fetched_at'],
  ['robotsExpiresAt', 'robots_expires_at'],
  ['crawlDelayMs', 'crawl_delay_ms'],
  ['backoffMs', 'backoff_ms'],
  ['backoffUntil', 'backoff_until'],
  ['backoffReason', 'backoff_reason'],
  ['consecutiveErrors', 'consecutive_errors'],
  ['lastRequestStart', 'last_request_start'],
  ['lastRequestEnd', 'last_request_end'],
  ['fetchedCount', 'fetched_count'],
  ['errorCount', 'error_count'],
  ['lastError', 'last_error'],
];

/**
 * The host's stored robots.txt rules (compiled, up to a few times the 500 KiB of the file): written by
 * saveRobotsFile when they change, not with the rest of the row each time a host's request ends.
 */
export const ROBOTS_FILE = new Set<keyof HostRow>(['robotsBody', 'robotsRules']);

/** A host never contacted yet. */
export function newHostRow(origin: string, host: string): HostRow {
  return {
    origin,
    host,
    robotsStatus: 'pending',
    robotsHttpStatus: null,
    robotsBody: null,
    robotsEtag: null,
    robotsLastModified: null,
    robotsRules: null,
    robotsFetchedAt: null,
    robotsExpiresAt: null,
    crawlDelayMs: null,
    backoffMs: 0,
    backoffUntil: 0,
    backoffReason: null,
    consecutiveErrors: 0,
    lastRequestStart: null,
    lastRequestEnd: null,
    fetchedCount: 0,
    errorCount: 0,
    lastError: null,
  };
}

/** Prepared statements for hosts, created once per connection (the crawler primary's). */
export function hostQueries(db: Database) {
  const select = db.prepare(`SELECT ${HOST_COLUMNS.map(([k, c]) => `${c} AS ${k}`).join(', ')} FROM hosts`);
  const upsert = db.prepare(
    `INSERT INTO hosts (${HOST_COLUMNS.map(([, c]) => c).join(', ')}, updated_at)
     VALUES (${HOST_COLUMNS.map(([k]) => `@${k}`).join(', ')}, @updatedAt)
     ON CONFLICT (origin) DO UPDATE SET ${HOST_COLUMNS.slice(1)
       .filter(([k]) => !ROBOTS_FILE.has(k))
       .map(([k, c]) => `${c} = @${k}`)
       .join(', ')}, updated_at = @updatedAt`,
  );
  const robotsFile = db.prepare(`UPDATE hosts SET robots_body = ?, robots_rules = ? WHERE origin = ?`);

  return {
    /**
     * Every known host, each copied into newHostRow's shape. better-sqlite3 adds a row's columns one by one,
     * and V8 keeps an object of 20 properties built so as a dictionary: about 0.8 KiB more per host, for as
     * long as the primary knows it (8 MiB at 10,000 hosts, `npm run bench:frontier`). The copies share one
     * hidden class with the hosts met later.
     */
    allHosts(): HostRow[] {
      return (select.all() as HostRow[]).map((r) => Object.assign(newHostRow(r.origin, r.host), r));
    },
    /** Writes a host's state: all of it for a new host, else all but its robots.txt file (see saveRobotsFile). */
    saveHost(h: HostRow, now: number): void {
      upsert.run({ ...h, updatedAt: now });
    },
    /** Writes a known host's robots.txt body and compiled rules (they change about once a day at most). */
    saveRobotsFile(origin: string, body: string | null, rules: string | null): void {
      robotsFile.run(body, rules, origin);
    },
  };
}
