import { test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, configArgument, configFromArgument, crawlNodeId, loadConfig, DEFAULTS } from './config.ts';

test('every variable is optional and has its documented default', () => {
  const c = loadConfig({});
  assert.equal(c.port, 3000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.dataDir, path.resolve('./data'));
  assert.equal(c.crawlDelayMs, 1000);
  assert.equal(c.crawlTimeoutMs, 30_000);
  assert.equal(c.crawlMaxUrlsPerHost, 10_000);
  assert.equal(c.crawlMaxHostsPerSeed, 1000);
  assert.equal(c.crawlMinFreeDiskBytes, 1024 ** 3);
  assert.equal(c.crawlMaxDbSizeBytes, 20 * 1024 ** 3);
  assert.equal(c.crawlRefreshMs, 7 * 24 * 3_600_000);
  assert.ok(
    c.crawlWorkers >= 2 && c.crawlWorkers <= 64,
    'the default stays within the range an explicit value may take',
  );
  assert.equal(c.allowPrivate, false);
  assert.match(c.userAgent, /^LanternBot\/\d+\.\d+\.\d+ \(\+personal search engine\)$/);
  assert.equal(c.userAgent, DEFAULTS.userAgent);
});

test('values are parsed', () => {
  const c = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATA_DIR: '/tmp/x',
    CRAWL_WORKERS: '4',
    CRAWL_DELAY_MS: '0',
    CRAWL_ALLOW_PRIVATE: '1',
    CRAWL_USER_AGENT: 'MyBot/2.0',
    CRAWL_TIMEOUT_MS: '4000',
    CRAWL_MAX_URLS_PER_HOST: '500',
    CRAWL_REFRESH: '12h',
    LANTERN_SECRET: 'correct horse battery',
    PUBLIC_HOSTS: 'Lantern.Example.com, lantern.lan:3000,[fe80::1]',
    SESSION_LIFETIME: '12h',
    CRAWL_MAX_HOSTS_PER_SEED: '50',
    CRAWL_MIN_FREE_DISK: '500MB',
    CRAWL_MAX_DB_SIZE: '1.5GB',
    CRAWL_PRIMARY_HEAP_MB: '1024',
    CRAWL_PARSE_TRACE: '/tmp/x/parses.jsonl',
    DATABASE_URL: ' postgres://lantern:pw@127.0.0.1:5432/lantern ',
    CRAWL_NODE_ID: ' crawler-b ',
    CRAWL_LEASE_MS: '3000',
    CRAWL_LEASE_MARGIN_MS: '200',
  });
  assert.deepEqual(c, {
    port: 8080,
    host: '0.0.0.0',
    dataDir: '/tmp/x',
    crawlWorkers: 4,
    crawlDelayMs: 0,
    crawlTimeoutMs: 4000,
    crawlMaxUrlsPerHost: 500,
    crawlRefreshMs: 12 * 3_600_000,
    allowPrivate: true,
    userAgent: 'MyBot/2.0',
    crawlContact: null,
    crawlPolitenessGroup: 'domain',
    crawlPacingFactor: 5,
    crawlPacingMaxMs: 60_000,
    crawlRevisitMaxMs: 60 * 86_400_000,
    crawlResolve: {},
    crawlParseTrace: '/tmp/x/parses.jsonl',
    secret: 'correct horse battery',
    publicHosts: ['lantern.example.com', 'lantern.lan:3000', '[fe80::1]'],
    sessionLifetimeMs: 12 * 3_600_000,
    crawlMaxHostsPerSeed: 50,
    crawlMinFreeDiskBytes: 500 * 1024 ** 2,
    crawlMaxDbSizeBytes: 1.5 * 1024 ** 3,
    crawlPrimaryHeapMb: 1024,
    databaseUrl: 'postgres://lantern:pw@127.0.0.1:5432/lantern',
    crawlNodeId: 'crawler-b',
    crawlLeaseMs: 3000,
    crawlLeaseMarginMs: 200,
  });
  assert.equal(loadConfig({}).databaseUrl, null, 'SQLite in DATA_DIR by default');
  assert.equal(loadConfig({}).crawlPrimaryHeapMb, 768, "the primary's heap limit by default");
  assert.equal(loadConfig({}).crawlParseTrace, null, 'no parse trace by default');
});

