/**
 * The 'path' scope through a real cluster: a seed of a site's /docs/ folder crawls that folder and
 * nothing else of the site, however its pages link out of it; its redirects out of the folder are
 * refused like any out-of-scope redirect.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { politenessReport, startTestWeb, waitFor, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';

const DELAY_MS = 30;

function html(title: string, links: string[]): string {
  return (
    `<!doctype html><title>${title}</title><h1>${title}</h1>` + links.map((l) => `<a href="${l}">${l}</a>`).join(' ')
  );
}

describe('a seed with the path scope', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let site: TestSite;

  before(async () => {
    web = await startTestWeb([
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: {
          '/': html('Home', ['/docs/', '/blog/x']),
          '/docs/': html('Docs', ['/docs/a', 'b/', '/blog/x', '/docs-old/y', '/', '../blog/y', '/docs/moved']),
          '/docs/a': html('A', ['/docs/b/c', '/about']),
          '/docs/b/': html('B', ['c']),
          '/docs/b/c': html('C', ['/docs/']),
          '/docs/moved': { status: 301, headers: { location: '/blog/moved' }, body: '' },
          '/blog/x': html('Blog', []),
          '/blog/y': html('Blog y', []),
          '/blog/moved': html('Moved', []),
          '/docs-old/y': html('Old', []),
          '/about': html('About', []),
        },
      },
    ]);
    site = web.sites[0];
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    crawler.addSeed(site.url('/docs/'), { depth: 3, scope: 'path' });
    await waitFor(() => crawler.frontier(site.url('/docs/b/c'))?.state === 'done', {
      timeoutMs: 30_000,
      message: '/docs/b/c fetched',
    });
    await crawler.waitIdle({ origin: site.origin, timeoutMs: 30_000 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test("only the seed's folder is requested", () => {
    const paths = site.log.map((r) => r.path).sort();
    assert.deepEqual(paths, ['/docs/', '/docs/a', '/docs/b/', '/docs/b/c', '/docs/moved', '/robots.txt']);
    assert.deepEqual(politenessReport(site.log, DELAY_MS).violations, []);
  });

  test('a redirect out of the folder is refused, as out of scope', () => {
    const moved = crawler.frontier(site.url('/docs/moved'));
    assert.equal(moved?.state, 'failed');
    assert.match(moved?.lastError ?? '', /out of scope/);
  });
});
