/**
 * A sitemap's `<lastmod>` in revisits, through the real cluster and judged from the site's own request
 * log: with a refresh every 2 s (CRAWL_REFRESH) and a ceiling of 4 periods (CRAWL_REVISIT_MAX), a page
 * whose sitemap says it has not changed since it was fetched is skipped when its interval comes due (a
 * page no sitemap names is asked for then), until the ceiling since its last request says to ask again;
 * a page whose `<lastmod>` moves past its last request is asked for at the next refresh.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, type RequestRecord } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';

const XML = { 'content-type': 'application/xml' };
const LONG_AGO = '2000-01-01T00:00:00Z';

test('sitemap lastmod: an old one skips a due page up to the ceiling; a new one brings the page back at the next refresh', {
  timeout: 120_000,
}, async () => {
  const web = await startTestWeb([{ pages: {} }]);
  const site = web.sites[0];
  let newLastmod = LONG_AGO;
  const sitemap = () =>
    '<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' +
    `<url><loc>${site.url('/old')}</loc><lastmod>${LONG_AGO}</lastmod></url>` +
    `<url><loc>${site.url('/new')}</loc><lastmod>${newLastmod}</lastmod></url></urlset>`;
  site.setRobots(`User-agent: *\nAllow: /\nSitemap: ${site.url('/sitemap.xml')}\n`);
  site.setPage('/', '<title>Home</title><a href="/plain">plain</a>');
  site.setPage('/plain', '<title>Plain</title><p>no sitemap names me</p>');
  site.setPage('/old', '<title>Old</title><p>listed, unchanged since 2000</p>');
  site.setPage('/new', '<title>New</title><p>listed, changed later</p>');
  site.setPage('/sitemap.xml', { handler: (_req, res) => void res.writeHead(200, XML).end(sitemap()) });
  const crawler = startCrawler({ CRAWL_REFRESH: '2s', CRAWL_REVISIT_MAX: '8s' });
  try {
    crawler.addSeed(site.url('/'), { depth: 1 });
    // Which crawl a request belongs to: 0 for the first, k for the k-th refresh (counted by the seed's page).
    const crawlOf = (r: RequestRecord) => site.requestsTo('/').filter((s) => s.start <= r.start).length - 1;
    const crawlsOf = (path: string) => site.requestsTo(path).map(crawlOf);

    await waitFor(() => crawlsOf('/plain').includes(1) && crawlsOf('/sitemap.xml').includes(1), {
      timeoutMs: 40_000,
      message: 'the 1st refresh, its sitemap read',
    });
    newLastmod = new Date().toISOString(); // /new changed after its last request
    await waitFor(() => crawlsOf('/old').length >= 2, {
      timeoutMs: 60_000,
      message: '/old asked for again once the ceiling passed',
    });

    assert.deepEqual(crawlsOf('/plain').slice(0, 2), [0, 1], 'a page no sitemap names is due at the 1st refresh');
    assert.ok(
      !crawlsOf('/old').includes(1),
      `its sitemap vouched for /old at the 1st refresh (asked at ${crawlsOf('/old')})`,
    );
    assert.ok(!crawlsOf('/new').includes(1), `... and for /new (asked at ${crawlsOf('/new')})`);
    assert.deepEqual(
      crawlsOf('/new').slice(0, 2),
      [0, 2],
      'a lastmod after the last request: asked for at the next refresh',
    );
    const [first, again] = crawlsOf('/old');
    assert.equal(first, 0);
    assert.ok(
      again >= 3 && again <= 5,
      `the sitemap stands for /old at most the ceiling (4 periods) since its request: asked again at refresh ${again}`,
    );
  } finally {
    await crawler.close();
    await web.close();
  }
});
