import os from 'node:os';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { isLoopbackName } from './host-names.ts';
import { projectPath } from './project-root.ts';

/** Lantern's version, read once from package.json (it appears in the User-Agent). */
export const VERSION: string = (JSON.parse(readFileSync(projectPath('package.json'), 'utf8')) as { version: string })
  .version;

/** Every setting Lantern reads from its environment, parsed and validated once at start. */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  crawlWorkers: number;
  crawlDelayMs: number;
  /** Longest time one request may take, connect to last byte (connect and header waits get parts of it). */
  crawlTimeoutMs: number;
  /** Distinct URLs of one host the crawler keeps at most; links past it are not followed (a trap guard). */
  crawlMaxUrlsPerHost: number;
  /** Distinct hosts (origins) the URLs of one seed may be on; links to further hosts are not followed (a wildcard-DNS guard). */
  crawlMaxHostsPerSeed: number;
  /** Free bytes DATA_DIR's file system keeps at least: under it the crawl pauses (0 = no floor). */
  crawlMinFreeDiskBytes: number;
  /** Bytes the database may hold at most: past it the crawl pauses (0 = no limit). */
  crawlMaxDbSizeBytes: number;
  /** How long after its last crawl a seed is crawled again on its own (conditionally where pages allow); 0 = never. */
  crawlRefreshMs: number;
  /** The User-Agent, with CRAWL_CONTACT in it as `+contact` when one is given. */
  userAgent: string;
  /** The crawler owner's contact (CRAWL_CONTACT): an http(s) URL or an e-mail address; null when not given. */
  crawlContact: string | null;
  /** Which hosts share one politeness clock: one per registrable domain (default) or one per host. */
  crawlPolitenessGroup: 'domain' | 'host';
  /** The delay after a request is at least this many times the server's recent response time (0: off). */
  crawlPacingFactor: number;
  /** The pacing factor's part of a delay never exceeds this (ms); Crawl-delay and backoff are not capped by it. */
  crawlPacingMaxMs: number;
  /** The crawler primary's heap limit in MiB (node's --max-old-space-size; see crawler/primary-heap.ts). */
  crawlPrimaryHeapMb: number;
  /** A page unchanged at each visit waits twice as long before the next, up to this (ms); see crawler/frontier/revisit.ts. */
  crawlRevisitMaxMs: number;
  /** Names the crawler resolves itself, before DNS (CRAWL_RESOLVE): name → IP address. */
  crawlResolve: Record<string, string>;
  allowPrivate: boolean;
  /**
   * A test hook (CRAWL_PARSE_TRACE): a file each crawler worker appends a line to when it starts and when it
   * ends parsing an HTML page, so that a test can order a page's parse against a site's request log
   * (crawler/integration/hostile-parse-hold.test.ts); null (the default) = no trace.
   */
  crawlParseTrace: string | null;
  /**
   * Further names Lantern answers to besides loopback and HOST (a reverse proxy's name, a LAN name), each
   * lower-case, `name` or `name:port` (IPv6 in brackets). See server/allowed-hosts.ts for how they match.
   */
  publicHosts: string[];
  /** The secret a person signs in with (LANTERN_SECRET); null = no sign-in (allowed on loopback only). */
  secret: string | null;
  /** How long a sign-in lasts (SESSION_LIFETIME). */
  sessionLifetimeMs: number;
}

