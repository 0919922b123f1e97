/**
 * Crawler traps: URL spaces without end (a calendar with a "next month" link forever, a session ID in
 * every link, relative links that make paths ever longer, pages with 100,000 links) and the limits
 * that keep a crawl bounded on them. The limits are all here, in CRAWL_LIMITS. Pure: no I/O.
 */
import { DEFAULTS } from '../../shared/config.ts';

/**
 * Every limit that keeps one crawl bounded, in one place. A person crawling a site should never notice
 * them on an ordinary site; on a trap they stop the crawler from following links, and the host's row in
 * /api/domains says which limit was hit.
 */
export const CRAWL_LIMITS = {
  /** Links followed from a seed at most (each seed chooses its depth, 0–10; see seeds.depth). */
  maxDepth: 10,
  /** Redirect hops followed from one URL; the next hop fails with 'too many redirects'. */
  maxRedirects: 5,
  /**
   * Distinct URLs of one host the crawler keeps (queued, fetched, failed or skipped, over every seed);
   * links past it are not followed. CRAWL_MAX_URLS_PER_HOST overrides it.
   */
  maxUrlsPerHost: DEFAULTS.crawlMaxUrlsPerHost,
  /** Links followed from one page (a worker already keeps only its first 5,000 distinct links). */
  maxLinksPerPage: 5_000,
  /** Path segments in a URL ('/a/b/c' has 3); deeper links are not followed. */
  maxPathSegments: 20,
  /** Times a segment, or a run of up to 3 segments, may stand back to back ('/a/a/a' is followed, '/a/a/a/a' is not). */
  maxRepeats: 3,
  /** Characters of a query string (without '?'); longer ones are not followed. */
  maxQueryLength: 512,
} as const;

/** The limits a check uses (CRAWL_LIMITS, or smaller ones in tests). */
export type CrawlLimits = { readonly [K in keyof typeof CRAWL_LIMITS]: number };

/**
 * Why `url` (an absolute, normalized http(s) URL) looks like part of an endless URL space, or null
 * when it does not: too many path segments, a segment (or run of up to 3) repeated back to back more
 * than `maxRepeats` times, or an overlong query. The message starts with `url-traps: `.
 */
export function trapReason(
  url: string,
  limits: Pick<CrawlLimits, 'maxPathSegments' | 'maxRepeats' | 'maxQueryLength'> = CRAWL_LIMITS,
): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `url-traps: ${JSON.stringify(url.slice(0, 80))} is not a URL`;
  }
  const query = parsed.search.slice(1);
  if (query.length > limits.maxQueryLength) {
    return `url-traps: the query is ${query.length} characters long (more than ${limits.maxQueryLength})`;
  }
  const segments = parsed.pathname.split('/').slice(1);
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop(); // '/a/b/' has 2
  if (segments.length > limits.maxPathSegments) {
    return `url-traps: the path has ${segments.length} segments (more than ${limits.maxPathSegments})`;
  }
  const repeat = repeatedRun(segments, limits.maxRepeats);
  if (repeat) {
    return `url-traps: the path repeats "${repeat.run}/" ${repeat.times} times in a row (more than ${limits.maxRepeats})`;
  }
  return null;
}

/** The first run of 1–3 segments that stands back to back more than `maxRepeats` times, if any. */
function repeatedRun(segments: string[], maxRepeats: number): { run: string; times: number } | null {
  for (let width = 1; width <= 3; width++) {
    for (let start = 0; start + width * (maxRepeats + 1) <= segments.length; start++) {
      let times = 1;
      while (sameRun(segments, start, start + times * width, width)) times++;
      if (times > maxRepeats) return { run: segments.slice(start, start + width).join('/'), times };
    }
  }
  return null;
}

function sameRun(segments: string[], a: number, b: number, width: number): boolean {
  if (b + width > segments.length) return false;
  for (let i = 0; i < width; i++) if (segments[a + i] !== segments[b + i]) return false;
  return true;
}

/** Query parameters that carry a session ID whatever their value (names compared lower-cased). */
const SESSION_PARAMS = new Set([
  'jsessionid',
  'phpsessid',
  'sessionid',
  'session_id',
  'sessid',
  'oscsid',
  'zenid',
  'cfid',
  'cftoken',
]);
/** Parameters that carry a session ID only when the value looks like one (`sid=<16+ letters/digits>`). */
const TOKEN_PARAMS = new Set(['sid', 's_id']);
const TOKEN_VALUE = /^[A-Za-z0-9_-]{16,}$/;
/** `;jsessionid=...` (and the like) inside a path segment, as Java servlets write it. */
const PATH_SESSION = /;(?:jsessionid|phpsessid|sessionid|sid)=[^/;]*/gi;

/** Whether a query parameter (`name=value`, as written) is a session ID. */
function isSessionParam(param: string): boolean {
  const eq = param.indexOf('=');
  const name = (eq === -1 ? param : param.slice(0, eq)).toLowerCase();
  const value = eq === -1 ? '' : param.slice(eq + 1);
  if (SESSION_PARAMS.has(name) || /^aspsessionid[a-z]*$/.test(name)) return true;
  return TOKEN_PARAMS.has(name) && TOKEN_VALUE.test(value);
}

/**
 * Drops session IDs from a parsed URL in place: query parameters such as `PHPSESSID=…`,
 * `jsessionid=…`, `sid=<16+ letters and digits>`, and `;jsessionid=…` path parameters. A site that
 * puts a fresh session ID in every link would otherwise be an endless URL space; Lantern keeps no
 * cookies, so the ID is meaningless to it. Every other parameter is kept as written, in its order.
 */
export function stripSessionIds(url: URL): void {
  if (url.pathname.includes(';')) url.pathname = url.pathname.replace(PATH_SESSION, '');
  if (url.search.length <= 1) return;
  const params = url.search.slice(1).split('&');
  const kept = params.filter((p) => !isSessionParam(p));
  if (kept.length !== params.length) url.search = kept.length === 0 ? '' : `?${kept.join('&')}`;
}
