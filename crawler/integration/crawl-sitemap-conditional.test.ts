/**
 * Sitemaps read again conditionally, through the real cluster and judged from the site's own request log:
 * a site whose sitemap index and sitemap send ETags gets, at each periodic refresh (CRAWL_REFRESH), a
 * request naming the ETag it sent (If-None-Match) and answers 304, so an unchanged sitemap costs it no
 * body; the index's 304 still leads to its sitemap (which may change while the index does not); once the
 * sitemap changes (a new ETag), it is read in full and the page it adds is found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { politenessReport, startTestWeb, waitFor } from '../../test-support/test-web.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';

const DELAY_MS = 50;
const XML = 'application/xml';

test('an unchanged sitemap costs its site a 304 at each refresh; a changed one is read in full', {
  timeout: 120_000,
}, async () => {
  const web = await startTestWeb([{ pages: {} }]);
  const site = web.sites[0];
  const asked = new Map<string, Array<string | undefined>>();
  let version = 1;
  const urlset = () =>
    '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    `<url><loc>${site.url('/listed')}</loc></url>` +
    (version >= 2 ? `<url><loc>${site.url('/added')}</loc></url>` : '') +
    '</urlset>';
  const index = () =>
    '<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    `<sitemap><loc>${site.url('/sitemap-pages.xml')}</loc></sitemap></sitemapindex>`;
  /** A sitemap with an ETag of its content's version: 304 to a request that names the current one. */
  const tagged = (path: string, body: () => string, tag: () => string) => ({
    handler: (req: http.IncomingMessage, res: http.ServerResponse) => {
      asked.set(path, [...(asked.get(path) ?? []), req.headers['if-none-match']]);
      if (req.headers['if-none-match'] === tag()) res.writeHead(304, { etag: tag() }).end();
      else res.writeHead(200, { 'content-type': XML, etag: tag() }).end(body());
    },
  });
  site.setRobots(`User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap-index.xml')}\n`);
  site.setPage('/', '<title>Home</title><p>the seed</p>');
  site.setPage('/listed', '<title>Listed</title><p>only the sitemap names me</p>');
  site.setPage('/added', '<title>Added</title><p>named by the sitemap once it changed</p>');
  site.setPage(
    '/sitemap-index.xml',
    tagged('/sitemap-index.xml', index, () => '"index-1"'),
  );
  site.setPage(
    '/sitemap-pages.xml',
    tagged('/sitemap-pages.xml', urlset, () => `"pages-${version}"`),
  );
  const crawler = startCrawler({ CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_REFRESH: '2s' });
  try {
    crawler.addSeed(site.url('/'), { depth: 1 });
    const statuses = (path: string) => site.requestsTo(path).map((r) => r.status);
    await waitFor(() => statuses('/sitemap-pages.xml').length >= 3, {
      timeoutMs: 60_000,
      message: 'the sitemap read at the first crawl and at two refreshes',
    });
    version = 2; // the sitemap changes; its index does not
    await waitFor(() => site.requestsTo('/added').length >= 1, {
      timeoutMs: 60_000,
      message: 'the page the changed sitemap adds is found',
    });

    assert.deepEqual(statuses('/sitemap-index.xml').slice(0, 3), [200, 304, 304], 'the index: read, then 304s');
    assert.deepEqual(asked.get('/sitemap-index.xml')?.slice(0, 3), [undefined, '"index-1"', '"index-1"']);
    assert.deepEqual(statuses('/sitemap-pages.xml').slice(0, 3), [200, 304, 304], 'its sitemap: read, then 304s');
    assert.deepEqual(asked.get('/sitemap-pages.xml')?.slice(0, 3), [undefined, '"pages-1"', '"pages-1"']);
    const changed = site.requestsTo('/sitemap-pages.xml').findIndex((r, i) => i >= 3 && r.status === 200);
    assert.ok(changed >= 3, `the changed sitemap was read in full (statuses ${statuses('/sitemap-pages.xml')})`);
    assert.ok(
      site.requestsTo('/added')[0].start > site.requestsTo('/sitemap-pages.xml')[changed].end,
      'the page it adds was found by that read',
    );
    assert.ok(site.requestsTo('/listed').length >= 1, 'the pages of an unchanged sitemap stay known');
    assert.deepEqual(politenessReport(site.log, DELAY_MS).violations, []);
  } finally {
    await crawler.close();
    await web.close();
  }
});