/** A configuration value that cannot be used; its message names the variable and the problem. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** The defaults, in one place (README.md's configuration table, the contract, says the same). */
export const DEFAULTS = {
  port: 3000,
  host: '127.0.0.1',
  dataDir: './data',
  // One worker per CPU: on 2 cores (bench:crawl part 2, README's CRAWL_WORKERS) 2 workers crawled faster
  // and at less CPU per page than 3 or 4; workers beyond the cores only take turns on them.
  crawlWorkers: () => Math.min(64, Math.max(2, os.availableParallelism())),
  crawlDelayMs: 1000,
  crawlTimeoutMs: 30_000,
  crawlMaxUrlsPerHost: 10_000, // a guard against endless URL spaces (crawler/frontier/url-traps.ts)
  // A guard against a site that mints host names (wildcard DNS: a1.example.org, a2.example.org, ...). A seed
  // of scope 'domain' reaches an organisation's subdomains (dozens, rarely hundreds); one of scope 'any' at
  // depth 2 reaches the sites its pages link to and theirs (a link-rich page: ~50, so ~2,500 at most, rarely
  // that many distinct ones). 1,000 lets both be crawled, while each host costs a robots.txt fetch, a row in
  // Domains and in the primary's memory, so an endless supply of names stops there.
  crawlMaxHostsPerSeed: 1_000,
  // Room SQLite needs beyond the database (its WAL between checkpoints, temporary files of big transactions,
  // a full-text merge writing a new segment before dropping the old ones) and the rest of the machine needs
  // too: 1 GB is under 1 % of most disks and far more than a few minutes of crawling writes.
  crawlMinFreeDisk: '1GB',
  // About 2–3 million pages of ordinary text (docs/benchmarks.md: ~7 KB per page with its indexes; real pages
  // run larger), past the million pages Lantern is designed and measured for: a crawl that grows past it has
  // most likely wandered somewhere unintended. Raise it, or set 0, for a bigger collection.
  crawlMaxDbSize: '20GB',
  crawlRefresh: '7d',
  userAgent: `LanternBot/${VERSION} (+personal search engine)`,
  /** The product and comment the User-Agent has when CRAWL_CONTACT names its owner. */
  userAgentWithContact: (contact: string) => `LanternBot/${VERSION} (personal search engine; +${contact})`,
  crawlPolitenessGroup: 'domain',
  crawlPacingFactor: 5, // as Heritrix's delayFactor: a server that takes 2 s per page is asked every 10 s
  crawlPacingMaxMs: 60_000,
  // About 1.5x the primary's live data as its heap's growth before a full collection, where node's default
  // limit allows 4x (crawler/primary-heap.ts); 10,000 hosts hold about 80 MiB.
  crawlPrimaryHeapMb: 768,
  crawlRevisitMax: '60d',
  allowPrivate: false,
  publicHosts: '',
  sessionLifetime: '7d',
} as const;

/**
 * The shortest LANTERN_SECRET accepted. Guessing is online only (the secret is never stored, and sign-in
 * attempts are rate-limited per client: server/plugins/auth.ts): even 10,000 addresses at 5 guesses a
 * minute make 7·10^7 guesses a day, while 16 characters of `openssl rand -base64 24` carry 96 bits and
 * 16 lower-case letters 75 bits (about 10^14 days). A floor on length is what can be checked; the
 * message suggests a random secret.
 */
export const SECRET_MIN_CHARS = 16;
/** The longest LANTERN_SECRET accepted (a guard, far above any real secret). */
export const SECRET_MAX_CHARS = 1024;

/** How the one-line refusals tell a person to set a secret. */
export const SECRET_HINT = `set LANTERN_SECRET to a secret of at least ${SECRET_MIN_CHARS} characters, for example LANTERN_SECRET=$(openssl rand -base64 24)`;

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, min: number, max: number, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!/^[+-]?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be an integer between ${min} and ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const MAX_DURATION_MS = 365 * UNIT_MS.d;

const UNIT_BYTES: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3, tb: 1024 ** 4 };
const MAX_SIZE_BYTES = 1024 ** 5; // 1 PB: beyond any disk, short of Number's exact integers

/**
 * A size such as `500MB`, `10GB` or `1.5TB` in bytes (units B, KB, MB, GB, TB, each 1024 of the one
 * before; case-insensitive), at least `minBytes`; `0` (or `off`) is 0, meaning no limit.
 */
function size(env: Env, name: string, fallback: string, minBytes: number): number {
  const raw = env[name] ?? '';
  const v = (raw.trim() === '' ? fallback : raw.trim()).toLowerCase();
  if (v === '0' || v === 'off') return 0;
  const m = /^(\d+(?:\.\d+)?)\s*(b|kb|mb|gb|tb)$/.exec(v);
  const bytes = m ? Math.round(Number(m[1]) * UNIT_BYTES[m[2]]) : NaN;
  if (!(bytes >= minBytes && bytes <= MAX_SIZE_BYTES)) {
    throw new ConfigError(
      `${name} must be a size from ${minBytes / 1024 ** 2}MB to 1024TB such as 500MB or 10GB (units B, KB, MB, GB, TB), or 0 for no limit, got ${JSON.stringify(raw)}`,
    );
  }
  return bytes;
}

