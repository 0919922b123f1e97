/**
 * Sitemaps through a real cluster: the sitemaps a seed's host lists in robots.txt are read (an index,
 * a plain one and a gzip one), and the pages they name are crawled though no link reaches them, as
 * links one step from the seed. Sitemaps and entries of other hosts, pages robots.txt disallows, and
 * the sitemaps of a depth-0 seed are never requested; every request is spaced like any other.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { politenessReport, waitFor, startTestWeb, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';

const DELAY_MS = 50;
const XML = { 'content-type': 'application/xml' };

function html(title: string, links: string[] = []): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${title.replace(/\W/g, '')}word</p>` +
    links.map((l) => `<a href="${l}">${l}</a>`).join(' ') +
    '</body></html>'
  );
}
const urlset = (urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<url><loc>${u}</loc></url>`).join('')}</urlset>`;
const sitemapIndex = (urls: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.map((u) => `<sitemap><loc>${u}</loc></sitemap>`).join('')}</sitemapindex>`;

describe('sitemaps listed in robots.txt', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let a: TestSite; // seeded with depth 1; lists sitemaps
  let b: TestSite; // never seeded: its sitemap and pages are named by a's files only
  let c: TestSite; // seeded with depth 0: its sitemap is not read
  let d: TestSite; // its sitemap is a gzip bomb
  let e: TestSite; // its sitemaps redirect: once within the origin, in a loop, and to another host

  const loopRequests = () => e.requestsTo('/loop-a.xml').length + e.requestsTo('/loop-b.xml').length;
  const stored = (url: string): boolean =>
    crawler.db.prepare('SELECT 1 FROM pages WHERE url = ?').get(url) !== undefined;

  before(async () => {
    web = await startTestWeb([{ pages: {} }, { pages: {} }, { pages: {} }, { pages: {} }, { pages: {} }]);
    [a, b, c, d, e] = web.sites;
    a.setRobots(
      `User-agent: *\nDisallow: /private\n\nSitemap: ${a.url('/sitemap-index.xml')}\nSitemap: ${b.url('/sitemap.xml')}\n`,
    );
    a.setPage('/', html('Home', ['/linked']));
    a.setPage('/linked', html('Linked'));
    a.setPage('/orphan-1', html('Orphan one'));
    a.setPage('/orphan-2', html('Orphan two'));
    a.setPage('/private/x', html('Private'));
    a.setPage('/sitemap-index.xml', {
      body: sitemapIndex([a.url('/sitemap-1.xml'), a.url('/sitemap-2.xml.gz'), b.url('/sitemap.xml')]),
      headers: XML,
    });
    a.setPage('/sitemap-1.xml', {
      body: urlset([a.url('/orphan-1'), a.url('/private/x'), b.url('/page'), a.url('/linked')]),
      headers: XML,
    });
    a.setPage('/sitemap-2.xml.gz', {
      body: zlib.gzipSync(urlset([a.url('/orphan-2'), a.url('/orphan-1')])),
      headers: { 'content-type': 'application/gzip' },
    });
    b.setPage('/sitemap.xml', { body: urlset([b.url('/page')]), headers: XML });
    b.setPage('/page', html('Elsewhere'));
    c.setRobots(`User-agent: *\nAllow: /\nSitemap: ${c.url('/sitemap.xml')}\n`);
    c.setPage('/', html('C home'));
    c.setPage('/sitemap.xml', { body: urlset([c.url('/orphan')]), headers: XML });
    c.setPage('/orphan', html('C orphan'));

    d.setRobots(`User-agent: *\nAllow: /\nSitemap: ${d.url('/bomb.xml.gz')}\n`);
    d.setPage('/', html('D home'));
    // 40 MiB of zeros in about 40 KiB of gzip: past the 10 MiB a sitemap may decompress to.
    d.setPage('/bomb.xml.gz', {
      body: zlib.gzipSync(Buffer.alloc(40 * 1024 * 1024)),
      headers: { 'content-type': 'application/gzip' },
    });

    const moved = (to: string) => ({ status: 301, headers: { location: to }, body: '' });
    e.setRobots(
      `User-agent: *\nAllow: /\nSitemap: ${e.url('/sitemap.xml')}\nSitemap: ${e.url('/loop-a.xml')}\nSitemap: ${e.url('/away.xml')}\n`,
    );
    e.setPage('/', html('E home'));
    e.setPage('/sitemap.xml', moved('/sitemap_index.xml')); // as some site generators do
    e.setPage('/sitemap_index.xml', { body: sitemapIndex([e.url('/post-sitemap.xml')]), headers: XML });
    e.setPage('/post-sitemap.xml', { body: urlset([e.url('/post')]), headers: XML });
    e.setPage('/post', html('E post'));
    e.setPage('/loop-a.xml', moved('/loop-b.xml'));
    e.setPage('/loop-b.xml', moved('/loop-a.xml'));
    e.setPage('/away.xml', moved(b.url('/sitemap.xml')));

    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    crawler.addSeed(a.url('/'), { depth: 1 });
    crawler.addSeed(c.url('/'), { depth: 0 });
    crawler.addSeed(d.url('/'), { depth: 1 });
    crawler.addSeed(e.url('/'), { depth: 1 });
    await waitFor(() => stored(a.url('/orphan-1')) && stored(a.url('/orphan-2')) && stored(e.url('/post')), {
      timeoutMs: 30_000,
      message: 'the orphan pages stored',
    });
    await crawler.waitIdle({ timeoutMs: 30_000 });
    // Sitemap jobs are not frontier rows: e is done when its row says idle (nothing queued, nothing in flight).
    await waitFor(() => loopRequests() >= 6 && crawler.domain(e.host)?.state === 'idle', {
      timeoutMs: 30_000,
      message: `${e.host} idle after its sitemap loop`,
    });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('pages only the sitemaps name are crawled, one step from the seed; each sitemap is read once', () => {
    assert.equal(crawler.frontier(a.url('/orphan-1'))?.depth, 1);
    assert.equal(crawler.frontier(a.url('/orphan-2'))?.depth, 1);
    for (const path of [
      '/sitemap-index.xml',
      '/sitemap-1.xml',
      '/sitemap-2.xml.gz',
      '/orphan-1',
      '/orphan-2',
      '/linked',
    ]) {
      assert.equal(a.requestsTo(path).length, 1, `${path} requested once`);
    }
    assert.equal(a.log[0].path, '/robots.txt', 'robots.txt first');
  });

  test("what robots.txt disallows, other hosts' sitemaps and pages, and a depth-0 seed's sitemap are never requested", () => {
    assert.equal(a.requestsTo('/private/x').length, 0);
    assert.deepEqual(b.log, [], 'the other host was never contacted');
    assert.deepEqual(
      c.log.map((r) => r.path),
      ['/robots.txt', '/'],
    );
  });

  test("a sitemap that is a gzip bomb is read no further than the cap; the host's row says so and its pages are crawled", async () => {
    await waitFor(() => crawler.domain(d.host)?.lastError?.includes('larger than 10 MiB once decompressed'), {
      timeoutMs: 10_000,
      message: `the domain row of ${d.host} to say why its sitemap was not read`,
    });
    assert.equal(d.requestsTo('/bomb.xml.gz').length, 1, 'a fatal failure: not retried');
    assert.ok(stored(d.url('/')));
  });

  test('a sitemap that moved within its site is followed; a redirect loop ends; a redirect to another host is not followed', () => {
    assert.equal(crawler.frontier(e.url('/post'))?.depth, 1);
    for (const path of ['/sitemap.xml', '/sitemap_index.xml', '/post-sitemap.xml', '/away.xml']) {
      assert.equal(e.requestsTo(path).length, 1, `${path} requested once`);
    }
    // Five redirects followed after the first request: a, b, a, b, a, b; then the chain ends.
    assert.equal(loopRequests(), 6);
    assert.deepEqual(b.log, [], 'the other host was never contacted');
  });

  test('sitemap requests are spaced like every other request', () => {
    assert.deepEqual(politenessReport(a.log, DELAY_MS).violations, []);
    assert.deepEqual(politenessReport(e.log, DELAY_MS).violations, []);
  });

  test('the seed submitted again reads its sitemaps again', async () => {
    crawler.addSeed(a.url('/'), { depth: 1 });
    await waitFor(() => a.requestsTo('/sitemap-2.xml.gz').length === 2, {
      timeoutMs: 30_000,
      message: 'the gzip sitemap read a second time',
    });
    await crawler.waitIdle({ timeoutMs: 30_000 });
    assert.equal(a.requestsTo('/sitemap-index.xml').length, 2);
    assert.equal(a.requestsTo('/orphan-1').length, 2, 'its pages are re-crawled with the seed');
    assert.deepEqual(politenessReport(a.log, DELAY_MS).violations, []);
  });
});
