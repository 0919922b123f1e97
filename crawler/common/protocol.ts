/**
 * The messages that cross process boundaries: server ⇄ crawler primary (child_process IPC, JSON) and
 * primary ⇄ workers (cluster IPC, structured clone: WORKER_IPC_SERIALIZATION). Plain JSON-able objects
 * only, so that either channel carries them alike. The reports that the server passes on
 * through its API unchanged (DomainInfo, CrawlStatus, RequestLogEntry) are TypeBox schemas, their
 * types derived from them, so that the API's shape and the crawler's are one definition.
 */
import { Type, type Static } from '@sinclair/typebox';
import { DELAY_SOURCES, DOMAIN_STATES, ROBOTS_STATUSES, type FileType } from '../../shared/enumerations.ts';
import { nullableInteger, nullableString, stringEnum } from '../../shared/json-schema.ts';
import type { SitemapEntries } from './sitemap-entries.ts';
import type { HostFacts } from './host-facts.ts';
import type { CompiledRobots } from './compiled-robots.ts';

/**
 * How primary and workers serialize their messages: V8's structured clone. A page's `done` is mostly its
 * text (~30 KB on the benchmark pages); JSON escapes and scans it on both sides, the clone copies it.
 * Measured with those results (3,000 jobs and results between two processes): per round trip, the
 * worker's side 0.10-0.12 ms of CPU instead of 0.19-0.24 ms, the primary's 0.10-0.13 ms instead of 0.13-0.18.
 */
export const WORKER_IPC_SERIALIZATION = 'advanced' as const;

/** What a worker is asked to fetch: a page, a host's /robots.txt, or a sitemap its robots.txt listed. */
export interface FetchJob {
  jobId: number;
  kind: 'page' | 'robots' | 'sitemap';
  url: string;
  origin: string;
  /** Robots jobs: the origin whose rules the file gives (the one that asked, when this is a redirect's hop). */
  robotsFor?: string;
  /**
   * Set when the page is stored already and was served with an ETag or Last-Modified: the request is
   * conditional (If-None-Match / If-Modified-Since), so an unchanged page costs the site a 304.
   */
  validators?: { etag: string | null; lastModified: string | null };
  /**
   * A crawler node's job: the last moment, on the machine's monotonic clock (common/machine-clock.ts), the request
   * may be written, so that it ends, cut at its timeout, by its group's lease deadline (issue 29: the lease's local
   * deadline less the request's timeout). A worker that comes to it later (its process was paused, or the job
   * waited on the way) does not send it and reports it `unsent`. Absent: no limit (SQLite, one primary).
   */
  sendBy?: number;
}

/** Settings a worker needs, sent once when it starts. */
export interface WorkerSettings {
  userAgent: string;
  allowPrivate: boolean;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  totalTimeoutMs: number;
  maxBodyBytes: number;
  maxLinks: number;
  /** Names resolved before DNS (CRAWL_RESOLVE): name → address; fetch/static-resolver.ts. */
  resolve?: Record<string, string>;
  /** Limits of a PDF's extraction (crawler/extract/pdf-runner.ts); absent: PDF_LIMITS. */
  pdf?: { timeoutMs: number; heapMb: number; memoryMb: number; maxPages: number; maxChars: number };
}

/** The kinds of failure, branched on by type: retry later, back the host off, or give up on the URL. */
export type ErrorKind = 'retryable' | 'throttled' | 'fatal';

/** A failure as a worker reports it. `code` is a short machine word, `message` says it for a person. */
export interface FetchError {
  kind: ErrorKind;
  code: string;
  message: string;
}

/** A link in a page's content (not its navigation chrome): its normalized target and its words ('' for none). */
export interface PageAnchor {
  url: string;
  text: string;
}

export type { FileType } from '../../shared/enumerations.ts';

