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
export const DOMAIN_STATES = ['crawling', 'waiting', 'backoff', 'robots-blocked', 'robots-unreachable', 'failing', 'idle'] as const;
/** One of DOMAIN_STATES. */
export type DomainState = (typeof DOMAIN_STATES)[number];

/** Where a host's effective delay between two requests comes from. */
export const DELAY_SOURCES = ['default', 'crawl-delay', 'retry-after', 'backoff'] as const;
/** One of DELAY_SOURCES. */
export type DelaySource = (typeof DELAY_SOURCES)[number];

/** What is known of a host's robots.txt: not read yet, rules in force, no rules (4xx), or unreachable (5xx, 429, failed). */
export const ROBOTS_STATUSES = ['pending', 'ok', 'allow-all', 'unreachable'] as const;
/** One of ROBOTS_STATUSES. */
export type RobotsStatus = (typeof ROBOTS_STATUSES)[number];

/** What kind of document a stored page is: the crawler reads each kind its own way, `filetype:` in search narrows by it. */
export const FILE_TYPES = ['html', 'pdf', 'text', 'markdown'] as const;
/** One of FILE_TYPES. */
export type FileType = (typeof FILE_TYPES)[number];

/** The formats of a bookmark import: a browser's bookmark HTML (Netscape), a CSV with a URL column, one URL per line. */
export const IMPORT_FORMATS = ['netscape', 'csv', 'lines'] as const;
/** One of IMPORT_FORMATS. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
