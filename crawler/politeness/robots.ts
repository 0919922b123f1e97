/**
 * robots.txt rules for one host, as RFC 9309 says to read them, applied to our product token.
 * Pure: no I/O, no timers.
 *
 * How it works: we tokenize the file ourselves (RFC line syntax, groups, Sitemap and unknown
 * records) and hand robots-parser a canonical robots.txt it cannot misread: one block per group,
 * valid agents only, patterns already percent-normalized, no Sitemap or unknown lines. robots-parser
 * then merges groups of the same agent, picks our group (or `*`), and does the matching: `*` and
 * `$` wildcards, longest match wins, allow wins a tie. We fix what robots-parser gets wrong:
 * - it ends a group at a Sitemap or unknown line (RFC 9309 does not): those lines never reach it;
 * - a group with no rules would fall through to `*`: we give each group a no-op `disallow:`;
 * - it encodes patterns with encodeURI but takes URL paths from WHATWG URL, which disagree on
 *   characters like `|`, `[`, `'`, and it never decodes `%62`-style unreserved escapes, which
 *   RFC 9309 §2.2.2 requires: we normalize patterns and paths the same way (see canonicalize);
 * - it answers `undefined` for a URL of another origin: we compare WHATWG origins ourselves (so
 *   `http://h:80` is `http://h`) and ask it about the path only, under a fixed origin.
 */
import robotsParserExport from 'robots-parser';

/** The rules of one host's robots.txt, as applied to our product token. */
export interface RobotsRules {
  /**
   * Whether we may fetch `url`, an absolute http(s) URL of the robots.txt's origin (scheme, host
   * and port as WHATWG URL compares them, so `http://h:80/` is `http://h/`). `/robots.txt` itself
   * is always allowed. Throws (`robots: ...`) for an unparsable URL or one of another origin.
   */
  isAllowed(url: string): boolean;
  /** Crawl-delay of our group in whole milliseconds (rounded up, capped at 24 h), if it gave one. */
  crawlDelayMs: number | undefined;
  /** Absolute http(s) URLs of the file's `Sitemap:` lines (wherever they stand), in order, deduplicated. */
  sitemaps: string[];
}

/** RFC 9309 §2.5: crawlers must parse at least 500 KiB; we parse exactly that much and ignore the rest. */
export const ROBOTS_MAX_BYTES = 500 * 1024;
/** RFC 9309 §2.3.1.2: follow at least five consecutive redirects when fetching robots.txt. */
export const ROBOTS_MAX_REDIRECTS = 5;
/** RFC 9309 §2.4: a cached robots.txt should not be used for more than 24 hours. */
export const ROBOTS_CACHE_MS = 24 * 60 * 60 * 1000;
/** The largest Crawl-delay we honour; a longer one is cut to this (we re-read robots.txt daily anyway). */
export const ROBOTS_MAX_CRAWL_DELAY_MS = 24 * 60 * 60 * 1000;

/** The part of robots-parser we use (its bundled typings do not type-check as an ES default import). */
interface RobotsParserResult {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
}
const robotsParser = robotsParserExport as unknown as (url: string, contents: string) => RobotsParserResult;
const ENCODER = new TextEncoder();

/** Origin under which the canonical text is handed to robots-parser; only paths are ever asked. */
const CANONICAL_ORIGIN = 'http://robots.invalid';

/** Characters of a product token, in the crawler's User-Agent and in robots.txt user-agent lines. */
const TOKEN_RUN = /^[A-Za-z0-9_-]+/;

/**
 * The product token of a User-Agent header: the text before the first `/`, and of that only the
 * leading run of `[A-Za-z0-9_-]` (RFC 9309 tokens are `[A-Za-z_-]`; we accept digits too, on both
 * sides alike). `LanternBot/0.1.0 (+personal search engine)` → `LanternBot`. Returns `''` when there
 * is none; such a crawler obeys only `*` groups.
 */
export function productToken(userAgent: string): string {
  const beforeSlash = userAgent.split('/', 1)[0].trim();
  return TOKEN_RUN.exec(beforeSlash)?.[0] ?? '';
}