test('politeness settings: grouping, pacing, revisit ceiling, contact in the User-Agent, names resolved by the crawler', () => {
  const d = loadConfig({});
  assert.equal(d.crawlPolitenessGroup, 'domain', 'one clock per registrable domain by default');
  assert.equal(d.crawlPacingFactor, 5);
  assert.equal(d.crawlPacingMaxMs, 60_000);
  assert.equal(d.crawlContact, null);
  const c = loadConfig({
    CRAWL_POLITENESS_GROUP: 'Host',
    CRAWL_PACING_FACTOR: '2.5',
    CRAWL_PACING_MAX_MS: '0',
    CRAWL_REVISIT_MAX: '30d',
    CRAWL_CONTACT: 'https://example.org/lantern',
    CRAWL_RESOLVE: 'docs.site.test=127.0.0.5, WWW.site.test=[::1]',
  });
  assert.equal(c.crawlPolitenessGroup, 'host');
  assert.equal(c.crawlPacingFactor, 2.5);
  assert.equal(c.crawlPacingMaxMs, 0);
  assert.equal(c.crawlRevisitMaxMs, 30 * 86_400_000);
  assert.match(
    c.userAgent,
    /^LanternBot\/\d+\.\d+\.\d+ \(personal search engine; \+https:\/\/example\.org\/lantern\)$/,
  );
  assert.deepEqual(c.crawlResolve, { 'docs.site.test': '127.0.0.5', 'www.site.test': '::1' });
  assert.equal(loadConfig({ CRAWL_CONTACT: 'me@example.org' }).userAgent.endsWith('; +me@example.org)'), true);
  assert.equal(
    loadConfig({ CRAWL_CONTACT: 'me@example.org', CRAWL_USER_AGENT: 'MyBot/2.0' }).userAgent,
    'MyBot/2.0 (+me@example.org)',
  );
  for (const [env, message] of [
    [{ CRAWL_POLITENESS_GROUP: 'site' }, /^CRAWL_POLITENESS_GROUP must be one of domain, host, got "site"$/],
    [{ CRAWL_PACING_FACTOR: '-1' }, /^CRAWL_PACING_FACTOR must be a number from 0 to 100/],
    [{ CRAWL_PACING_FACTOR: '1e3' }, /^CRAWL_PACING_FACTOR must be a number/],
    [{ CRAWL_PACING_MAX_MS: '1.5' }, /^CRAWL_PACING_MAX_MS must be an integer between 0 and 3600000/],
    [{ CRAWL_PRIMARY_HEAP_MB: '128' }, /^CRAWL_PRIMARY_HEAP_MB must be an integer between 256 and 65536/],
    [{ CRAWL_REVISIT_MAX: '0' }, /^CRAWL_REVISIT_MAX must be a duration from 1s to 365d/],
    [{ CRAWL_CONTACT: 'call me (maybe)' }, /^CRAWL_CONTACT must be an http\(s\) URL or an e-mail address/],
    [{ CRAWL_CONTACT: 'ftp://example.org/' }, /^CRAWL_CONTACT must be/],
    [{ CRAWL_CONTACT: 'nobody' }, /^CRAWL_CONTACT must be/],
    [{ CRAWL_RESOLVE: 'docs.site.test' }, /^CRAWL_RESOLVE takes name=address pairs/],
    [{ CRAWL_RESOLVE: 'docs.site.test=somewhere' }, /^CRAWL_RESOLVE takes name=address pairs/],
  ] as Array<[Record<string, string>, RegExp]>) {
    assert.throws(
      () => loadConfig(env),
      (err: Error) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

test('CRAWL_REFRESH takes a duration with its unit, or 0 / off for never', () => {
  const refresh = (v: string) => loadConfig({ CRAWL_REFRESH: v }).crawlRefreshMs;
  assert.equal(refresh('90s'), 90_000);
  assert.equal(refresh('30m'), 1_800_000);
  assert.equal(refresh('1.5h'), 5_400_000);
  assert.equal(refresh(' 30D '), 30 * 86_400_000);
  assert.equal(refresh('0'), 0);
  assert.equal(refresh('off'), 0);
});

test('CRAWL_MIN_FREE_DISK and CRAWL_MAX_DB_SIZE take a size with its unit, or 0 / off for no limit', () => {
  const floor = (v: string) => loadConfig({ CRAWL_MIN_FREE_DISK: v }).crawlMinFreeDiskBytes;
  const cap = (v: string) => loadConfig({ CRAWL_MAX_DB_SIZE: v }).crawlMaxDbSizeBytes;
  assert.equal(floor('500MB'), 500 * 1024 ** 2);
  assert.equal(floor(' 2gb '), 2 * 1024 ** 3);
  assert.equal(floor('1048576B'), 1024 ** 2);
  assert.equal(floor('0'), 0);
  assert.equal(cap('10GB'), 10 * 1024 ** 3);
  assert.equal(cap('1.5 TB'), 1.5 * 1024 ** 4);
  assert.equal(cap('2048KB'), 2 * 1024 ** 2);
  assert.equal(cap('off'), 0);
});

test('a bad value stops with one line naming the variable and the problem', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /^PORT must be an integer between 1 and 65535, got "abc"$/],
    [{ PORT: '70000' }, /^PORT must be an integer/],
    [{ PORT: '3.5' }, /^PORT must be an integer/],
    [{ CRAWL_DELAY_MS: '-5' }, /^CRAWL_DELAY_MS must be an integer between 0 and/],
    [{ CRAWL_WORKERS: '0' }, /^CRAWL_WORKERS must be an integer between 1 and 64/],
    [{ CRAWL_TIMEOUT_MS: '500' }, /^CRAWL_TIMEOUT_MS must be an integer between 1000 and 600000/],
    [{ CRAWL_MAX_URLS_PER_HOST: '5' }, /^CRAWL_MAX_URLS_PER_HOST must be an integer between 10 and 10000000/],
    [
      { CRAWL_REFRESH: '7' },
      /^CRAWL_REFRESH must be a duration from 1s to 365d such as 12h or 7d \(units s, m, h, d\), or 0 for never, got "7"$/,
    ],
    [{ CRAWL_REFRESH: '500ms' }, /^CRAWL_REFRESH must be a duration/],
    [{ CRAWL_REFRESH: '400d' }, /^CRAWL_REFRESH must be a duration/],
    [{ CRAWL_REFRESH: '-1h' }, /^CRAWL_REFRESH must be a duration/],
    [{ CRAWL_MAX_HOSTS_PER_SEED: '0' }, /^CRAWL_MAX_HOSTS_PER_SEED must be an integer between 1 and 1000000/],
    [
      { CRAWL_MIN_FREE_DISK: '500' },
      /^CRAWL_MIN_FREE_DISK must be a size from 1MB to 1024TB such as 500MB or 10GB \(units B, KB, MB, GB, TB\), or 0 for no limit, got "500"$/,
    ],
    [{ CRAWL_MIN_FREE_DISK: '100KB' }, /^CRAWL_MIN_FREE_DISK must be a size/],
    [{ CRAWL_MAX_DB_SIZE: '-1GB' }, /^CRAWL_MAX_DB_SIZE must be a size/],
    [{ CRAWL_MAX_DB_SIZE: '2PB' }, /^CRAWL_MAX_DB_SIZE must be a size/],
    [{ CRAWL_MAX_DB_SIZE: '10 gigs' }, /^CRAWL_MAX_DB_SIZE must be a size/],
    [{ CRAWL_ALLOW_PRIVATE: 'maybe' }, /^CRAWL_ALLOW_PRIVATE must be 1 or 0, got "maybe"$/],
    [{ CRAWL_USER_AGENT: '/nothing' }, /^CRAWL_USER_AGENT must start with a product token/],
    [{ HOST: 'a b' }, /^HOST must be an IP address or host name/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (err: Error) => err instanceof ConfigError && message.test(err.message) && !err.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

test("the crawler primary gets the server's parsed configuration as its argument, not the environment again", () => {
  const config = loadConfig({
    DATA_DIR: '/tmp/x',
    CRAWL_WORKERS: '3',
    CRAWL_REFRESH: 'off',
    CRAWL_USER_AGENT: 'MyBot/2.0 "quoted"',
  });
  assert.deepEqual(configFromArgument(configArgument(config)), config);
  for (const bad of [undefined, '', 'not json', '{"port": 3000}', 'null']) {
    assert.throws(
      () => configFromArgument(bad),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message ===
          "config: the crawler primary takes the server's configuration as its argument; start Lantern with npm start",
      String(bad),
    );
  }
});

test('the trust settings: no public names, no secret and a 7-day session by default', () => {
  const c = loadConfig({});
  assert.deepEqual(
    { publicHosts: c.publicHosts, secret: c.secret, sessionLifetimeMs: c.sessionLifetimeMs },
    { publicHosts: [], secret: null, sessionLifetimeMs: 7 * 86_400_000 },
  );
  assert.throws(
    () => loadConfig({ SESSION_LIFETIME: '0' }),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message === 'SESSION_LIFETIME must be a duration from 1s to 365d such as 12h or 7d (units s, m, h, d), got "0"',
  );
  for (const bad of [
    'https://lantern.example.com',
    'a b',
    '*.example.com',
    'lantern.example.com:0',
    'host:99999',
    '[nothing]',
    'x/y',
  ]) {
    assert.throws(
      () => loadConfig({ PUBLIC_HOSTS: bad, LANTERN_SECRET: 'x'.repeat(16) }),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message.startsWith(
          'PUBLIC_HOSTS takes host names or addresses, each optionally with :port, separated by commas',
        ) &&
        !e.message.includes('\n'),
      bad,
    );
  }
});

test('a secret is at least 16 characters, and a refused one is never repeated in the message', () => {
  for (const bad of ['short-secret', ' padded secret value ', 'tab\tinside the secret']) {
    assert.throws(
      () => loadConfig({ LANTERN_SECRET: bad }),
      (e: Error) =>
        e instanceof ConfigError &&
        /^LANTERN_SECRET must be 16 to 1024 characters/.test(e.message) &&
        !e.message.includes(bad) &&
        !e.message.includes('\n'),
      JSON.stringify(bad),
    );
  }
  assert.equal(loadConfig({ LANTERN_SECRET: 'x'.repeat(16) }).secret, 'x'.repeat(16));
  assert.equal(loadConfig({ LANTERN_SECRET: '' }).secret, null, 'empty is unset');
});

test('bound beyond loopback, or named by a public name, Lantern refuses to start without a secret, in one line that says how to set one', () => {
  const hint =
    'set LANTERN_SECRET to a secret of at least 16 characters, for example LANTERN_SECRET=$(openssl rand -base64 24)';
  for (const host of ['0.0.0.0', '::', '192.168.1.5', 'fe80::1', 'myhost.lan']) {
    assert.throws(
      () => loadConfig({ HOST: host }),
      (e: Error) =>
        e instanceof ConfigError &&
        e.message ===
          `HOST=${host} makes Lantern reachable from other machines, so it needs a secret: ${hint} (or set HOST=127.0.0.1 to keep it on this machine)`,
      host,
    );
    assert.equal(loadConfig({ HOST: host, LANTERN_SECRET: 'y'.repeat(20) }).host, host);
  }
  assert.throws(
    () => loadConfig({ PUBLIC_HOSTS: 'lantern.localhost,lantern.example.com:8443' }),
    (e: Error) =>
      e instanceof ConfigError &&
      e.message ===
        `PUBLIC_HOSTS names lantern.example.com:8443, by which Lantern is reached from other machines, so it needs a secret: ${hint}`,
  );
  for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1'])
    assert.equal(loadConfig({ HOST: host }).secret, null, `${host} is loopback`);
  assert.deepEqual(
    loadConfig({ PUBLIC_HOSTS: 'lantern.localhost, 127.0.0.5:8080' }).publicHosts,
    ['lantern.localhost', '127.0.0.5:8080'],
    'loopback names need no secret',
  );
});

test("the secret is not in the crawler primary's argument, which every user of the machine can read", () => {
  const config = loadConfig({ LANTERN_SECRET: 'a-secret-of-enough-length', HOST: '0.0.0.0' });
  const arg = configArgument(config);
  assert.ok(!arg.includes('a-secret-of-enough-length'));
  assert.deepEqual(configFromArgument(arg), { ...config, secret: null });
});

test("the database URL (and its password) is not in the crawler primary's argument; the primary reads it from the environment it inherits", () => {
  const env = { DATABASE_URL: 'postgres://lantern:a-db-password@127.0.0.1:5432/lantern' };
  const config = loadConfig(env);
  const arg = configArgument(config);
  assert.ok(!arg.includes('a-db-password'), 'no password on the command line');
  assert.ok(!arg.includes('127.0.0.1:5432'), 'no database URL on the command line');
  assert.deepEqual(configFromArgument(arg, env), { ...config, secret: null }, 'the same URL, from the environment');
  assert.equal(configFromArgument(arg, {}).databaseUrl, null, 'no DATABASE_URL in the environment: SQLite');
});

test('DATABASE_URL takes a postgres:// or postgresql:// URL; a refused one is never repeated in the message (it may hold a password)', () => {
  assert.equal(
    loadConfig({ DATABASE_URL: 'postgresql:///lantern?host=/run/postgresql' }).databaseUrl,
    'postgresql:///lantern?host=/run/postgresql',
  );
  assert.equal(loadConfig({ DATABASE_URL: '  ' }).databaseUrl, null, 'blank is unset');
  for (const bad of ['mysql://root:hunter2secret@db/lantern', 'hunter2secret', 'postgres://u:hunter2secret@h/db x']) {
    assert.throws(
      () => loadConfig({ DATABASE_URL: bad }),
      (err: Error) =>
        err instanceof ConfigError &&
        err.message.startsWith('DATABASE_URL must be a PostgreSQL URL such as postgres://') &&
        !err.message.includes('hunter2secret'),
      bad,
    );
  }
});

test('crawler node settings: the lease and its margin by default, a node id from the host name and pid unless set', () => {
  const d = loadConfig({});
  assert.equal(d.crawlLeaseMs, 90_000, 'a lease of 90 s by default (crawler/cluster/lease-rules.ts LEASE)');
  assert.equal(d.crawlLeaseMarginMs, 5_000, 'a margin of 5 s by default');
  assert.equal(crawlNodeId(d, 4242), `${os.hostname()}-4242`, 'unset: host name and process id');
  assert.equal(crawlNodeId(loadConfig({ CRAWL_NODE_ID: 'node-7' })), 'node-7');
  assert.throws(() => loadConfig({ CRAWL_NODE_ID: 'two words' }), /CRAWL_NODE_ID must be 1 to 100 letters/);
  assert.throws(() => loadConfig({ CRAWL_LEASE_MS: '100' }), /CRAWL_LEASE_MS must be an integer between 300/);
});