/** A duration such as `90s`, `30m`, `12h` or `7d` in milliseconds; `0` (or `off`) is 0 where `never` allows it. */
function duration(env: Env, name: string, fallback: string, never = true): number {
  const raw = env[name] ?? '';
  const v = (raw.trim() === '' ? fallback : raw.trim()).toLowerCase();
  if (never && (v === '0' || v === 'off')) return 0;
  const m = /^(\d+(?:\.\d+)?)\s*([smhd])$/.exec(v);
  const ms = m ? Math.round(Number(m[1]) * UNIT_MS[m[2]]) : NaN;
  if (!(ms >= 1000 && ms <= MAX_DURATION_MS)) {
    throw new ConfigError(
      `${name} must be a duration from 1s to 365d such as 12h or 7d (units s, m, h, d)${never ? ', or 0 for never' : ''}, got ${JSON.stringify(raw)}`,
    );
  }
  return ms;
}

const HOST_NAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/;

/** PUBLIC_HOSTS: comma-separated `name` or `name:port` (IPv6 in brackets), lower-cased; empty entries are skipped. */
function hostList(env: Env, name: string): string[] {
  const raw = env[name] ?? '';
  const entries = raw
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== '');
  for (const entry of entries) {
    const m = /^(\[[0-9a-f:.]+\]|[^:]+)(?::(\d{1,5}))?$/.exec(entry);
    const host = m?.[1] ?? '';
    const port = m?.[2] === undefined ? 1 : Number(m[2]);
    const hostOk = host.startsWith('[') ? net.isIPv6(host.slice(1, -1)) : HOST_NAME.test(host);
    if (!hostOk || port < 1 || port > 65535) {
      throw new ConfigError(
        `${name} takes host names or addresses, each optionally with :port, separated by commas (e.g. lantern.example.com,lantern.lan:3000), got ${JSON.stringify(entry)}`,
      );
    }
  }
  return [...new Set(entries)];
}

/** LANTERN_SECRET: unset or empty is null; otherwise SECRET_MIN_CHARS to SECRET_MAX_CHARS printable characters, used as given. */
function secret(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return null;
  if (
    raw.length < SECRET_MIN_CHARS ||
    raw.length > SECRET_MAX_CHARS ||
    /[\u0000-\u001f\u007f]/.test(raw) ||
    raw.trim() !== raw
  ) {
    // The value itself is never echoed: it is (nearly) a secret.
    throw new ConfigError(
      `${name} must be ${SECRET_MIN_CHARS} to ${SECRET_MAX_CHARS} characters with no control characters and no spaces at either end (got ${raw.length} characters); for example LANTERN_SECRET=$(openssl rand -base64 24)`,
    );
  }
  return raw;
}

/**
 * Lantern reachable from other machines needs a secret: bound to an address that is not loopback, or
 * named in PUBLIC_HOSTS by a name that is not (a reverse proxy on this machine makes a loopback-bound
 * Lantern reachable by exactly the names it forwards). Throws the one-line refusal.
 */
function requireSecretWhenExposed(config: Config): void {
  if (config.secret !== null) return;
  if (!isLoopbackName(config.host)) {
    throw new ConfigError(
      `HOST=${config.host} makes Lantern reachable from other machines, so it needs a secret: ${SECRET_HINT} (or set HOST=127.0.0.1 to keep it on this machine)`,
    );
  }
  const exposed = config.publicHosts.find((h) => !isLoopbackName(h.replace(/:\d+$/, '')));
  if (exposed !== undefined) {
    throw new ConfigError(
      `PUBLIC_HOSTS names ${exposed}, by which Lantern is reached from other machines, so it needs a secret: ${SECRET_HINT}`,
    );
  }
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`${name} must be 1 or 0, got ${JSON.stringify(raw)}`);
}

