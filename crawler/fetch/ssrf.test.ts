/**
 * Server-side request forgery: with CRAWL_ALLOW_PRIVATE off, no request may reach a loopback, private,
 * link-local or metadata address, and the check is made on the address actually connected to.
 * Tested across the real undici + real socket boundary: createAgent with an injected resolver that
 * plays a hostile DNS (a public-looking name answering 127.0.0.1, or answering a public address at
 * first and loopback at connect time), against a loopback server that counts every connection it
 * gets. Plus: IP-literal URLs refused before any request, redirects to private addresses refused,
 * a resolver that never answers bounded as a 'dns' error, and one run of the real cluster.
 */
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupAddress } from 'node:dns';
import {
  createAgent,
  fetchRaw,
  FetchFailure,
  guardedLookup,
  resultFromResponse,
  type RawResponse,
  type Resolver,
} from './fetcher.ts';
import { checkUrl } from '../common/url.ts';
import type { FetchJob, WorkerSettings } from '../common/protocol.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const SETTINGS: WorkerSettings = {
  userAgent: 'LanternBot/0.1',
  allowPrivate: false,
  connectTimeoutMs: 1000,
  headersTimeoutMs: 2000,
  bodyTimeoutMs: 2000,
  totalTimeoutMs: 4000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxLinks: 100,
};
const PUBLIC = '93.184.216.34';

/** A resolver that answers `public.example` with the next list of `answers` (the last one repeats), and counts calls. */
function hostileDns(...answers: string[][]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = ((hostname, _options, callback) => {
    calls.push(hostname);
    const list = answers[Math.min(calls.length - 1, answers.length - 1)];
    setImmediate(() =>
      callback(
        null,
        list.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })),
      ),
    );
  }) as Resolver & { calls: string[] };
  resolve.calls = calls;
  return resolve;
}

/** Fetches `url` through an Agent built on `resolve`; the failure it ends with, or undefined if it got an answer. */
async function tryFetch(url: string, resolve: Resolver, settings = SETTINGS): Promise<FetchFailure | undefined> {
  const agent = createAgent(settings, resolve);
  try {
    await fetchRaw(url, { agent, settings, wantBody: () => true, cap: settings.maxBodyBytes, truncateOk: false });
    return undefined;
  } catch (err) {
    assert.ok(err instanceof FetchFailure, `a typed failure, got ${String(err)}`);
    return err;
  } finally {
    await agent.close();
  }
}