/** An extracted page (HTML, or a PDF, plain-text or Markdown document), its links already normalized and judged by crawler/common/url.ts. */
export interface ParsedPage {
  finalUrl: string;
  /** Absent: 'html'. */
  fileType?: FileType;
  /** A PDF's page starts: offsets (in code points) into `text` where each page begins; null for other documents. */
  pageStarts?: number[] | null;
  title: string;
  description: string;
  headings: string[];
  text: string;
  lang: string | null;
  canonical: string | null;
  links: string[];
  noindex: boolean;
  nofollow: boolean;
  /** The page asked that its stored copy not be shown (noarchive). */
  noarchive: boolean;
  /** The page asked that no text of it be shown in results (nosnippet). */
  nosnippet: boolean;
  /**
   * Links in the page's content (not its navigation), at most ANCHORS_PER_PAGE, never to itself:
   * their words describe the target (anchor text) and they count as its inlinks. Absent from results
   * of an older worker.
   */
  anchors?: PageAnchor[];
  /** Share of the page's text that is link text, 0..1 (see ExtractedPage.linkDensity). */
  linkDensity?: number;
  contentHash: string;
}

/** What a worker reports for one job. Times are `performance.timeOrigin + performance.now()` ms. */
export interface FetchResult {
  jobId: number;
  startedAt: number;
  endedAt: number;
  status: number | null;
  contentType: string | null;
  etag: string | null;
  lastModified: string | null;
  /** Seconds or an HTTP date from Retry-After, already turned into milliseconds from now. */
  retryAfterMs: number | null;
  /** Absolute redirect target (normalized if acceptable) for 3xx with Location. */
  location: string | null;
  locationRefusal: string | null;
  /**
   * Robots jobs: the body text (at most 500 KiB). Workers send robotsRules instead and leave this null;
   * the primary reads a body only from a result without them (tests and benchmarks build such results).
   */
  robotsBody: string | null;
  /** Robots jobs with a body: the file read and compiled by the worker, so that the primary never reads it. */
  robotsRules?: CompiledRobots;
  page: ParsedPage | null;
  /** Sitemap jobs: what the sitemap lists (crawler/extract/sitemap.ts). */
  sitemap?: SitemapEntries;
  error: FetchError | null;
  /**
   * Set, saying why, when the worker did not send the request at all (its `sendBy` had passed): nothing reached
   * the site, so the job goes back to the queue as it was, no attempt counted and the host's clock not charged.
   */
  unsent?: string;
}

export type PrimaryToWorker = { type: 'settings'; settings: WorkerSettings } | { type: 'fetch'; job: FetchJob };
/**
 * `sinceEndMs`: how long ago, by the worker's own clock, the response ended when `done` was sent (the
 * parse happens in between). The primary subtracts it from its receipt time to learn when the request
 * ended without comparing two processes' clocks; the IPC transit only makes that estimate later.
 */
export type WorkerToPrimary = { type: 'ready' } | { type: 'done'; result: FetchResult; sinceEndMs: number };

/** A host's robots.txt as /api/domains reports it. */
export const RobotsInfoSchema = Type.Object({
  status: stringEnum(ROBOTS_STATUSES),
  httpStatus: nullableInteger(),
  fetchedAt: nullableString(),
  crawlDelayMs: nullableInteger(),
});
export type RobotsInfo = Static<typeof RobotsInfoSchema>;

/**
 * The politeness group a host belongs to (crawler/politeness/politeness-group.ts), as /api/domains
 * reports it on each of its hosts' rows: the group's one clock, shared by all its hosts.
 */
export const GroupInfoSchema = Type.Object({
  /** The group's key: the registrable domain (`python.org`), an IP address, or the origin in `host` grouping. */
  name: Type.String(),
  /** Hosts Lantern knows in the group. */
  hosts: Type.Integer(),
  /** Requests in flight to any of its hosts (at most 1). */
  inFlight: Type.Integer(),
  /** End of the group's last request, to whichever host. */
  lastFetchAt: nullableString(),
  /** When the group's next request may start, if any of its hosts has work. */
  nextFetchAt: nullableString(),
});
export type GroupInfo = Static<typeof GroupInfoSchema>;

/**
 * One host as the primary reports it to the server, which answers it unchanged as a row of
 * /api/domains (docs/api.md); the web app uses this type too. One definition: the schema is the API's.
 */
