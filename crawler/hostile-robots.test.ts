/**
 * Hostile robots.txt files through the real cluster: 2 MB long (only the first 500 KiB count),
 * redirected to another host (followed on that host's clock; its rules apply to the host that asked),
 * answered with 500, with 429, or not at all (timeout), and one with a BOM, CRLF line ends and odd
 * casing. Unreachable robots.txt means nothing else is fetched until a later fetch succeeds; the host
 * row says why. A normal site in the same crawl completes. Judged from the sites' own request logs,
 * the crawler's SQLite file and its host snapshot.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { startTestWeb, generateSite, politenessReport, waitFor, type RequestRecord, type TestSite, type TestWeb } from '../e2e/test-web/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../e2e/test-web/crawler-harness.ts';
import { htmlPage } from '../e2e/test-web/hostile-pages.ts';
import { BACKOFF } from './backoff.ts';
import { ROBOTS_MAX_BYTES } from './robots.ts';

const DELAY_MS = 100;

/** Requests that came closer than DELAY_MS after the previous one ended, for a readable failure. */
function gaps(log: RequestRecord[]): string[] {
  return politenessReport(log, DELAY_MS).violations.map((v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`);
}

/** CRAWL_TIMEOUT_MS: a request may take 3 s in all; the wait for headers gets half of it. */
const TIMEOUT_MS = 3000;

/**
 * A request the crawler abandoned ends, in the site's log, when the site's event loop gets to the closed
 * connection, which on a loaded machine can be a few ms after the crawler started its backoff clock.
 */
const HANG_UP_SLACK_MS = 100;

/** 2 MB of robots.txt: `/early` disallowed at the top, `/late` only after the first 500 KiB. */
function hugeRobots(): string {
  const lines = ['User-agent: *', 'Disallow: /early'];
  let size = lines.join('\n').length;
  for (let i = 0; size < ROBOTS_MAX_BYTES + 10_000; i++) {
    const line = i % 2 === 0 ? `Disallow: /filler/${String(i).padStart(7, '0')}` : `# filler comment number ${i}`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push('Disallow: /late');
  while (size < 2 * 1024 * 1024) {
    lines.push('# more filler after the limit, never read by the crawler .....................');
    size += 81;
  }
  return `${lines.join('\n')}\n`;
}

function pagesLinking(paths: string[]): Record<string, string> {
  return Object.fromEntries([['/', htmlPage('Home', paths)], ...paths.map((p) => [p, htmlPage(`Page ${p}`)])]);
}

describe('hostile robots.txt through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let huge: TestSite;
  let asker: TestSite;
  let target: TestSite;
  let failing: TestSite;
  let throttled: TestSite;
  let silent: TestSite;
  let odd: TestSite;
  let normal: TestSite;
  let throttledCalls = 0;
  const robotsRequests = (site: TestSite) => site.requestsTo('/robots.txt');

  before(async () => {
    const robots = hugeRobots();
    assert.ok(robots.indexOf('Disallow: /late') > ROBOTS_MAX_BYTES, 'the /late rule stands after the limit');
    web = await startTestWeb([
      { robots, pages: pagesLinking(['/early', '/middle', '/late']) },
      { pages: pagesLinking(['/secret', '/b-only', '/open']) }, // its robots.txt redirects to the next site
      { robots: 'User-agent: *\nDisallow: /b-only\n', pages: { '/rules-for-a.txt': { body: 'User-agent: *\nDisallow: /secret\n', headers: { 'content-type': 'text/plain' } } } },
      { robots: { status: 500, body: 'internal error' }, pages: pagesLinking(['/a']) },
      {
        robots: {
          handler: (_req: http.IncomingMessage, res: http.ServerResponse) => {
            if (throttledCalls++ === 0) res.writeHead(429, { 'retry-after': '1', 'content-type': 'text/plain' }).end('slow down');
            else res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /no\n');
          },
        },
        pages: pagesLinking(['/yes', '/no']),
      },
      { robots: { delayMs: 60_000, body: 'User-agent: *\nAllow: /\n' }, pages: pagesLinking(['/a']) },
      {
        robots: '\uFEFFuSeR-AgEnT: LANTERNBOT\r\nDisALLOW: /secret\r\nALLOW: /\r\n\r\nUser-Agent: *\r\nDisallow: /\r\n',
        pages: pagesLinking(['/secret', '/public', '/SECRET']),
      },
      generateSite({ pages: 10, prefix: 'normal' }),
    ]);
    [huge, asker, target, failing, throttled, silent, odd, normal] = web.sites;
    asker.setRobots({ status: 301, headers: { location: target.url('/rules-for-a.txt') } });
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_TIMEOUT_MS: String(TIMEOUT_MS) });
    for (const site of [huge, asker, failing, throttled, silent, odd, normal]) crawler.addSeed(site.url('/'), { depth: 1 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('a 2 MB robots.txt: only its first 500 KiB count; a rule after them is ignored, one before it obeyed', async () => {
    await crawler.waitIdle({ origin: huge.origin, minDone: 4, timeoutMs: 30_000 });
    assert.equal(robotsRequests(huge).length, 1);
    assert.deepEqual(huge.log.slice(1).map((r) => r.path).sort(), ['/', '/late', '/middle'], '/late fetched, /early not');
    assert.equal(crawler.frontier(huge.url('/early'))?.state, 'skipped');
    assert.equal(crawler.frontier(huge.url('/early'))?.lastError, 'disallowed by robots.txt');
    const stored = crawler.db.prepare('SELECT length(robots_body) AS n FROM hosts WHERE origin = ?').get(huge.origin) as { n: number };
    assert.ok(stored.n <= ROBOTS_MAX_BYTES, `stored robots.txt is ${stored.n} characters`);
  });

  test("robots.txt redirected to another host: followed on that host's clock, and its rules apply to the host that asked", async () => {
    await crawler.waitIdle({ origin: asker.origin, minDone: 4, timeoutMs: 30_000 });
    assert.deepEqual(asker.log.map((r) => `${r.path} ${r.status}`).slice(0, 1), ['/robots.txt 301']);
    assert.deepEqual(asker.log.slice(1).map((r) => r.path).sort(), ['/', '/b-only', '/open'], '/secret (the target\'s rule) never fetched; /b-only (the target\'s own rule) is');
    assert.equal(crawler.frontier(asker.url('/secret'))?.state, 'skipped');
    await waitFor(() => target.log.length >= 2 && target.log.every((r) => !Number.isNaN(r.end)), { timeoutMs: 10_000, message: 'the target site to be asked twice' });
    assert.deepEqual(target.log.map((r) => r.path).sort(), ['/robots.txt', '/rules-for-a.txt'], "the target's own robots.txt, then the hop");
    assert.deepEqual(gaps(target.log), [], "the hop waited for the target host's clock");
    const row = await waitFor(() => crawler.domain(asker.host)?.robots.status === 'ok' && crawler.domain(asker.host), { timeoutMs: 5_000, message: 'asker row' });
    assert.equal(row.robots.httpStatus, 200);
  });

  test(`robots.txt answering 500: nothing else fetched; asked again only after the backoff (${BACKOFF.firstMs} ms); the row says why`, async () => {
    await waitFor(() => robotsRequests(failing).length >= 2 && failing.log.every((r) => !Number.isNaN(r.end)), { timeoutMs: BACKOFF.firstMs + 20_000, message: 'robots.txt asked twice' });
    assert.deepEqual(failing.log.map((r) => r.path), ['/robots.txt', '/robots.txt']);
    const [first, second] = failing.log;
    assert.ok(second.start - first.end >= BACKOFF.firstMs, `asked again after ${Math.round(second.start - first.end)} ms`);
    const row = await waitFor(() => crawler.domain(failing.host)?.state === 'robots-unreachable' && crawler.domain(failing.host), { timeoutMs: 5_000, message: 'row' });
    assert.equal(row.lastError, 'robots.txt answered HTTP 500');
    assert.match(row.stateText, /robots\.txt unreachable \(robots\.txt answered HTTP 500\); nothing fetched until it answers/);
    assert.equal(crawler.frontier(failing.url('/'))?.state, 'queued', 'the seed waits, not lost');
  });

  test('robots.txt answering 429 with Retry-After: 1: nothing fetched for 1 s, then the rules that came are obeyed', async () => {
    await crawler.waitIdle({ origin: throttled.origin, minDone: 3, timeoutMs: 30_000 });
    const log = throttled.log;
    assert.deepEqual(log.slice(0, 2).map((r) => `${r.path} ${r.status}`), ['/robots.txt 429', '/robots.txt 200']);
    assert.ok(log[1].start - log[0].end >= 1000, `asked again after ${Math.round(log[1].start - log[0].end)} ms`);
    assert.deepEqual(log.slice(2).map((r) => r.path).sort(), ['/', '/yes']);
    assert.equal(crawler.frontier(throttled.url('/no'))?.state, 'skipped');
  });

  test(`robots.txt that never answers: a timeout (CRAWL_TIMEOUT_MS=${TIMEOUT_MS}) disallows all, is retried after the backoff, and the row says so`, async () => {
    await waitFor(() => robotsRequests(silent).length >= 2, { timeoutMs: BACKOFF.firstMs + 20_000, message: 'robots.txt asked twice' });
    const [first, second] = silent.log;
    assert.ok(first.aborted, 'the crawler gave up on the first request');
    assert.ok(first.end - first.start < TIMEOUT_MS + 2_000, `it gave up after ${Math.round(first.end - first.start)} ms`);
    assert.ok(second.start - first.end >= BACKOFF.firstMs - HANG_UP_SLACK_MS, `asked again after ${Math.round(second.start - first.end)} ms`);
    assert.ok(silent.log.every((r) => r.path === '/robots.txt'), 'nothing but robots.txt was requested');
    const row = await waitFor(() => crawler.domain(silent.host)?.robots.status === 'unreachable' && crawler.domain(silent.host), { timeoutMs: 5_000, message: 'row' });
    assert.match(row.lastError ?? '', /sent no response headers/);
    assert.equal(crawler.frontier(silent.url('/'))?.state, 'queued', 'the seed waits, not lost');
  });

  test('a robots.txt with a BOM, CRLF line ends and odd casing is obeyed (paths stay case-sensitive)', async () => {
    await crawler.waitIdle({ origin: odd.origin, minDone: 4, timeoutMs: 30_000 });
    assert.deepEqual(odd.log.slice(1).map((r) => r.path).sort(), ['/', '/SECRET', '/public']);
    assert.equal(crawler.frontier(odd.url('/secret'))?.state, 'skipped');
  });

  test('meanwhile the normal site is crawled completely and politely', async () => {
    await crawler.waitIdle({ origin: normal.origin, minDone: 10, timeoutMs: 30_000 });
    assert.equal(normal.log.length, 11);
    assert.deepEqual(gaps(normal.log), []);
    assert.equal(crawler.primary.exitCode, null);
  });
});