function text(env: Env, name: string, fallback: string, check?: (v: string) => string | undefined): string {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const problem = check?.(raw.trim());
  if (problem) throw new ConfigError(`${name} ${problem}, got ${JSON.stringify(raw)}`);
  return raw.trim();
}

/** A decimal number such as `5` or `2.5` within [min, max]. */
function decimal(env: Env, name: string, min: number, max: number, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = raw.trim();
  const value = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || value < min || value > max) {
    throw new ConfigError(
      `${name} must be a number from ${min} to ${max} such as 5 or 2.5, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** One of a fixed set of words. */
function choice<T extends string>(env: Env, name: string, words: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (!(words as readonly string[]).includes(v))
    throw new ConfigError(`${name} must be one of ${words.join(', ')}, got ${JSON.stringify(raw)}`);
  return v as T;
}

/** Longest CRAWL_CONTACT accepted: it travels in every request's User-Agent. */
export const CONTACT_MAX_CHARS = 200;

/**
 * CRAWL_CONTACT: an http(s) URL (a page about this crawler and its owner) or an e-mail address, without
 * spaces, parentheses or quotes (it goes inside the User-Agent's comment); null when not set.
 */
function contact(env: Env, name: string): string | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const v = raw.trim();
  const plain = v.length <= CONTACT_MAX_CHARS && !/[\s()<>"\\;,\u0000-\u001f\u007f]/.test(v);
  const email = /^[^@]+@[^@]+\.[^@.]+$/.test(v);
  let url = false;
  try {
    const u = new URL(v);
    url = (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && /^https?:\/\//i.test(v);
  } catch {
    url = false;
  }
  if (!plain || !(email || url)) {
    throw new ConfigError(
      `${name} must be an http(s) URL or an e-mail address of at most ${CONTACT_MAX_CHARS} characters, without spaces, parentheses or quotes (e.g. https://example.org/lantern or me@example.org), got ${JSON.stringify(raw)}`,
    );
  }
  return v;
}

/** The User-Agent: CRAWL_USER_AGENT or the default, with `+contact` added when CRAWL_CONTACT is set. */
function userAgentWith(ua: string | undefined, contactText: string | null): string {
  if (contactText === null) return ua ?? DEFAULTS.userAgent;
  if (ua === undefined) return DEFAULTS.userAgentWithContact(contactText);
  return ua.includes(contactText) ? ua : `${ua} (+${contactText})`;
}

/** CRAWL_RESOLVE: comma-separated `name=address` (an IPv4 or IPv6 address), like curl's --resolve. */
function resolveMap(env: Env, name: string): Record<string, string> {
  const raw = env[name] ?? '';
  const out: Record<string, string> = {};
  for (const entry of raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')) {
    const m = /^([^=\s]+)=\[?([0-9a-fA-F:.]+)\]?$/.exec(entry);
    const host = m?.[1].toLowerCase() ?? '';
    if (!m || !HOST_NAME.test(host) || net.isIP(m[2]) === 0) {
      throw new ConfigError(
        `${name} takes name=address pairs separated by commas (e.g. docs.example.test=127.0.0.5,www.example.test=127.0.0.5), got ${JSON.stringify(entry)}`,
      );
    }
    out[host] = m[2];
  }
  return out;
}