/**
 * What to do after fetching robots.txt ended with `status` (RFC 9309 §2.3.1):
 * - 2xx: `'rules'` — parse the body.
 * - 3xx: `'allow-all'` — the fetcher follows up to ROBOTS_MAX_REDIRECTS hops itself, so a 3xx here
 *   means the chain was longer (or had no usable Location); §2.3.1.2 lets us then treat robots.txt
 *   as unavailable, and unavailable means allow all.
 * - 4xx except 429: `'allow-all'` (§2.3.1.3 "Unavailable"). That includes 401 and 403, which some
 *   older crawlers read as "disallow all"; RFC 9309 does not.
 * - 429, 5xx and anything else (1xx, nonsense): `'disallow-all'` (§2.3.1.4 "Unreachable"), until a
 *   later fetch succeeds. A network failure or timeout has no status: the caller uses
 *   disallowAllRules() for it directly.
 */
export function robotsOutcomeForStatus(status: number): 'rules' | 'allow-all' | 'disallow-all' {
  if (!Number.isInteger(status)) return 'disallow-all';
  if (status >= 200 && status <= 299) return 'rules';
  if (status >= 300 && status <= 399) return 'allow-all';
  if (status === 429) return 'disallow-all';
  if (status >= 400 && status <= 499) return 'allow-all';
  return 'disallow-all';
}

/** Rules that allow everything: for a robots.txt that is unavailable (4xx, too many redirects). */
export function allowAllRules(): RobotsRules {
  return {
    isAllowed(url: string): boolean {
      parseHttpUrl(url, 'URL');
      return true;
    },
    crawlDelayMs: undefined,
    sitemaps: [],
  };
}

/** Rules that allow nothing but /robots.txt itself: for a robots.txt that is unreachable (5xx, 429, network). */
export function disallowAllRules(): RobotsRules {
  return {
    isAllowed(url: string): boolean {
      return parseHttpUrl(url, 'URL').pathname === '/robots.txt';
    },
    crawlDelayMs: undefined,
    sitemaps: [],
  };
}

/**
 * Reads a robots.txt body fetched from `robotsUrl` (the `<origin>/robots.txt` we asked for, not a
 * redirect target: the rules apply to that origin) for the crawler whose User-Agent is `userAgent`.
 * `body` may be the raw bytes (preferred: then a partial UTF-8 BOM is skipped too) or the text.
 * Only the first ROBOTS_MAX_BYTES are read, cut after the last complete line inside them.
 */
export function parseRobots(robotsUrl: string, body: string | Uint8Array, userAgent: string): RobotsRules {
  const origin = parseHttpUrl(robotsUrl, 'robots URL').origin;
  const parsed = readRecords(limitedText(body), robotsUrl);
  const parser = robotsParser(`${CANONICAL_ORIGIN}/robots.txt`, renderCanonical(parsed.groups));
  // robots-parser lower-cases and falls back to `*` for an empty name, as we want.
  const token = productToken(userAgent);
  return {
    isAllowed(url: string): boolean {
      const target = parseHttpUrl(url, 'URL');
      if (target.origin !== origin) {
        throw new Error(`robots: ${target.href} is not on ${origin}, whose robots.txt these rules are`);
      }
      if (target.pathname === '/robots.txt') return true;
      return parser.isAllowed(CANONICAL_ORIGIN + canonicalize(target.pathname + target.search), token) === true;
    },
    // The canonical text carries delays already in milliseconds (see renderCanonical).
    crawlDelayMs: parser.getCrawlDelay(token),
    sitemaps: parsed.sitemaps,
  };
}

