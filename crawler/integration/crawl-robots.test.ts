/**
 * robots.txt through a real cluster, one loopback site per rule: Crawl-delay honoured, a robots.txt
 * answering 503 blocks everything and is asked again later (spaced), a 404 allows everything, and
 * disallowed paths are never requested. One crawler serves all the sites at once; every assertion is
 * read from a site's own request log or the crawler's SQLite file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, politenessReport, waitFor, type TestWeb, type TestSite } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { BACKOFF } from '../politeness/backoff.ts';

const DELAY_MS = 100;

/** A small HTML page linking to `links`. */
function page(title: string, links: string[]): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>` +
    `<p>Some words about ${title}.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`
  );
}

/** A site of `n` pages: '/' links to '/p1'..'/p<n-1>'. */
function pages(n: number): Record<string, string> {
  const paths = Array.from({ length: n - 1 }, (_, i) => `/p${i + 1}`);
  return Object.fromEntries([['/', page('Home', paths)], ...paths.map((p) => [p, page(p, ['/'])])]);
}

describe('robots.txt through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let crawlDelay: TestSite;
  let unavailable: TestSite;
  let recovering: TestSite;
  let missing: TestSite;
  let disallow: TestSite;
  let recoveringRobotsCalls = 0;

  before(async () => {
    web = await startTestWeb([
      { robots: 'User-agent: *\nCrawl-delay: 0.5\n', pages: pages(5) },
      { robots: { status: 503, body: 'down for maintenance' }, pages: pages(3) },
      {
        // 503 with Retry-After: 1 once, then a real robots.txt: the crawl starts after the re-fetch.
        robots: {
          handler: (_req, res) => {
            if (recoveringRobotsCalls++ === 0)
              res.writeHead(503, { 'retry-after': '1', 'content-type': 'text/plain' }).end('busy');
            else res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
          },
        },
        pages: pages(3),
      },
      { pages: pages(5) }, // no robots.txt: 404
      {
        robots: 'User-agent: *\nDisallow: /private\nAllow: /private/open\n\nUser-agent: OtherBot\nDisallow: /\n',
        pages: {
          '/': page('Home', ['/a', '/private/x', '/private/open']),
          '/a': page('A', ['/private/y', '/privateer', '/b']),
          '/b': page('B', ['/']),
          '/private/open': page('Open', ['/private/z']),
        },
      },
    ]);
    [crawlDelay, unavailable, recovering, missing, disallow] = web.sites;
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    for (const site of web.sites) crawler.addSeed(site.url('/'), { depth: 3 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('Crawl-delay: 0.5 with CRAWL_DELAY_MS=100: no gap below 500 ms, robots.txt first', async () => {
    await crawler.waitIdle({ origin: crawlDelay.origin, minDone: 5, timeoutMs: 40_000 });
    const log = crawlDelay.log;
    assert.equal(log[0].path, '/robots.txt');
    assert.equal(log.length, 6, `robots.txt + 5 pages, got ${log.map((r) => r.path).join(' ')}`);
    const report = politenessReport(log.slice(1), 500);
    assert.equal(report.maxInFlight, 1);
    assert.deepEqual(
      report.violations.map((v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`),
      [],
    );
    // The first page waits for the Crawl-delay too, counted from the end of the robots.txt request.
    assert.ok(log[1].start - log[0].end >= 500, `gap after robots.txt ${(log[1].start - log[0].end).toFixed(1)} ms`);
  });

  test('robots.txt 503: nothing else fetched, robots.txt asked again only after the backoff, host shown robots-unreachable', async () => {
    await waitFor(
      () => unavailable.requestsTo('/robots.txt').length >= 2 && unavailable.log.every((r) => !Number.isNaN(r.end)),
      {
        timeoutMs: BACKOFF.firstMs + 15_000,
        message: 'robots.txt requested a second time',
      },
    );
    const log = unavailable.log;
    assert.deepEqual(
      log.map((r) => r.path),
      ['/robots.txt', '/robots.txt'],
      'only robots.txt, twice so far',
    );
    const gap = log[1].start - log[0].end;
    assert.ok(
      gap >= BACKOFF.firstMs,
      `second robots.txt request ${gap.toFixed(0)} ms after the first ended (backoff ${BACKOFF.firstMs} ms)`,
    );
    const row = await waitFor(
      () => {
        const d = crawler.domain(unavailable.host);
        return d?.state === 'robots-unreachable' && d;
      },
      { timeoutMs: 5_000, message: 'a snapshot showing the host robots-unreachable' },
    );
    assert.equal(row.robots.status, 'unreachable');
    assert.equal(row.robots.httpStatus, 503);
    assert.match(row.stateText, /robots\.txt unreachable/);
    // The seed is still waiting, neither lost nor given up.
    assert.equal(crawler.frontier(unavailable.url('/'))?.state, 'queued');
  });

  test('robots.txt 503 with Retry-After: 1, then 200: asked again after 1 s, then the site is crawled', async () => {
    await crawler.waitIdle({ origin: recovering.origin, minDone: 3, timeoutMs: 20_000 });
    const log = recovering.log;
    assert.deepEqual(
      log.slice(0, 2).map((r) => `${r.path} ${r.status}`),
      ['/robots.txt 503', '/robots.txt 200'],
    );
    assert.ok(
      log[1].start - log[0].end >= 1000,
      `robots.txt asked again ${(log[1].start - log[0].end).toFixed(0)} ms after the 503`,
    );
    assert.deepEqual(
      log
        .slice(2)
        .map((r) => r.path)
        .sort(),
      ['/', '/p1', '/p2'],
    );
  });

  test('robots.txt 404: robots.txt first, then every page', async () => {
    await crawler.waitIdle({ origin: missing.origin, minDone: 5, timeoutMs: 30_000 });
    const log = missing.log;
    assert.equal(log[0].path, '/robots.txt');
    assert.equal(log[0].status, 404);
    assert.deepEqual(
      log
        .slice(1)
        .map((r) => r.path)
        .sort(),
      ['/', '/p1', '/p2', '/p3', '/p4'],
    );
    const stored = crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE origin = ?').get(missing.origin) as {
      n: number;
    };
    assert.equal(stored.n, 5);
  });

  test('Disallow: /private: those paths never requested, their frontier rows end skipped; Allow: /private/open is fetched', async () => {
    await crawler.waitIdle({ origin: disallow.origin, minDone: 8, timeoutMs: 30_000 });
    const paths = disallow.log.map((r) => r.path);
    assert.equal(paths[0], '/robots.txt');
    assert.deepEqual(paths.slice(1).sort(), ['/', '/a', '/b', '/private/open']);
    for (const p of ['/private/x', '/private/y', '/privateer', '/private/z']) {
      const row = crawler.frontier(disallow.url(p));
      assert.equal(row?.state, 'skipped', `${p} skipped`);
      assert.equal(row?.lastError, 'disallowed by robots.txt');
    }
    assert.equal(crawler.frontier(disallow.url('/private/open'))?.state, 'done');
    assert.deepEqual(politenessReport(disallow.log, DELAY_MS).violations, []);
  });
});