/** Parses the environment into a Config; throws ConfigError (one line) for the first bad value. */
export function loadConfig(env: Env): Config {
  const cpus = DEFAULTS.crawlWorkers();
  const config: Config = {
    port: integer(env, 'PORT', 1, 65535, DEFAULTS.port),
    host: text(env, 'HOST', DEFAULTS.host, (v) =>
      /^[\w.:-]+$/.test(v) ? undefined : 'must be an IP address or host name',
    ),
    dataDir: path.resolve(text(env, 'DATA_DIR', DEFAULTS.dataDir)),
    crawlWorkers: integer(env, 'CRAWL_WORKERS', 1, 64, cpus),
    crawlDelayMs: integer(env, 'CRAWL_DELAY_MS', 0, 3_600_000, DEFAULTS.crawlDelayMs),
    crawlTimeoutMs: integer(env, 'CRAWL_TIMEOUT_MS', 1000, 600_000, DEFAULTS.crawlTimeoutMs),
    crawlMaxUrlsPerHost: integer(env, 'CRAWL_MAX_URLS_PER_HOST', 10, 10_000_000, DEFAULTS.crawlMaxUrlsPerHost),
    crawlMaxHostsPerSeed: integer(env, 'CRAWL_MAX_HOSTS_PER_SEED', 1, 1_000_000, DEFAULTS.crawlMaxHostsPerSeed),
    crawlMinFreeDiskBytes: size(env, 'CRAWL_MIN_FREE_DISK', DEFAULTS.crawlMinFreeDisk, 1024 ** 2),
    crawlMaxDbSizeBytes: size(env, 'CRAWL_MAX_DB_SIZE', DEFAULTS.crawlMaxDbSize, 1024 ** 2),
    crawlRefreshMs: duration(env, 'CRAWL_REFRESH', DEFAULTS.crawlRefresh),
    userAgent: userAgentWith(
      env.CRAWL_USER_AGENT?.trim()
        ? text(env, 'CRAWL_USER_AGENT', DEFAULTS.userAgent, (v) =>
            /^[A-Za-z][A-Za-z0-9_-]*(\/|$)/.test(v) && !/[\r\n]/.test(v)
              ? undefined
              : 'must start with a product token of letters, digits, "_" or "-" (e.g. "MyBot/1.0")',
          )
        : undefined,
      contact(env, 'CRAWL_CONTACT'),
    ),
    crawlContact: contact(env, 'CRAWL_CONTACT'),
    crawlPolitenessGroup: choice(
      env,
      'CRAWL_POLITENESS_GROUP',
      ['domain', 'host'] as const,
      DEFAULTS.crawlPolitenessGroup,
    ),
    crawlPacingFactor: decimal(env, 'CRAWL_PACING_FACTOR', 0, 100, DEFAULTS.crawlPacingFactor),
    crawlPacingMaxMs: integer(env, 'CRAWL_PACING_MAX_MS', 0, 3_600_000, DEFAULTS.crawlPacingMaxMs),
    crawlPrimaryHeapMb: integer(env, 'CRAWL_PRIMARY_HEAP_MB', 256, 65_536, DEFAULTS.crawlPrimaryHeapMb),
    crawlRevisitMaxMs: duration(env, 'CRAWL_REVISIT_MAX', DEFAULTS.crawlRevisitMax, false),
    crawlResolve: resolveMap(env, 'CRAWL_RESOLVE'),
    allowPrivate: flag(env, 'CRAWL_ALLOW_PRIVATE', DEFAULTS.allowPrivate),
    crawlParseTrace: env.CRAWL_PARSE_TRACE?.trim() ? path.resolve(env.CRAWL_PARSE_TRACE.trim()) : null,
    publicHosts: hostList(env, 'PUBLIC_HOSTS'),
    secret: secret(env, 'LANTERN_SECRET'),
    sessionLifetimeMs: duration(env, 'SESSION_LIFETIME', DEFAULTS.sessionLifetime, false),
  };
  requireSecretWhenExposed(config);
  return config;
}

/**
 * The crawler primary is forked with the server's parsed configuration as its one argument (JSON),
 * so that the environment is read and validated once, by the server: `configArgument` writes it,
 * `configFromArgument` reads it back in the primary. A missing or unreadable argument is a ConfigError.
 * The secret is left out: a process's arguments are readable by every user of the machine
 * (/proc/PID/cmdline, ps), and the crawler has no use for it.
 */
export function configArgument(config: Config): string {
  return JSON.stringify({ ...config, secret: null });
}

/** The configuration `configArgument` wrote (see there). */
export function configFromArgument(arg: string | undefined): Config {
  let parsed: unknown;
  try {
    parsed = arg === undefined ? undefined : JSON.parse(arg);
  } catch {
    parsed = undefined;
  }
  const keys = Object.keys(loadConfig({}));
  if (typeof parsed !== 'object' || parsed === null || keys.some((k) => !(k in parsed))) {
    throw new ConfigError(
      "config: the crawler primary takes the server's configuration as its argument; start Lantern with npm start",
    );
  }
  return parsed as Config;
}
