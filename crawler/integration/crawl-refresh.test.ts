/**
 * CRAWL_REFRESH through a real cluster: once a seed's crawl is over and as old as the interval, the
 * crawler crawls it again on its own, asking conditionally where the site gave validators, spaced
 * like any request, and only after the interval has passed since the seed page was fetched.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { politenessReport, startTestWeb, waitFor, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';

const DELAY_MS = 50;
const REFRESH_MS = 2000;

function html(title: string, links: string[] = []): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1>` +
    links.map((l) => `<a href="${l}">${l}</a>`).join(' ') +
    '</body></html>'
  );
}

describe('seeds are crawled again on their own after CRAWL_REFRESH', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let site: TestSite;
  const ifNoneMatch = new Map<string, Array<string | undefined>>();

  /** A page served with an ETag: 304 to a request that names it. */
  const tagged = (path: string, links: string[] = []) => ({
    handler: (req: http.IncomingMessage, res: http.ServerResponse) => {
      ifNoneMatch.set(path, [...(ifNoneMatch.get(path) ?? []), req.headers['if-none-match']]);
      if (req.headers['if-none-match'] === `"${path}"`) res.writeHead(304, { etag: `"${path}"` }).end();
      else res.writeHead(200, { 'content-type': 'text/html', etag: `"${path}"` }).end(html(path, links));
    },
  });

  before(async () => {
    web = await startTestWeb([
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: { '/': tagged('/', ['/a', '/b']), '/a': tagged('/a'), '/b': html('b') },
      },
    ]);
    site = web.sites[0];
    crawler = startCrawler({
      CRAWL_WORKERS: '2',
      CRAWL_DELAY_MS: String(DELAY_MS),
      CRAWL_REFRESH: `${REFRESH_MS / 1000}s`,
    });
    crawler.addSeed(site.url('/'), { depth: 1 });
    await waitFor(() => ['/', '/a', '/b'].every((p) => site.requestsTo(p).length >= 2), {
      timeoutMs: 30_000,
      message: 'every page of the seed requested a second time, with no one asking',
    });
    await crawler.waitIdle({ origin: site.origin, timeoutMs: 30_000 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('the second crawl starts no sooner than the interval after the seed page was fetched', () => {
    const [first, second] = site.requestsTo('/');
    assert.ok(
      second.start - first.end >= REFRESH_MS - 5,
      `refreshed ${Math.round(second.start - first.end)} ms after the first fetch`,
    );
    const firstCrawlEnd = Math.max(...['/a', '/b'].map((p) => site.requestsTo(p)[0].end));
    assert.ok(second.start > firstCrawlEnd, 'not while the first crawl was still going');
  });

  test('pages with an ETag are asked for conditionally and answer 304; the others are fetched in full', () => {
    assert.deepEqual(ifNoneMatch.get('/')?.slice(0, 2), [undefined, '"/"']);
    assert.deepEqual(ifNoneMatch.get('/a')?.slice(0, 2), [undefined, '"/a"']);
    assert.deepEqual(
      site
        .requestsTo('/a')
        .slice(0, 2)
        .map((r) => r.status),
      [200, 304],
    );
    assert.deepEqual(
      site
        .requestsTo('/b')
        .slice(0, 2)
        .map((r) => r.status),
      [200, 200],
    );
    const pages = crawler.db.prepare('SELECT COUNT(*) AS n FROM pages').get() as { n: number };
    assert.equal(pages.n, 3, 'each page stored once');
  });

  test('the refresh is spaced like the crawl, and robots.txt (cached for 24 h) is not asked again', () => {
    assert.deepEqual(politenessReport(site.log, DELAY_MS).violations, []);
    assert.equal(site.requestsTo('/robots.txt').length, 1);
  });
});