/** An http(s) URL, or a `robots:` error naming what it was meant to be. */
function parseHttpUrl(url: string, what: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`robots: ${what} is not a valid URL: ${JSON.stringify(url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`robots: ${what} is not http(s): ${JSON.stringify(url)}`);
  }
  return parsed;
}

/** The first ROBOTS_MAX_BYTES of the body as text, cut after the last line end, any UTF-8 BOM dropped. */
function limitedText(body: string | Uint8Array): string {
  let bytes: Uint8Array;
  if (typeof body === 'string') {
    // Each character takes at least one byte, so nothing past this many characters can fit.
    bytes = ENCODER.encode(body.length > ROBOTS_MAX_BYTES ? body.slice(0, ROBOTS_MAX_BYTES + 1) : body);
  } else {
    bytes = body;
  }
  if (bytes.length > ROBOTS_MAX_BYTES) {
    let end = ROBOTS_MAX_BYTES;
    while (end > 0 && bytes[end - 1] !== 0x0a && bytes[end - 1] !== 0x0d) end--;
    bytes = bytes.subarray(0, end);
  }
  // A full BOM, or (as Google's parser allows) the first one or two bytes of one.
  let start = 0;
  const bom = [0xef, 0xbb, 0xbf];
  while (start < bom.length && bytes[start] === bom[start]) start++;
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(start));
}

/** One group: its agents (lower-case tokens or `*`), its rules and its last valid Crawl-delay. */
interface Group {
  agents: string[];
  rules: { allow: boolean; pattern: string }[];
  crawlDelayMs: number | undefined;
}

const KNOWN_KEYS = new Set(['user-agent', 'allow', 'disallow', 'crawl-delay', 'sitemap']);

/**
 * The groups and sitemaps of a robots.txt, per RFC 9309 §2.1–2.2: a group is one or more
 * user-agent lines followed by its member lines, and ends only at a user-agent line that follows a
 * member line. Members are allow, disallow and crawl-delay (crawl-delay is not in the RFC; like
 * robots-parser, Bing and Yandex we read it as a member of the group it stands in, so
 * `User-agent: *`, `Crawl-delay: 5`, `User-agent: X`, `Disallow: /` gives `*` a delay, not X's
 * rules). Sitemap and unknown lines are other records: kept or dropped, they never end a group.
 * Member lines before the first user-agent line belong to no group and are ignored.
 */
function readRecords(text: string, robotsUrl: string): { groups: Group[]; sitemaps: string[] } {
  const groups: Group[] = [];
  const sitemaps = new Set<string>();
  let current: Group | undefined;
  let inAgentLines = false;
  for (const rawLine of text.split(/\r\n|\r|\n/)) {
    const line = splitLine(rawLine);
    if (!line) continue;
    const { key, value } = line;
    if (key === 'sitemap') {
      const url = sitemapUrl(value, robotsUrl);
      if (url) sitemaps.add(url);
    } else if (key === 'user-agent') {
      if (!current || !inAgentLines) {
        current = { agents: [], rules: [], crawlDelayMs: undefined };
        groups.push(current);
      }
      const agent = agentToken(value);
      if (agent) current.agents.push(agent);
      inAgentLines = true;
    } else if (current) {
      inAgentLines = false;
      if (key === 'crawl-delay') {
        const ms = crawlDelayToMs(value);
        if (ms !== undefined) current.crawlDelayMs = ms;
      } else if (value !== '') {
        // An empty allow/disallow matches nothing; it still ends the agent lines (above).
        current.rules.push({ allow: key === 'allow', pattern: canonicalize(value) });
      }
    }
  }
  return { groups, sitemaps: [...sitemaps] };
}

/**
 * A line's lower-cased key and trimmed value, comments removed; null for blank, comment-only and
 * unknown lines. Like Google's parser we also accept a known key followed by whitespace instead of
 * a colon (`disallow /`): it is obvious what it means, and reading it is the polite choice.
 */
function splitLine(rawLine: string): { key: string; value: string } | null {
  const hash = rawLine.indexOf('#');
  const line = trimWs(hash >= 0 ? rawLine.slice(0, hash) : rawLine);
  if (line === '') return null;
  const colon = line.indexOf(':');
  let key: string;
  let value: string;
  if (colon >= 0) {
    key = trimWs(line.slice(0, colon)).toLowerCase();
    value = trimWs(line.slice(colon + 1));
  } else {
    const space = /[ \t]/.exec(line);
    if (!space) return null;
    key = line.slice(0, space.index).toLowerCase();
    value = trimWs(line.slice(space.index));
  }
  return KNOWN_KEYS.has(key) ? { key, value } : null;
}

/**
 * Trims RFC 9309 whitespace (space and tab) only: String#trim would also eat a stray U+FEFF, and a
 * BOM inside the file spoils its line (as in Google's parser).
 */
function trimWs(text: string): string {
  return text.replace(/^[ \t]+|[ \t]+$/g, '');
}

/**
 * The agent a user-agent value names: `*` (also `* anything`), else the leading token run
 * lower-cased (`FooBot/1.0` → `foobot`, `Foo Bar` → `foo`, as Google reads them), else '' (matches
 * nothing).
 */
function agentToken(value: string): string {
  if (value === '*' || /^\*[ \t]/.test(value)) return '*';
  return (TOKEN_RUN.exec(value)?.[0] ?? '').toLowerCase();
}

/**
 * A Crawl-delay value (decimal seconds: `10`, `0.5`, `.25`) in whole milliseconds, rounded up and
 * capped at ROBOTS_MAX_CRAWL_DELAY_MS. Anything else (negative, `NaN`, `1e3`, `5s`, empty) is
 * ignored: undefined. Computed on the digits, so `1.1` is 1100 ms, not 1101.
 */
function crawlDelayToMs(value: string): number | undefined {
  const m = /^(\d*)(?:\.(\d*))?$/.exec(value);
  if (!m || (m[1] === '' && !m[2])) return undefined;
  const whole = m[1].replace(/^0+/, '');
  const fraction = m[2] ?? '';
  if (whole.length > 6) return ROBOTS_MAX_CRAWL_DELAY_MS; // over a million seconds
  const roundUp = /[1-9]/.test(fraction.slice(3)) ? 1 : 0; // a part of a millisecond left over
  const ms = Number(whole || '0') * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0')) + roundUp;
  return Math.min(ms, ROBOTS_MAX_CRAWL_DELAY_MS);
}

/** A Sitemap value as an absolute http(s) URL (relative ones resolved against robots.txt), or null. */
function sitemapUrl(value: string, robotsUrl: string): string | null {
  if (value === '') return null;
  try {
    const url = new URL(value, robotsUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * robots.txt text robots-parser reads exactly as we mean it: per group, its agents, a no-op
 * `disallow:` (so that a group without rules still exists and still shadows `*`), its Crawl-delay
 * already converted to milliseconds (parseRobots reads getCrawlDelay() back as milliseconds), then
 * its rules. Groups naming no valid agent are left out.
 */
function renderCanonical(groups: Group[]): string {
  const lines: string[] = [];
  for (const group of groups) {
    if (group.agents.length === 0) continue;
    for (const agent of group.agents) lines.push(`user-agent: ${agent}`);
    lines.push('disallow:');
    if (group.crawlDelayMs !== undefined) lines.push(`crawl-delay: ${group.crawlDelayMs}`);
    for (const rule of group.rules) lines.push(`${rule.allow ? 'allow' : 'disallow'}: ${rule.pattern}`);
  }
  return lines.join('\n');
}

/** Characters left as they are: unreserved, reserved ones that mean themselves here, and `*`/`$`. */
const KEEP = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?]$/;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * The one form patterns and URL paths are compared in (RFC 9309 §2.2.2): `%XX` of an unreserved
 * character decoded (`%62` → `b`), other `%XX` kept with upper-case hex, a stray `%` as `%25`,
 * non-ASCII as UTF-8 `%XX`, and every other character outside KEEP (controls, space, `"`, `'`,
 * `<`, `>`, `[`, `\`, `]`, `^`, `` ` ``, `{`, `|`, `}`, `#`) percent-encoded. The result passes
 * unchanged through both encodeURI (robots-parser, on patterns) and WHATWG URL (robots-parser, on
 * the path we ask about), so the two sides stay comparable.
 */
function canonicalize(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; ) {
    const ch = String.fromCodePoint(text.codePointAt(i)!);
    if (ch === '%') {
      const hex = text.slice(i + 1, i + 3);
      if (HEX.test(hex)) {
        const decoded = String.fromCharCode(parseInt(hex, 16));
        out += UNRESERVED.test(decoded) ? decoded : `%${hex.toUpperCase()}`;
        i += 3;
      } else {
        out += '%25';
        i += 1;
      }
      continue;
    }
    out += KEEP.test(ch) ? ch : percentEncode(ch);
    i += ch.length;
  }
  return out;
}

/** The UTF-8 bytes of one code point as upper-case `%XX` (a lone surrogate becomes U+FFFD's). */
function percentEncode(ch: string): string {
  let out = '';
  for (const byte of ENCODER.encode(ch)) out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}