export const DomainInfoSchema = Type.Object({
  host: Type.String(),
  origin: Type.String(),
  state: stringEnum(DOMAIN_STATES),
  stateText: Type.String(),
  queued: Type.Integer(),
  fetched: Type.Integer(),
  errors: Type.Integer(),
  inFlight: Type.Integer(),
  lastFetchAt: nullableString(),
  nextFetchAt: nullableString(),
  crawlDelayMs: Type.Integer(),
  delaySource: stringEnum(DELAY_SOURCES),
  /** The delay and the rule that set it, in words: `2.0 s: 5 x 0.4 s response time`. */
  delayText: Type.String(),
  group: GroupInfoSchema,
  backoffUntil: nullableString(),
  lastError: nullableString(),
  robots: RobotsInfoSchema,
});
export type DomainInfo = Static<typeof DomainInfoSchema>;

/** Crawl-wide figures, as the primary reports them and /api/status shows them. */
export const CrawlStatusSchema = Type.Object({
  queued: Type.Integer(),
  inFlight: Type.Integer(),
  workers: Type.Integer(),
  fetchRatePerMin: Type.Number(),
});
export type CrawlStatus = Static<typeof CrawlStatusSchema>;

/**
 * The crawl's disk budget for /api/status (crawler/coordination/disk-budget.ts): whether the crawl is
 * paused for want of room and why, in words, and what the last check read (null before the first).
 */
export const DiskStatusSchema = Type.Object({
  paused: Type.Boolean(),
  reason: nullableString(),
  /** What the last check read: free bytes on DATA_DIR's file system, bytes the database holds. */
  freeBytes: Type.Union([Type.Number(), Type.Null()]),
  dbBytes: Type.Union([Type.Number(), Type.Null()]),
  /** CRAWL_MIN_FREE_DISK and CRAWL_MAX_DB_SIZE in bytes (0: no bound). */
  minFreeBytes: Type.Number(),
  maxDbBytes: Type.Number(),
  checkedAt: nullableString(),
});
export type DiskStatus = Static<typeof DiskStatusSchema>;

/**
 * The database refusing Lantern, as /api/status reports it (null while it is fine): the crawler's report of an
 * outage (write-outage.ts), else the server's own (its queries, the search copy's feed). The shape of
 * db/storage-error.ts StorageOutage, which words it (describeStorageOutage).
 */
export const StorageStatusSchema = Type.Object({
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  /** False: the database does not answer at all (PostgreSQL stopped or out of reach). */
  reachable: Type.Boolean(),
  writable: Type.Boolean(),
  /** When the outage began. */
  since: Type.String(),
  reason: Type.String(),
  effect: Type.String(),
  action: Type.String(),
  message: Type.String(),
  seenBy: Type.Union([Type.Literal('crawler'), Type.Literal('server')]),
});
export type StorageStatus = Static<typeof StorageStatusSchema>;

/** One request in a host's timeline (/api/domains/:host/requests; the web app uses this type too). */
export const RequestLogEntrySchema = Type.Object({
  url: Type.String(),
  status: nullableInteger(),
  startedAt: Type.String(),
  durationMs: Type.Number(),
  error: nullableString(),
});
export type RequestLogEntry = Static<typeof RequestLogEntrySchema>;

export type ServerToPrimary =
  | { type: 'seeds-changed' }
  | { type: 'shutdown' }
  | { type: 'requests'; reqId: number; origin: string };

/**
 * The crawl as the primary sees it, for /api/status and /api/domains: crawl-wide figures, the disk
 * budget, and the facts of the hosts whose report changed since the primary's previous snapshot (every
 * host when `full`: a primary's first). The server keeps each host's last facts and describes them at
 * `at` (the primary's clock when it took the snapshot; host-report.ts describeHost), so a host's row
 * reads as if the primary had described every host at that moment (server/domain-book.ts).
 */
export interface CrawlSnapshot {
  type: 'snapshot';
  status: CrawlStatus;
  disk: DiskStatus;
  at: number;
  full: boolean;
  hosts: HostFacts[];
}

export type PrimaryToServer =
  | { type: 'started'; pid: number }
  | CrawlSnapshot
  | { type: 'pages-stored'; count: number }
  | { type: 'requests'; reqId: number; requests: RequestLogEntry[] }
  /** A problem in words; `storage` when it is the database refusing writes (cleared by `recovered`). */
  | { type: 'error'; message: string; storage?: StorageStatus }
  /** The problem last reported as `error` is over (e.g. the database takes writes again). */
  | { type: 'recovered'; message: string };
