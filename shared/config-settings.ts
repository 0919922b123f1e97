/**
 * Every setting Lantern reads from its environment, declared once: its variable, kind and bounds, default and
 * one-line description. The Config type, the defaults and the parsing of the environment derive from this table
 * (config.ts); README.md's configuration table lists the same variables, in the same order, with the same
 * defaults (config-readme.test.ts keeps them equal).
 */
import os from 'node:os';
import { ConfigError } from './config-error.ts';
import {
  choice,
  contact,
  decimal,
  duration,
  filePath,
  flag,
  hostList,
  integer,
  NONE,
  optionalText,
  resolveMap,
  secret,
  size,
  text,
  type Setting,
} from './config-kinds.ts';

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
/** Longest CRAWL_CONTACT accepted: it travels in every request's User-Agent. */
export const CONTACT_MAX_CHARS = 200;

/**
 * DATABASE_URL: unset is SQLite in DATA_DIR; else a postgres:// (or postgresql://) URL, which db/engine.ts
 * turns into the PostgreSQL engine. A refusal never repeats the value: it may hold a password.
 */
function databaseUrl(d: { env: string; about: string }): Setting<string | null> {
  return {
    env: d.env,
    about: d.about,
    shown: NONE,
    parse(raw) {
      if (raw === undefined || raw.trim() === '') return null;
      const value = raw.trim();
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      if (url === undefined || !/^postgres(ql)?:$/.test(url.protocol) || /\s/.test(value)) {
        throw new ConfigError(
          `${d.env} must be a PostgreSQL URL such as postgres://lantern:password@127.0.0.1:5432/lantern (its value is not shown: it may hold a password)`,
        );
      }
      return value;
    },
  };
}

/** The default User-Agent of a Lantern of this version (README.md shows it with `<version>`). */
export const defaultUserAgent = (version: string) => `LanternBot/${version} (+personal search engine)`;

