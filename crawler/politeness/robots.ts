/**
 * robots.txt rules for one host, as RFC 9309 says to read them, applied to our product token.
 * Pure: no I/O, no timers.
 *
 * How it works: we read the file ourselves (robots-records.ts: RFC line syntax, groups, Sitemap and
 * unknown records), put patterns and paths in one percent-normalized form (RFC 9309 §2.2.2, see
 * canonicalize), pick our group (every group naming our product token, merged, else every `*` group),
 * and compile its rules (robots-compile.ts) into a flat form that robots-matcher.ts checks each URL
 * against in a bounded number of counted steps. We do not use robots-parser's matcher: its cost grows
 * as (wildcards x path length) per check, so one hostile file held the crawler for minutes;
 * robots-parser stays in the tests as the oracle.
 *
 * Where the work is done, and why:
 * - Reading and compiling a file (compileRobots) happens in the crawler worker that fetched it. It is
 *   linear in the bytes, which RFC 9309's 500 KiB bounds, but that is still 0.1-0.3 s of CPU for the
 *   worst files with cold code (25,000 rules; docs/benchmarks.md), and several times that in wall time
 *   on a loaded machine (measured: 1.1 s in the primary, the healthy site beside it 2-5 s late): in the
 *   primary it would hold every other host's clock. A worker already reads everything a site sends;
 *   it pauses every few thousand lines (compileRobotsInSteps), so its other fetches go on meanwhile.
 * - The primary adopts the compiled form (robotsRules: native copies into typed arrays, a few ms for
 *   the largest) and keeps it with the host's row instead of the file, so a restart or a 304 uses it
 *   again without reading anything. Rules kept for another product token (a changed CRAWL_USER_AGENT),
 *   or by an earlier version, make the host ask robots.txt again.
 * - Checks run in the primary, at dispatch: a URL must be judged before its host's slot is given out,
 *   and a round trip to a worker per URL would put IPC in front of every request. Each check is cut
 *   off at ROBOTS_COST.checkSteps (a file that needs more is unusable: its host is handled as broken),
 *   and the checks of one host get at most ROBOTS_COST.turnSteps per turn of that host (RobotsBook), so
 *   no single host can hold the primary's loop, however many of its URLs wait.
 */
import { CompiledRules, ROBOTS_COST } from './robots-matcher.ts';
import { compileRules, finish, WORK_PER_PAUSE, type RobotsRule } from './robots-compile.ts';
import { readRecords, TOKEN_RUN, type Group } from './robots-records.ts';
import type { CompiledRobots } from '../common/compiled-robots.ts';

export { ROBOTS_COST } from './robots-matcher.ts';
export type { CompiledRobots } from '../common/compiled-robots.ts';
export { ROBOTS_MAX_CRAWL_DELAY_MS } from './robots-records.ts';

/** What a check of one URL found, and the steps it took (see robots-matcher.ts). */
export interface RobotsCheck {
  kind: 'allowed' | 'disallowed' | 'over-budget';
  steps: number;
}

