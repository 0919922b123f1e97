/**
 * Network failures through a real cluster, all in one crawl beside a healthy site: connection refused
 * (a port with nothing listening, and a site that goes down after its robots.txt), a TCP reset in the
 * middle of a body, a host name that does not resolve (.invalid), and a TLS handshake that fails (a
 * self-signed HTTPS site on loopback).
 * Where the first contact (robots.txt) already fails, RFC 9309 says nothing may be fetched: the host's
 * row says why in words, robots.txt is retried with a growing backoff (5 s, then 10 s), and its URLs
 * wait, not lost.
 * Where a page fetch fails, the URL carries the error, is retried, the host backs off after the second
 * failure in a row, and the URL ends failed after its last attempt. Meanwhile the healthy site is
 * crawled in full and politely, done while each broken host is still failing, no worker dies, and the
 * workers' memory stays bounded.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestWeb,
  generateSite,
  politenessReport,
  waitFor,
  type TestSite,
  type TestWeb,
} from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { deadPort, resetMidBody, startVanishingSite, type VanishingSite } from '../../test-support/hostile-sites.ts';
import { startTlsSite, type TlsSite } from '../../test-support/tls-site.ts';
import { sampleMemory, type MemorySampler } from '../../test-support/memory-sampler.ts';
import { BACKOFF } from '../politeness/backoff.ts';
import { classifyError, fetchLimits, guardedLookup, type Resolver } from '../fetch/fetcher.ts';
import type { DomainInfo, RequestLogEntry } from '../common/protocol.ts';

const DELAY_MS = 50;
const HEALTHY_PAGES = 15;
const RSS_BOUND_MiB = 250;
const NO_SUCH_HOST = 'nothing-here.invalid';
/**
 * What a failed name lookup may say, depending on the machine's resolver: NXDOMAIN ("does not
 * resolve"), no answer right now (EAI_AGAIN, offline), no answer in time (the worker's own lookup
 * limit), or an empty answer. Any of them is a clear DNS error naming the host.
 */
const DNS_FAILURE = new RegExp(
  `^fetcher: the host name ${NO_SUCH_HOST.replace(/\./g, '\\.')} (does not resolve|` +
    'could not be resolved right now \\(the name server did not answer\\)|' +
    'did not resolve within [\\d.]+ s \\(the name server is slow or unreachable\\)|has no address)$',
);
/** A lookup that gets no answer fails after half the connect time (crawler/fetch/fetcher.ts guardedLookup). */
const LOOKUP_LIMIT_MS = fetchLimits().connectTimeoutMs / 2;