describe('SSRF: the private-address check is made on the address connected to', () => {
  let server: http.Server;
  let port: number;
  let connections = 0;
  const requests: string[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      requests.push(`${req.headers.host} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>internal admin</title>');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  beforeEach(() => {
    connections = 0;
    requests.length = 0;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  test('a public-looking name that resolves to 127.0.0.1 is refused at connect time; the server never sees it', async () => {
    const dns = hostileDns(['127.0.0.1']);
    const failure = await tryFetch(`http://public.example:${port}/admin`, dns);
    assert.equal(failure?.code, 'private-address');
    assert.equal(failure.kind, 'fatal');
    assert.match(
      failure.message,
      /^fetcher: public\.example resolves to the private address 127\.0\.0\.1; refused at connect time \(set CRAWL_ALLOW_PRIVATE=1/,
    );
    assert.deepEqual(dns.calls, ['public.example'], 'the name was resolved for the connection');
    assert.equal(connections, 0, 'no connection reached the loopback server');
  });

  test('the same name with CRAWL_ALLOW_PRIVATE=1 connects to exactly the address the check saw', async () => {
    const failure = await tryFetch(`http://public.example:${port}/allowed`, hostileDns(['127.0.0.1']), {
      ...SETTINGS,
      allowPrivate: true,
    });
    assert.equal(failure, undefined);
    assert.deepEqual(requests, [`public.example:${port} /allowed`]);
  });

  test('rebinding: public at first, 127.0.0.1 at connect time: refused, and checked again on every connection', async () => {
    const dns = hostileDns([PUBLIC], ['127.0.0.1']);
    // A check made earlier (here: the hook itself, without connecting anywhere) sees the public answer and lets it through.
    const first = await new Promise<{ err: unknown; addresses: unknown }>((resolve) => {
      guardedLookup(SETTINGS, dns)('public.example', { all: true }, (err: unknown, addresses: unknown) =>
        resolve({ err, addresses }),
      );
    });
    assert.equal(first.err, null);
    assert.deepEqual(first.addresses, [{ address: PUBLIC, family: 4 }], 'the public answer is passed on unchanged');
    // The connection resolves again and gets the loopback answer: refused, twice in a row (no verdict is cached).
    for (let i = 0; i < 2; i++) {
      const failure = await tryFetch(`http://public.example:${port}/`, dns);
      assert.equal(failure?.code, 'private-address');
      assert.match(failure.message, /resolves to the private address 127\.0\.0\.1/);
    }
    assert.equal(dns.calls.length, 3, 'one lookup for the check, one for each connection');
    assert.equal(connections, 0, 'the loopback server never saw a connection');
  });

  test('any private address among the answers refuses the name (the socket may try each of them)', async () => {
    for (const answers of [
      [PUBLIC, '127.0.0.1'],
      ['::1'],
      ['::ffff:127.0.0.1'],
      ['169.254.169.254'],
      ['10.1.2.3'],
      ['fd00::1'],
      ['0.0.0.0'],
    ]) {
      const failure = await tryFetch(`http://public.example:${port}/`, hostileDns(answers));
      assert.equal(failure?.code, 'private-address', `${answers.join(', ')}: ${failure?.message}`);
    }
    assert.equal(connections, 0);
  });

  test('IP-literal private URLs are refused by checkUrl, and by the fetcher before any connection or lookup', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://10.0.0.1/',
      'http://[::ffff:127.0.0.1]/',
    ]) {
      const checked = checkUrl(url, { allowPrivate: false });
      assert.equal(checked.ok, false, url);
      assert.equal(!checked.ok && checked.code, 'private-address', url);
    }
    const dns = hostileDns([PUBLIC]);
    const failure = await tryFetch(`http://127.0.0.1:${port}/`, dns);
    assert.equal(failure?.code, 'private-address');
    assert.match(failure.message, /^fetcher: 127\.0\.0\.1 is a private address; refused/);
    assert.deepEqual(dns.calls, []);
    assert.equal(connections, 0);
  });

  test('redirects to private addresses (or file:) are refused with the reason, never queued', async () => {
    const job: FetchJob = {
      jobId: 1,
      kind: 'page',
      url: 'https://public.example/start',
      origin: 'https://public.example',
    };
    const raw = (location: string): RawResponse => ({
      status: 302,
      headers: { location },
      body: null,
      startedAt: 0,
      endedAt: 1,
    });
    for (const location of [
      'http://127.0.0.1/admin',
      'http://localhost:8080/',
      '//10.0.0.5/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      'http://metadata.google.internal/',
    ]) {
      const result = resultFromResponse(job, raw(location), false);
      assert.equal(result.location, null, location);
      assert.match(result.locationRefusal ?? '', /^url: .*(private|loopback|metadata|local)/, location);
    }
    const file = resultFromResponse(job, raw('file:///etc/passwd'), false);
    assert.equal(file.location, null);
    assert.match(file.locationRefusal ?? '', /file: scheme/);
    // The same redirect with CRAWL_ALLOW_PRIVATE=1 is followed (queued as its own URL).
    assert.equal(resultFromResponse(job, raw('http://127.0.0.1/admin'), true).location, 'http://127.0.0.1/admin');
    assert.equal(
      resultFromResponse(job, raw('https://other.example/next'), false).location,
      'https://other.example/next',
    );
  });

  test('a resolver that never answers ends as a dns error within half the connect time', async () => {
    const silent: Resolver = () => undefined;
    const started = performance.now();
    const failure = await tryFetch(`http://public.example:${port}/`, silent);
    const took = performance.now() - started;
    assert.equal(failure?.code, 'dns');
    assert.equal(failure.kind, 'retryable');
    assert.match(failure.message, /^fetcher: the host name public\.example did not resolve within 0\.5 s/);
    assert.ok(took < 1500, `gave up after ${Math.round(took)} ms`);
  });
});

test('the real cluster with CRAWL_ALLOW_PRIVATE=0: a name that resolves to loopback is refused at connect time, the server sees nothing', async () => {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end('secret');
  });
  server.on('connection', () => hits++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  // Seeds are checked by the server's route; here one is written straight into the database, as if that
  // check were missing: the worker's connection is the last line of defence.
  const crawler = startCrawler({ CRAWL_ALLOW_PRIVATE: '0', CRAWL_WORKERS: '1', CRAWL_DELAY_MS: '50' });
  try {
    crawler.addSeed(`http://localhost:${port}/`, { depth: 0 });
    const row = await waitFor(
      () => {
        const d = crawler.domain(`localhost:${port}`);
        return d && d.state === 'robots-unreachable' && d;
      },
      { timeoutMs: 20_000, message: 'the host to be refused' },
    );
    assert.match(
      row.lastError ?? '',
      /^fetcher: localhost resolves to the private address 127\.0\.0\.1; refused at connect time/,
    );
    assert.match(
      row.stateText,
      /robots\.txt unreachable \(fetcher: localhost resolves to the private address 127\.0\.0\.1/,
    );
    assert.equal(crawler.frontier(`http://localhost:${port}/`)?.attempts, 0, 'the page itself was never tried');
    assert.equal(hits, 0, 'no connection reached the loopback server');
  } finally {
    await crawler.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
