/**
 * The messages that cross process boundaries: server ⇄ crawler primary (child_process IPC) and
 * primary ⇄ workers (cluster IPC). Plain JSON-able objects only.
 */
import type { SitemapEntries } from '../extract/sitemap.ts';

/** What a worker is asked to fetch: a page, a host's /robots.txt, or a sitemap its robots.txt listed. */
export interface FetchJob {
  jobId: number;
  kind: 'page' | 'robots' | 'sitemap';
  url: string;
  origin: string;
  /**
   * Set when the page is stored already and was served with an ETag or Last-Modified: the request is
   * conditional (If-None-Match / If-Modified-Since), so an unchanged page costs the site a 304.
   */
  validators?: { etag: string | null; lastModified: string | null };
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

/** An extracted HTML page, its links already normalized and judged by crawler/frontier/url.ts. */
export interface ParsedPage {
  finalUrl: string;
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
  /** Robots jobs: the body text (at most 500 KiB). */
  robotsBody: string | null;
  page: ParsedPage | null;
  /** Sitemap jobs: what the sitemap lists (crawler/extract/sitemap.ts). */
  sitemap?: SitemapEntries;
  error: FetchError | null;
}

export type PrimaryToWorker = { type: 'settings'; settings: WorkerSettings } | { type: 'fetch'; job: FetchJob };
/**
 * `sinceEndMs`: how long ago, by the worker's own clock, the response ended when `done` was sent (the
 * parse happens in between). The primary subtracts it from its receipt time to learn when the request
 * ended without comparing two processes' clocks; the IPC transit only makes that estimate later.
 */
export type WorkerToPrimary = { type: 'ready' } | { type: 'done'; result: FetchResult; sinceEndMs: number };

/** A host's crawl state, as /api/domains names it. */
export type DomainState = 'crawling' | 'waiting' | 'backoff' | 'robots-blocked' | 'robots-unreachable' | 'failing' | 'idle';

/** Where a host's effective delay comes from. */
export type DelaySource = 'default' | 'crawl-delay' | 'retry-after' | 'backoff';

/** A host's robots.txt as /api/domains reports it. */
export interface RobotsInfo {
  status: 'pending' | 'ok' | 'allow-all' | 'unreachable';
  httpStatus: number | null;
  fetchedAt: string | null;
  crawlDelayMs: number | null;
}

/** One row of /api/domains (see docs/api.md); the web app uses this type too. */
export interface DomainInfo {
  host: string;
  origin: string;
  state: DomainState;
  stateText: string;
  queued: number;
  fetched: number;
  errors: number;
  inFlight: number;
  lastFetchAt: string | null;
  nextFetchAt: string | null;
  crawlDelayMs: number;
  delaySource: DelaySource;
  backoffUntil: string | null;
  lastError: string | null;
  robots: RobotsInfo;
}

/** Crawl-wide figures for /api/status. */
export interface CrawlStatus {
  queued: number;
  inFlight: number;
  workers: number;
  fetchRatePerMin: number;
}

/** One request in a host's timeline (/api/domains/:host/requests; the web app uses this type too). */
export interface RequestLogEntry {
  url: string;
  status: number | null;
  startedAt: string;
  durationMs: number;
  error: string | null;
}

export type ServerToPrimary =
  | { type: 'seeds-changed' }
  | { type: 'shutdown' }
  | { type: 'requests'; reqId: number; origin: string };

export type PrimaryToServer =
  | { type: 'started'; pid: number }
  | { type: 'snapshot'; status: CrawlStatus; domains: DomainInfo[] }
  | { type: 'pages-stored'; count: number }
  | { type: 'requests'; reqId: number; requests: RequestLogEntry[] }
  | { type: 'error'; message: string }
  /** The problem last reported as `error` is over (e.g. the database takes writes again). */
  | { type: 'recovered'; message: string };
