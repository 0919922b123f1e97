/**
 * The fixed sets of words that cross Lantern's layers, each written once: the database stores them,
 * the crawler decides by them, the server's schemas accept and answer them (shared/json-schema.ts
 * turns a list into a schema), and the web app shows them (by type). Each is a list, so code can
 * iterate and check it, and a type taken from that list.
 */

/**
 * How far a seed's crawl may wander: `path` its folder of its host, `host` its host and port,
 * `domain` its registrable domain, `any` anywhere.
 */
export const SCOPES = ['path', 'host', 'domain', 'any'] as const;
/** One of SCOPES. */
export type Scope = (typeof SCOPES)[number];

/** The crawler process as the server sees it (`crawler` in /api/status). */
export const CRAWLER_STATES = ['starting', 'running', 'restarting', 'stopped'] as const;
/** One of CRAWLER_STATES. */
export type CrawlerState = (typeof CRAWLER_STATES)[number];

/** What the crawler is doing with a host (`state` in /api/domains; docs/api.md says each in words). */
export const DOMAIN_STATES = [
  'crawling',
  'waiting',
  'backoff',
  'robots-blocked',
  'robots-unreachable',
  'robots-unusable',
  'failing',
  'idle',
] as const;
/** One of DOMAIN_STATES. */
export type DomainState = (typeof DOMAIN_STATES)[number];

/**
 * Which rule set a host's delay before its next request: the default delay, its robots.txt Crawl-delay,
 * pacing by the server's response time, the site's Retry-After, or a backoff after errors.
 */
export const DELAY_SOURCES = ['default', 'crawl-delay', 'pacing', 'retry-after', 'backoff'] as const;
/** One of DELAY_SOURCES. */
export type DelaySource = (typeof DELAY_SOURCES)[number];

/**
 * What is known of a host's robots.txt: not read yet, rules in force, no rules (4xx), unreachable (5xx,
 * 429, failed), or unusable (read, but its rules cost more than the crawler's budget to check).
 */
export const ROBOTS_STATUSES = ['pending', 'ok', 'allow-all', 'unreachable', 'unusable'] as const;
/** One of ROBOTS_STATUSES. */
export type RobotsStatus = (typeof ROBOTS_STATUSES)[number];

/** The columns the Domains view sorts by, and `GET /api/domains` takes as `sort` (server/domain-query.ts). */
export const DOMAIN_SORT_KEYS = [
  'host',
  'state',
  'fetched',
  'queued',
  'errors',
  'delay',
  'lastFetch',
  'nextFetch',
  'robots',
] as const;
/** One of DOMAIN_SORT_KEYS. */
export type DomainSortKey = (typeof DOMAIN_SORT_KEYS)[number];

/** A sort direction. */
export const SORT_DIRECTIONS = ['asc', 'desc'] as const;
/** One of SORT_DIRECTIONS. */
export type SortDirection = (typeof SORT_DIRECTIONS)[number];

/** What kind of document a stored page is: the crawler reads each kind its own way, `filetype:` in search narrows by it. */
export const FILE_TYPES = ['html', 'pdf', 'text', 'markdown'] as const;
/** One of FILE_TYPES. */
export type FileType = (typeof FILE_TYPES)[number];

/** The formats of a bookmark import: a browser's bookmark HTML (Netscape), a CSV with a URL column, one URL per line. */
export const IMPORT_FORMATS = ['netscape', 'csv', 'lines'] as const;
/** One of IMPORT_FORMATS. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