/** The table: one entry per setting, by its name in Config; README.md's order. */
export const SETTINGS = {
  port: integer({ env: 'PORT', about: 'HTTP port', min: 1, max: 65535, default: 3000 }),
  host: text({
    env: 'HOST',
    about: 'address to bind; one that is not loopback exposes Lantern and needs LANTERN_SECRET',
    default: '127.0.0.1',
    check: (v) => (/^[\w.:-]+$/.test(v) ? undefined : 'must be an IP address or host name'),
  }),
  dataDir: filePath({
    env: 'DATA_DIR',
    about: "the SQLite database and the title index's snapshot, relative to where Lantern starts",
    default: './data',
  }),
  databaseUrl: databaseUrl({
    env: 'DATABASE_URL',
    about: 'a PostgreSQL database (postgres://user:password@host:port/name) as the record instead of DATA_DIR',
  }),
  crawlWorkers: integer({
    env: 'CRAWL_WORKERS',
    about: 'cluster workers that fetch and parse',
    min: 1,
    max: 64,
    // One worker per CPU: on 2 cores (bench:crawl part 2, README's CRAWL_WORKERS) 2 workers crawled faster
    // and at less CPU per page than 3 or 4; workers beyond the cores only take turns on them.
    default: () => Math.min(64, Math.max(2, os.availableParallelism())),
    shown: 'number of CPUs, at least 2, at most 64',
  }),
  crawlDelayMs: integer({
    env: 'CRAWL_DELAY_MS',
    about: 'least time (ms) between the end of one request to a site and the start of the next',
    min: 0,
    max: 3_600_000,
    default: 1000,
  }),
  crawlPolitenessGroup: choice({
    env: 'CRAWL_POLITENESS_GROUP',
    about: 'which hosts share one politeness clock: one per registrable domain or one per host',
    words: ['domain', 'host'],
    default: 'domain',
  }),
  crawlNodeId: optionalText({
    env: 'CRAWL_NODE_ID',
    about: "this crawler node's id among the nodes sharing one PostgreSQL (issue 29); unset: host name and process id",
    check: (v) => (/^[\w.:-]{1,100}$/.test(v) ? undefined : 'must be 1 to 100 letters, digits, ".", ":", "_" or "-"'),
    shown: 'host name-process id',
  }),
  crawlLeaseMs: integer({
    env: 'CRAWL_LEASE_MS',
    about: 'on PostgreSQL, how long a crawler node holds a politeness group between renewals (docs/scaling.md)',
    min: 300,
    max: 3_600_000,
    default: 90_000,
  }),
  crawlLeaseMarginMs: integer({
    env: 'CRAWL_LEASE_MARGIN_MS',
    about: "on PostgreSQL, time kept between a request's timeout and its node's lease deadline (docs/scaling.md)",
    min: 1,
    max: 600_000,
    default: 5_000,
  }),
  crawlPacingFactor: decimal({
    env: 'CRAWL_PACING_FACTOR',
    about: "the delay after a request is at least this many times the server's recent response time (0: off)",
    min: 0,
    max: 100,
    default: 5, // as Heritrix's delayFactor: a server that takes 2 s per page is asked every 10 s
  }),
  crawlPacingMaxMs: integer({
    env: 'CRAWL_PACING_MAX_MS',
    about: "the pacing factor's part of a delay never exceeds this (ms); Crawl-delay and backoff are not capped by it",
    min: 0,
    max: 3_600_000,
    default: 60_000,
  }),
  crawlPrimaryHeapMb: integer({
    env: 'CRAWL_PRIMARY_HEAP_MB',
    about: "the crawler primary's heap limit in MiB (node's --max-old-space-size; see crawler/primary-heap.ts)",
    min: 256,
    max: 65_536,
    // About 1.5x the primary's live data as its heap's growth before a full collection, where node's default
    // limit allows 4x (crawler/primary-heap.ts); 10,000 hosts hold about 80 MiB.
    default: 768,
  }),
  crawlTimeoutMs: integer({
    env: 'CRAWL_TIMEOUT_MS',
    about: 'longest time one request may take, connect to last byte (connect and header waits get parts of it)',
    min: 1000,
    max: 600_000,
    default: 30_000,
  }),
  crawlMaxUrlsPerHost: integer({
    env: 'CRAWL_MAX_URLS_PER_HOST',
    about: 'distinct URLs of one host the crawler keeps at most; links past it are not followed (a trap guard)',
    min: 10,
    max: 10_000_000,
    default: 10_000, // a guard against endless URL spaces (crawler/common/url-traps.ts)
  }),
  crawlMaxHostsPerSeed: integer({
    env: 'CRAWL_MAX_HOSTS_PER_SEED',
    about:
      'distinct hosts the URLs of one seed may be on; links to further hosts are not followed (a wildcard-DNS guard)',
    min: 1,
    max: 1_000_000,
    // A guard against a site that mints host names (wildcard DNS: a1.example.org, a2.example.org, ...). A seed
    // of scope 'domain' reaches an organisation's subdomains (dozens, rarely hundreds); one of scope 'any' at
    // depth 2 reaches the sites its pages link to and theirs (a link-rich page: ~50, so ~2,500 at most, rarely
    // that many distinct ones). 1,000 lets both be crawled, while each host costs a robots.txt fetch, a row in
    // Domains and in the primary's memory, so an endless supply of names stops there.
    default: 1_000,
  }),
  crawlMinFreeDiskBytes: size({
    env: 'CRAWL_MIN_FREE_DISK',
    about: "free bytes DATA_DIR's file system keeps at least: under it the crawl pauses (0 = no floor)",
    minBytes: 1024 ** 2,
    // Room SQLite needs beyond the database (its WAL between checkpoints, temporary files of big transactions,
    // a full-text merge writing a new segment before dropping the old ones) and the rest of the machine needs
    // too: 1 GB is under 1 % of most disks and far more than a few minutes of crawling writes.
    default: '1GB',
  }),
  crawlMaxDbSizeBytes: size({
    env: 'CRAWL_MAX_DB_SIZE',
    about: 'bytes the database may hold at most: past it the crawl pauses (0 = no limit)',
    minBytes: 1024 ** 2,
    // About 2–3 million pages of ordinary text (docs/benchmarks.md: ~7 KB per page with its indexes; real pages
    // run larger), past the million pages Lantern is designed and measured for: a crawl that grows past it has
    // most likely wandered somewhere unintended. Raise it, or set 0, for a bigger collection.
    default: '20GB',
  }),
  crawlRefreshMs: duration({
    env: 'CRAWL_REFRESH',
    about:
      'how long after its last crawl a seed is crawled again on its own (conditionally where pages allow); 0 = never',
    default: '7d',
    never: true,
  }),
  crawlRevisitMaxMs: duration({
    env: 'CRAWL_REVISIT_MAX',
    about:
      'a page unchanged at each visit waits twice as long before the next, up to this; see crawler/frontier/revisit.ts',
    default: '60d',
    never: false,
  }),
  /** The User-Agent as given (null: the default); config.ts adds CRAWL_CONTACT to it. */
  userAgent: optionalText({
    env: 'CRAWL_USER_AGENT',
    about: 'the User-Agent, whose product token is the name matched against robots.txt groups',
    check: (v) =>
      /^[A-Za-z][A-Za-z0-9_-]*(\/|$)/.test(v) && !/[\r\n]/.test(v)
        ? undefined
        : 'must start with a product token of letters, digits, "_" or "-" (e.g. "MyBot/1.0")',
    shown: `\`${defaultUserAgent('<version>')}\``,
  }),
  crawlContact: contact({
    env: 'CRAWL_CONTACT',
    about: "the crawler owner's contact, an http(s) URL or an e-mail address, sent in the User-Agent as +contact",
    maxChars: CONTACT_MAX_CHARS,
  }),
  crawlResolve: resolveMap({
    env: 'CRAWL_RESOLVE',
    about: 'names the crawler resolves itself, before DNS: name → IP address',
  }),
  allowPrivate: flag({
    env: 'CRAWL_ALLOW_PRIVATE',
    about: 'lets the crawler fetch loopback and private-network addresses (tests, intranets)',
    default: false,
  }),
  crawlParseTrace: filePath({
    env: 'CRAWL_PARSE_TRACE',
    // A file each crawler worker appends a line to when it starts and when it ends parsing an HTML page, so that
    // a test can order a page's parse against a site's request log (crawler/integration/hostile-parse-hold.test.ts).
    about: 'a test hook: the file crawler workers log the start and end of each HTML parse to; unset = no trace',
    default: null,
  }),
  publicHosts: hostList({
    env: 'PUBLIC_HOSTS',
    // Each lower-case, `name` or `name:port` (IPv6 in brackets). See server/allowed-hosts.ts for how they match.
    about: "further names Lantern answers to besides loopback and HOST (a reverse proxy's name, a LAN name)",
  }),
  secret: secret({
    env: 'LANTERN_SECRET',
    about: 'the secret a person signs in with; unset = no sign-in (allowed on loopback only)',
    minChars: SECRET_MIN_CHARS,
    maxChars: SECRET_MAX_CHARS,
    example: 'LANTERN_SECRET=$(openssl rand -base64 24)',
  }),
  sessionLifetimeMs: duration({
    env: 'SESSION_LIFETIME',
    about: 'how long a sign-in lasts',
    default: '7d',
    never: false,
  }),
} satisfies Record<string, Setting<unknown>>;

/** Each setting's value as its declaration parses it. */
export type Parsed = { [K in keyof typeof SETTINGS]: ReturnType<(typeof SETTINGS)[K]['parse']> };