/** The rules of one host's robots.txt, as applied to our product token. */
export interface RobotsRules {
  /**
   * Whether we may fetch `url`, an absolute http(s) URL of the robots.txt's origin (scheme, host
   * and port as WHATWG URL compares them, so `http://h:80/` is `http://h/`). `/robots.txt` itself
   * is always allowed. Throws (`robots: ...`) for an unparsable URL or one of another origin, and
   * RobotsCostError when the rules cost more than ROBOTS_COST.checkSteps to check it.
   */
  isAllowed(url: string): boolean;
  /** As isAllowed, but says `over-budget` (rather than throwing) when the check passed its budget, and counts its steps. */
  check(url: string): RobotsCheck;
  /** How many distinct rules our group has (what makes its checks cost). */
  ruleCount: number;
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

/**
 * The rules of a robots.txt cost more than ROBOTS_COST.checkSteps to check one URL: the file is unusable
 * (the crawler handles its host as broken until a later robots.txt gives usable rules).
 */
export class RobotsCostError extends Error {
  constructor(
    readonly url: string,
    readonly ruleCount: number,
  ) {
    super(robotsCostMessage(url, ruleCount));
    this.name = 'RobotsCostError';
  }
}

/** Says, for a person, that checking `url` against a file of `ruleCount` rules passed the budget (the URL cut to 100 characters). */
export function robotsCostMessage(url: string, ruleCount: number): string {
  const shown = url.length > 100 ? `${url.slice(0, 100)}…` : url;
  return (
    `robots: its ${ruleCount.toLocaleString('en-US')} rules for this crawler take more than ` +
    `${ROBOTS_COST.checkSteps.toLocaleString('en-US')} steps to check one URL (${shown}); they are too costly to use`
  );
}

const ENCODER = new TextEncoder();

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

/** Rules that answer every URL with `allowed(url)`, in one step. */
function fixedRules(allowed: (url: string) => boolean): RobotsRules {
  return {
    isAllowed: allowed,
    check: (url) => ({ kind: allowed(url) ? 'allowed' : 'disallowed', steps: 1 }),
    ruleCount: 0,
    crawlDelayMs: undefined,
    sitemaps: [],
  };
}

/** Rules that allow everything: for a robots.txt that is unavailable (4xx, too many redirects). */
export function allowAllRules(): RobotsRules {
  return fixedRules((url) => {
    parseHttpUrl(url, 'URL');
    return true;
  });
}

/** Rules that allow nothing but /robots.txt itself: for a robots.txt that is unreachable (5xx, 429, network). */
export function disallowAllRules(): RobotsRules {
  return fixedRules((url) => parseHttpUrl(url, 'URL').pathname === '/robots.txt');
}

/**
 * Reads and compiles a robots.txt body fetched from `robotsUrl` (the `<origin>/robots.txt` we asked for,
 * not a redirect target: the rules apply to that origin, and relative Sitemap URLs resolve against it)
 * for the crawler whose User-Agent is `userAgent`. `body` may be the raw bytes (preferred: then a partial
 * UTF-8 BOM is skipped too) or the text. Only the first ROBOTS_MAX_BYTES are read, cut after the last
 * complete line inside them. Linear in them; a crawler worker does it (see the module comment).
 */
export function compileRobots(robotsUrl: string, body: string | Uint8Array, userAgent: string): CompiledRobots {
  return finish(compileRobotsInSteps(robotsUrl, body, userAgent));
}

/**
 * compileRobots as a generator that pauses (yields) every few thousand lines or rules, so that a worker
 * reading a file of tens of thousands of lines keeps serving its other fetches between the pauses.
 */
export function* compileRobotsInSteps(
  robotsUrl: string,
  body: string | Uint8Array,
  userAgent: string,
): Generator<void, CompiledRobots> {
  parseHttpUrl(robotsUrl, 'robots URL');
  const parsed = yield* readRecords(limitedText(body), robotsUrl);
  const token = productToken(userAgent).toLowerCase();
  const ours = chooseGroups(parsed.groups, token);
  // Kept as the groups' own arrays, never one: see RULES_PER_GROUP.
  const rules = ours.map((g) => g.rules);
  for (const chunk of rules) {
    for (let from = 0; from < chunk.length; from += WORK_PER_PAUSE) {
      canonicalizeRules(chunk, from, Math.min(chunk.length, from + WORK_PER_PAUSE));
      yield;
    }
  }
  return {
    token,
    rules: yield* compileRules(rules),
    crawlDelayMs: ours.reduce<number | null>((last, g) => g.crawlDelayMs ?? last, null),
    sitemaps: parsed.sitemaps,
  };
}

/**
 * The rules of a compiled robots.txt (compileRobots) for the URLs of `robotsUrl`'s origin: cheap (native
 * copies), so the crawler primary can adopt a file a worker read. Throws (`robots: ...`) for a robotsUrl
 * that is not http(s).
 */
export function robotsRules(robotsUrl: string, compiled: CompiledRobots): RobotsRules {
  const origin = parseHttpUrl(robotsUrl, 'robots URL').origin;
  const matcher = new CompiledRules(compiled.rules);
  const check = (url: string): RobotsCheck => {
    const target = parseHttpUrl(url, 'URL');
    if (target.origin !== origin) {
      throw new Error(`robots: ${target.href} is not on ${origin}, whose robots.txt these rules are`);
    }
    if (target.pathname === '/robots.txt') return { kind: 'allowed', steps: 1 };
    return matcher.check(canonicalize(target.pathname + target.search));
  };
  return {
    isAllowed(url: string): boolean {
      const result = check(url);
      if (result.kind === 'over-budget') throw new RobotsCostError(url, matcher.size);
      return result.kind === 'allowed';
    },
    check,
    ruleCount: matcher.size,
    crawlDelayMs: compiled.crawlDelayMs ?? undefined,
    sitemaps: compiled.sitemaps,
  };
}

/**
 * Whether `json` (CompiledRobots as stored) was compiled for the crawler whose User-Agent is `userAgent`:
 * read from its start without parsing it (compileRobots puts the token first, and JSON.stringify keeps
 * that order). False for null.
 */
export function isCompiledFor(json: string | null, userAgent: string): boolean {
  return json !== null && json.startsWith(`{"token":${JSON.stringify(productToken(userAgent).toLowerCase())},`);
}

/** Reads, compiles and adopts a robots.txt body in one go (compileRobots, then robotsRules). */
export function parseRobots(robotsUrl: string, body: string | Uint8Array, userAgent: string): RobotsRules {
  return robotsRules(robotsUrl, compileRobots(robotsUrl, body, userAgent));
}

/**
 * Rules made by `make` only when first used: for the rules a restart finds stored, so that it adopts
 * (or reads) each when its host is first due rather than every host's before the crawl resumes.
 */
export function rulesLater(make: () => RobotsRules): RobotsRules {
  let rules: RobotsRules | undefined;
  const read = () => (rules ??= make());
  return {
    isAllowed: (url) => read().isAllowed(url),
    check: (url) => read().check(url),
    get ruleCount() {
      return read().ruleCount;
    },
    get crawlDelayMs() {
      return read().crawlDelayMs;
    },
    get sitemaps() {
      return read().sitemaps;
    },
  };
}

/** Puts the patterns of `rules[from, to)` in canonical form (a plain loop, which V8 optimizes as it runs). */
function canonicalizeRules(rules: RobotsRule[], from: number, to: number): void {
  for (let i = from; i < to; i++) rules[i].pattern = canonicalize(rules[i].pattern);
}

/**
 * The groups that apply to a crawler whose product token is `token`: every group naming it
 * (case-insensitively; groups of one agent are merged, wherever they stand), else every `*` group, else
 * none (allow all). `token` is lower-case; an empty one obeys `*` groups only. Their Crawl-delay is the
 * last valid one given.
 */
function chooseGroups(groups: Group[], token: string): Group[] {
  const name = token || '*';
  const mine = groups.filter((g) => g.agents.includes(name));
  return mine.length > 0 ? mine : groups.filter((g) => g.agents.includes('*'));
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
  // The common case, a text that fits and starts with no BOM (whole or cut): it is already what we read.
  if (
    typeof body === 'string' &&
    body.length <= ROBOTS_MAX_BYTES &&
    Buffer.byteLength(body) <= ROBOTS_MAX_BYTES &&
    !body.startsWith('\uFEFF') &&
    !body.startsWith('\uFFFD') &&
    !/[\uD800-\uDFFF]/.test(body)
  )
    return body;
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

/** Characters left as they are: unreserved, reserved ones that mean themselves here, and `*`/`$`. */
const KEEP = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?]$/;
/** Text made only of KEEP characters (the common case: nothing to change). */
const ALL_KEPT = /^[A-Za-z0-9\-._~!$&()*+,;=:@/?]*$/;
/** A run of KEEP characters starting at `lastIndex`. */
const KEPT_RUN = /[A-Za-z0-9\-._~!$&()*+,;=:@/?]+/y;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;
const HEX = /^[0-9A-Fa-f]{2}$/;

/**
 * The one form patterns and URL paths are compared in (RFC 9309 §2.2.2): `%XX` of an unreserved
 * character decoded (`%62` → `b`), other `%XX` kept with upper-case hex, a stray `%` as `%25`,
 * non-ASCII as UTF-8 `%XX`, and every other character outside KEEP (controls, space, `"`, `'`,
 * `<`, `>`, `[`, `\`, `]`, `^`, `` ` ``, `{`, `|`, `}`, `#`) percent-encoded. The result passes
 * unchanged through both encodeURI and WHATWG URL, so robots-parser (the tests' oracle) reads it as we do.
 * Linear in the text: runs of kept characters are copied whole.
 */
function canonicalize(text: string): string {
  if (ALL_KEPT.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    KEPT_RUN.lastIndex = i;
    if (KEPT_RUN.test(text)) {
      out += text.slice(i, KEPT_RUN.lastIndex);
      i = KEPT_RUN.lastIndex;
      continue;
    }
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
