/**
 * Redirects through a real cluster: the worker never follows them; the target is queued as a URL of
 * its own, so each hop is requested once, on its host's clock, after that host's robots.txt. Chains
 * end, loops end, and chains longer than 5 fail with a clear error. Judged from the sites' request
 * logs and the crawler's SQLite file.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestWeb,
  politenessReport,
  type PageSpec,
  type TestSite,
  type TestWeb,
} from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { MAX_REDIRECTS } from '../coordination/coordinator.ts';

const DELAY_MS = 100;

function page(title: string, links: string[] = []): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>` +
    `<p>Text of ${title}.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`
  );
}

function moved(location: string): PageSpec {
  return { status: 301, headers: { location }, body: `<a href="${location}">moved</a>` };
}

function isStored(crawler: CrawlerHarness, url: string): boolean {
  return crawler.db.prepare('SELECT 1 FROM pages WHERE url = ?').get(url) !== undefined;
}

const LONG = MAX_REDIRECTS + 3; // /r0 → /r1 → ... → /r<LONG>, a page

describe('redirects through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let chain: TestSite;
  let loop: TestSite;
  let long: TestSite;
  let from: TestSite;
  let to: TestSite;

  before(async () => {
    const longPages: Record<string, string | PageSpec> = { '/': page('Home', ['/r0']), [`/r${LONG}`]: page('End') };
    for (let i = 0; i < LONG; i++) longPages[`/r${i}`] = moved(`/r${i + 1}`);
    web = await startTestWeb([
      { pages: { '/': page('Home', ['/a']), '/a': moved('/b'), '/b': moved('/c'), '/c': page('C') } },
      { pages: { '/': page('Home', ['/x']), '/x': moved('/y'), '/y': moved('/x') } },
      { pages: longPages },
      { pages: {} }, // its '/' redirects to the next site; set below once the address is known
      { robots: 'User-agent: *\nDisallow: /private\n', pages: { '/landing': page('Landing') } },
    ]);
    [chain, loop, long, from, to] = web.sites;
    from.setPage('/', moved(to.url('/landing')));
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    for (const site of [chain, loop, long, from]) crawler.addSeed(site.url('/'), { depth: 2 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('/a → /b → /c (301 each): /c stored, each hop requested once and spaced, no page stored for the hops', async () => {
    await crawler.waitIdle({ origin: chain.origin, minDone: 4, timeoutMs: 30_000 });
    assert.deepEqual(
      chain.log.map((r) => `${r.path} ${r.status}`),
      ['/robots.txt 404', '/ 200', '/a 301', '/b 301', '/c 200'],
    );
    assert.deepEqual(politenessReport(chain.log, DELAY_MS).violations, []);
    assert.ok(isStored(crawler, chain.url('/c')), '/c stored');
    assert.ok(!isStored(crawler, chain.url('/a')) && !isStored(crawler, chain.url('/b')), 'the hops are not pages');
    assert.equal(crawler.frontier(chain.url('/a'))?.lastError, `redirects to ${chain.url('/b')}`);
    assert.equal(crawler.frontier(chain.url('/c'))?.redirects, 2, '/c was reached through 2 redirects');
  });

  test('/x → /y → /x: the loop ends after one request each, with a clear last_error', async () => {
    await crawler.waitIdle({ origin: loop.origin, minDone: 3, timeoutMs: 30_000 });
    assert.deepEqual(
      loop.log.map((r) => r.path),
      ['/robots.txt', '/', '/x', '/y'],
    );
    const y = crawler.frontier(loop.url('/y'));
    assert.match(y?.lastError ?? '', /loop/);
    assert.ok(y?.lastError?.includes(loop.url('/x')), `last_error names the target: ${y?.lastError}`);
  });

  test(`a chain longer than ${MAX_REDIRECTS} fails with 'too many redirects' and the next hop is never requested`, async () => {
    await crawler.waitIdle({ origin: long.origin, minDone: 2 + MAX_REDIRECTS, timeoutMs: 30_000 });
    const requested = long.log.map((r) => r.path).filter((p) => /^\/r\d+$/.test(p));
    assert.deepEqual(
      requested,
      Array.from({ length: MAX_REDIRECTS + 1 }, (_, i) => `/r${i}`),
      `hops requested: ${requested.join(' ')}`,
    );
    const last = crawler.frontier(long.url(`/r${MAX_REDIRECTS}`));
    assert.equal(last?.state, 'failed');
    assert.match(last?.lastError ?? '', /too many redirects/);
    assert.equal(
      crawler.frontier(long.url(`/r${MAX_REDIRECTS + 1}`)),
      undefined,
      'the hop past the limit is not even queued',
    );
    assert.deepEqual(politenessReport(long.log, DELAY_MS).violations, []);
  });

  test("a redirect to another host is queued there: that host's robots.txt first, then the target, which is stored", async () => {
    await crawler.waitIdle({ origin: to.origin, minDone: 1, timeoutMs: 30_000 });
    assert.deepEqual(
      from.log.map((r) => `${r.path} ${r.status}`),
      ['/robots.txt 404', '/ 301'],
    );
    assert.deepEqual(
      to.log.map((r) => `${r.path} ${r.status}`),
      ['/robots.txt 200', '/landing 200'],
    );
    assert.ok(isStored(crawler, to.url('/landing')));
  });
});
