/**
 * Backoff through a real cluster: a 429 with Retry-After, a 503 without it, and repeated 5xx each keep
 * the crawler away from that site for the time asked (or the backoff), and the URL is retried later
 * and stored, not lost. Judged from the sites' own request logs and the crawler's SQLite file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import {
  startTestWeb,
  politenessReport,
  type PageSpec,
  type RequestRecord,
  type TestSite,
  type TestWeb,
} from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { BACKOFF } from '../politeness/backoff.ts';

const DELAY_MS = 100;

function page(title: string, links: string[] = []): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>` +
    `<p>Text of ${title}.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`
  );
}

/** A page that answers `status` (with `headers`) the first `failures` times, then a normal page. */
function failingFirst(title: string, failures: number, status: number, headers: Record<string, string> = {}): PageSpec {
  let calls = 0;
  return {
    handler: (_req: http.IncomingMessage, res: http.ServerResponse) => {
      if (calls++ < failures)
        res.writeHead(status, { 'content-type': 'text/html', ...headers }).end(`<p>${status}</p>`);
      else res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page(title));
    },
  };
}

/** The first request after `r` in the log. */
function nextAfter(log: RequestRecord[], r: RequestRecord): RequestRecord | undefined {
  return log.filter((x) => x.start > r.start).sort((a, b) => a.start - b.start)[0];
}

function stored(crawler: CrawlerHarness, url: string): boolean {
  return crawler.db.prepare('SELECT 1 FROM pages WHERE url = ?').get(url) !== undefined;
}

describe('backoff through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let throttled: TestSite;
  let unavailable: TestSite;
  let failing: TestSite;

  before(async () => {
    web = await startTestWeb([
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: {
          '/': page('Home', ['/a', '/b', '/c']),
          '/a': page('A'),
          '/b': failingFirst('B', 1, 429, { 'retry-after': '2' }),
          '/c': page('C'),
        },
      },
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: { '/': page('Home', ['/a', '/b']), '/a': failingFirst('A', 1, 503), '/b': page('B') },
      },
      {
        pages: {
          '/': page('Home', ['/x', '/y', '/z']),
          '/x': failingFirst('X', 1, 500),
          '/y': failingFirst('Y', 1, 502),
          '/z': page('Z'),
        },
      },
    ]);
    [throttled, unavailable, failing] = web.sites;
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    for (const site of web.sites) crawler.addSeed(site.url('/'), { depth: 1 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('429 with Retry-After: 2: no request to the site for 2 s after it, the URL retried later and stored', async () => {
    await crawler.waitIdle({ origin: throttled.origin, minDone: 4, timeoutMs: 30_000 });
    const log = throttled.log;
    const hit = log.find((r) => r.status === 429);
    assert.ok(hit, 'the site answered 429 once');
    const next = nextAfter(log, hit);
    assert.ok(next, 'the crawl went on after the 429');
    assert.ok(next.start - hit.end >= 2000, `next request ${(next.start - hit.end).toFixed(0)} ms after the 429 ended`);
    assert.ok(next.start - hit.end < BACKOFF.firstMs, 'the wait came from Retry-After, not from the default backoff');
    assert.deepEqual(
      throttled.requestsTo('/b').map((r) => r.status),
      [429, 200],
      '/b retried once, then answered',
    );
    assert.ok(stored(crawler, throttled.url('/b')), '/b stored');
    assert.equal(crawler.frontier(throttled.url('/b'))?.state, 'done');
    assert.deepEqual(politenessReport(log, DELAY_MS).violations, []);
  });

  test('a 429 shows the host backing off, delay from Retry-After, in the snapshot', () => {
    const snaps = crawler.messages.flatMap((m) =>
      m.type === 'snapshot' ? m.domains.filter((d) => d.host === throttled.host) : [],
    );
    const backing = snaps.find((d) => d.state === 'backoff');
    assert.ok(
      backing,
      `a snapshot showed the host in backoff (states seen: ${[...new Set(snaps.map((d) => d.state))].join(', ')})`,
    );
    assert.equal(backing.delaySource, 'retry-after');
    assert.ok(backing.backoffUntil !== null);
    assert.match(backing.stateText, /backing off until .*Retry-After 2 s/);
  });

  test(`503 without Retry-After: no request to the site for the first backoff (${BACKOFF.firstMs} ms), the URL retried and stored`, async () => {
    await crawler.waitIdle({ origin: unavailable.origin, minDone: 3, timeoutMs: 30_000 });
    const log = unavailable.log;
    const hit = log.find((r) => r.status === 503);
    assert.ok(hit);
    const next = nextAfter(log, hit);
    assert.ok(next);
    assert.ok(
      next.start - hit.end >= BACKOFF.firstMs,
      `next request ${(next.start - hit.end).toFixed(0)} ms after the 503 ended`,
    );
    assert.deepEqual(
      unavailable.requestsTo('/a').map((r) => r.status),
      [503, 200],
    );
    assert.ok(stored(crawler, unavailable.url('/a')));
  });

  test(`${BACKOFF.errorsBeforeBackoff} 5xx in a row back the host off; the first alone does not; both URLs retried and stored`, async () => {
    await crawler.waitIdle({ origin: failing.origin, minDone: 4, timeoutMs: 30_000 });
    const log = failing.log;
    const errors = log.filter((r) => r.status >= 500);
    assert.deepEqual(
      errors.map((r) => `${r.path} ${r.status}`),
      ['/x 500', '/y 502'],
    );
    assert.ok(nextAfter(log, errors[0]) === errors[1], 'the second error came right after the first');
    assert.ok(errors[1].start - errors[0].end < BACKOFF.firstMs, 'one error alone does not back the host off');
    const next = nextAfter(log, errors[1]);
    assert.ok(next);
    assert.ok(
      next.start - errors[1].end >= BACKOFF.firstMs,
      `next request ${(next.start - errors[1].end).toFixed(0)} ms after the second error`,
    );
    for (const p of ['/x', '/y', '/z']) assert.ok(stored(crawler, failing.url(p)), `${p} stored`);
    assert.deepEqual(politenessReport(log, DELAY_MS).violations, []);
  });
});