describe('network failures through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let memory: MemorySampler;
  let workers: number[];
  let healthy: TestSite;
  let resetting: TestSite;
  let vanishing: VanishingSite;
  let tls: TlsSite;
  let refusedOrigin: string;
  const reset = resetMidBody(4096);

  before(async () => {
    web = await startTestWeb([generateSite({ pages: HEALTHY_PAGES, prefix: 'healthy' }), { pages: { '/': reset } }]);
    [healthy, resetting] = web.sites;
    vanishing = await startVanishingSite('127.0.200.1');
    tls = await startTlsSite('127.0.200.2');
    refusedOrigin = `http://127.0.200.3:${await deadPort('127.0.200.3')}`;
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    for (const url of [
      `${refusedOrigin}/`,
      vanishing.url('/'),
      resetting.url('/'),
      `http://${NO_SUCH_HOST}/`,
      tls.url('/'),
    ]) {
      crawler.addSeed(url, { depth: 0 });
    }
    crawler.addSeed(healthy.url('/'), { depth: 1 });
    // Workers start with the first due job (worker-lifecycle.ts); memory is sampled from then on (VmHWM keeps any earlier peak).
    workers = await waitFor(() => crawler.workerPids().length === 2 && crawler.workerPids(), {
      timeoutMs: 45_000,
      message: 'two workers',
    });
    memory = sampleMemory(() => crawler.workerPids());
  });

  after(async () => {
    memory?.stop();
    await crawler?.close();
    await Promise.all([web?.close(), vanishing?.close(), tls?.close()]);
  });

  /** Every row the primary's snapshots showed for `host`, oldest first. */
  function rows(host: string): DomainInfo[] {
    return crawler.messages.flatMap((m) => (m.type === 'snapshot' ? m.domains.filter((d) => d.host === host) : []));
  }

  /** The host's request timeline, asked of the primary as the server asks it (/api/domains/:host/requests). */
  async function timeline(origin: string): Promise<RequestLogEntry[]> {
    const reqId = Math.floor(Math.random() * 2 ** 30);
    const seen = crawler.messages.length;
    crawler.primary.send({ type: 'requests', reqId, origin });
    const reply = await waitFor(
      () => crawler.messages.slice(seen).find((m) => m.type === 'requests' && m.reqId === reqId),
      { message: 'the timeline' },
    );
    return reply.type === 'requests' ? reply.requests : [];
  }

  /** The host's robots.txt attempts, once there are at least `n` (oldest first). */
  function robotsAttempts(origin: string, n: number, timeoutMs: number): Promise<RequestLogEntry[]> {
    return waitFor(
      async () => {
        const t = (await timeline(origin)).filter((r) => r.url === `${origin}/robots.txt`);
        return t.length >= n && t;
      },
      { timeoutMs, message: `${n} robots.txt attempts on ${origin}` },
    );
  }

  /**
   * robots.txt failed twice, the second attempt only after the first backoff; the seed waits, never
   * requested. Each attempt failed within `maxAttemptMs`.
   */
  async function assertRobotsBackoff(
    origin: string,
    host: string,
    error: RegExp,
    maxAttemptMs = 3000,
  ): Promise<DomainInfo> {
    const tries = await robotsAttempts(origin, 2, BACKOFF.firstMs + 2 * maxAttemptMs + 10_000);
    for (const t of tries) assert.match(t.error ?? '', error);
    const gap = Date.parse(tries[1].startedAt) - (Date.parse(tries[0].startedAt) + tries[0].durationMs);
    assert.ok(
      gap >= BACKOFF.firstMs - 50,
      `the retry came ${gap} ms after the failure (backoff ${BACKOFF.firstMs} ms)`,
    );
    const row = await waitFor(
      () => {
        const d = crawler.domain(host);
        return d && d.state === 'robots-unreachable' && d.errors >= 2 && d;
      },
      { message: `${host}: robots-unreachable after two failures` },
    );
    assert.match(
      row.stateText,
      /^robots\.txt unreachable \(fetcher: .*\); nothing fetched until it answers, retry at \d\d:\d\d:\d\d UTC$/,
    );
    assert.match(row.lastError ?? '', error);
    assert.ok(row.stateText.includes(row.lastError!));
    assert.notEqual(row.backoffUntil, null);
    assert.equal(row.fetched, 0);
    const seed = crawler.frontier(`${origin}/`);
    assert.deepEqual(
      [seed?.state, seed?.attempts],
      ['queued', 0],
      'the seed waits for robots.txt, not lost and never tried',
    );
    assert.ok(
      tries.every((t) => t.durationMs < maxAttemptMs),
      `each attempt failed fast (${tries.map((t) => t.durationMs).join(', ')} ms)`,
    );
    return row;
  }

  /** A page fetch that fails every time: the URL ends failed after its last attempt, the host backed off in words. */
  async function assertPageGivesUp(url: string, host: string, error: RegExp, words: string): Promise<void> {
    const row = await waitFor(
      () => {
        const r = crawler.frontier(url);
        return r?.state === 'failed' && r;
      },
      { timeoutMs: 40_000, message: `${url} to be given up` },
    );
    assert.equal(row.attempts, BACKOFF.maxAttempts, 'tried as often as allowed, no more');
    assert.match(row.lastError ?? '', error);
    const backing = rows(host).find((d) => d.state === 'backoff');
    assert.ok(
      backing,
      `a snapshot showed ${host} backing off (states: ${[...new Set(rows(host).map((d) => d.state))].join(', ')})`,
    );
    assert.match(
      backing.stateText,
      new RegExp(`^backing off until \\d\\d:\\d\\d:\\d\\d UTC after \\d failures in a row \\(${words}\\): fetcher: `),
    );
    const last = await waitFor(
      () => {
        const d = crawler.domain(host);
        return d && d.queued === 0 && d.inFlight === 0 && d;
      },
      { message: `${host} to have nothing left` },
    );
    assert.equal(last.state, 'failing');
    assert.match(last.stateText, new RegExp(`^failing: ${BACKOFF.maxAttempts} failures in a row, the last: fetcher: `));
    assert.match(last.lastError ?? '', error);
    assert.ok(last.stateText.endsWith(last.lastError!), 'the sentence ends with the error itself');
  }

  test('meanwhile: the healthy site is crawled in full at its own pace while every broken host is still failing', async () => {
    await crawler.waitIdle({ origin: healthy.origin, minDone: HEALTHY_PAGES, timeoutMs: 30_000 });
    for (const url of [
      `${refusedOrigin}/`,
      vanishing.url('/'),
      resetting.url('/'),
      `http://${NO_SUCH_HOST}/`,
      tls.url('/'),
    ]) {
      assert.notEqual(
        crawler.frontier(url)?.state,
        'failed',
        `${url} is not finished yet: the healthy site did not wait for it`,
      );
    }
    assert.deepEqual(politenessReport(healthy.log, DELAY_MS).violations, []);
    const starts = healthy.log.map((r) => r.start).sort((a, b) => a - b);
    const maxGap = Math.max(...starts.slice(1).map((s, i) => s - starts[i]));
    // A figure, not a verdict (a loaded machine stretches every gap): that the healthy site never waited on the
    // broken ones is proved above by the order of events, since it was done while each of them was unfinished.
    console.log(`# hostile-network: largest gap between two requests to the healthy site ${Math.round(maxGap)} ms`);
  });

  test('connection refused (nothing listens on the port): robots.txt unreachable in words, retried after 5 s, then after 10 s', async () => {
    const error = /^fetcher: 127\.0\.200\.3:\d+ refused the connection \(nothing listens there\)$/;
    await assertRobotsBackoff(refusedOrigin, new URL(refusedOrigin).host, error);
    // The backoff doubles: the third attempt comes 10 s after the second failed.
    const tries = await robotsAttempts(refusedOrigin, 3, 2 * BACKOFF.firstMs + 10_000);
    const after = tries
      .slice(1)
      .map((t, i) => Date.parse(t.startedAt) - (Date.parse(tries[i].startedAt) + tries[i].durationMs));
    assert.ok(
      after[0] >= BACKOFF.firstMs - 50 && after[0] < BACKOFF.firstMs + 3000,
      `the second attempt came ${after[0]} ms after the first failed (backoff ${BACKOFF.firstMs} ms)`,
    );
    assert.ok(
      after[1] >= 2 * BACKOFF.firstMs - 50 && after[1] < 2 * BACKOFF.firstMs + 3000,
      `the third attempt came ${after[1]} ms after the second failed (backoff ${2 * BACKOFF.firstMs} ms)`,
    );
    assert.match(tries[2].error ?? '', error);
    assert.deepEqual(
      [crawler.frontier(`${refusedOrigin}/`)?.state, crawler.frontier(`${refusedOrigin}/`)?.attempts],
      ['queued', 0],
      'the seed still waits',
    );
  });

  test('a site that goes down after its robots.txt: the page is refused, retried with backoff, then given up', async () => {
    await assertPageGivesUp(
      vanishing.url('/'),
      vanishing.host,
      /^fetcher: 127\.0\.200\.1:\d+ refused the connection \(nothing listens there\)$/,
      'connection refused',
    );
    assert.deepEqual(vanishing.requests, ['/robots.txt'], 'only robots.txt got through');
  });

  test('a TCP reset in the middle of the body: the URL errs, is retried with backoff, then given up', async () => {
    await assertPageGivesUp(
      resetting.url('/'),
      resetting.host,
      /^fetcher: 127\.[\d.]+:\d+ closed the connection mid-answer$/,
      'connection reset',
    );
    assert.equal(reset.transfers.length, BACKOFF.maxAttempts);
    for (const t of reset.transfers) assert.ok(t.cutOff && t.written === 4096, 'each answer was reset after 4 KiB');
    assert.deepEqual(
      crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE origin = ?').get(resetting.origin),
      { n: 0 },
      'no half page stored',
    );
  });

  test('a host name that does not resolve (.invalid): a dns error in words, robots.txt retried after a backoff', async () => {
    // Offline, a lookup may fail only at the worker's lookup limit, so an attempt may take that long.
    const row = await assertRobotsBackoff(`http://${NO_SUCH_HOST}`, NO_SUCH_HOST, DNS_FAILURE, LOOKUP_LIMIT_MS + 1000);
    assert.equal(row.robots.status, 'unreachable');
  });

  test('a TLS handshake that fails (self-signed certificate): refused in words, nothing sent, retried after a backoff', async () => {
    await assertRobotsBackoff(
      tls.origin,
      tls.host,
      /^fetcher: the TLS handshake with 127\.0\.200\.2:\d+ failed: its certificate is self-signed \(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    );
    assert.deepEqual(tls.requests, [], 'no HTTP request went over a connection whose certificate was refused');
    assert.ok(tls.connections.length >= 2, `the server saw ${tls.connections.length} connection attempts`);
    assert.ok(
      tls.connections[1] - tls.connections[0] >= BACKOFF.firstMs - 50,
      'the second handshake came only after the backoff',
    );
    assert.ok(tls.handshakeErrors.length >= 1, 'the server saw the client abort the handshake');
  });

  test('the crawl never stopped: same workers, primary running, memory bounded', () => {
    assert.deepEqual(crawler.workerPids().sort(), [...workers].sort(), 'the same two workers, none crashed');
    assert.equal(crawler.primary.exitCode, null);
    const mem = memory.stop();
    console.log(
      `# hostile-network: peak worker RSS ${mem.peakRssMiB} MiB (VmHWM ${mem.peakHwmMiB} MiB) over ${mem.samples} samples`,
    );
    assert.ok(
      mem.peakHwmMiB < RSS_BOUND_MiB,
      `peak worker memory ${mem.peakHwmMiB} MiB stays under ${RSS_BOUND_MiB} MiB`,
    );
  });
});

test('the DNS wording the .invalid case accepts is what the fetcher says for each way a lookup fails, and only that', async () => {
  const url = `http://${NO_SUCH_HOST}/`;
  const lookupError = (resolve: Resolver) =>
    new Promise<string>((done) => {
      guardedLookup({ allowPrivate: true, connectTimeoutMs: 1000 }, resolve)(
        NO_SUCH_HOST,
        { all: true },
        (err: unknown) => done(classifyError(err, url).message),
      );
    });
  const messages = [
    classifyError(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' }), url).message,
    classifyError(Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' }), url).message,
    await lookupError(() => undefined), // no answer within the lookup limit
    await lookupError((_h, _o, callback) => callback(null, [])), // an empty answer
  ];
  assert.equal(new Set(messages).size, 4, 'four different sentences');
  for (const m of messages) assert.match(m, DNS_FAILURE);
  for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH']) {
    assert.doesNotMatch(
      classifyError(Object.assign(new Error(code), { code }), url).message,
      DNS_FAILURE,
      `${code} is no DNS error`,
    );
  }
  assert.doesNotMatch(
    classifyError(Object.assign(new Error('x'), { code: 'ENOTFOUND' }), 'http://other.invalid/').message,
    DNS_FAILURE,
    'another host name',
  );
});
