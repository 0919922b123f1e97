/**
 * Revisits that cost the site little, through the real cluster and judged from the site's own request
 * log: with a refresh every 2 s (CRAWL_REFRESH) and a ceiling of 4 periods (CRAWL_REVISIT_MAX), a page
 * that stays the same is asked for at the 1st, 3rd and 7th refresh (its interval doubles); once it has
 * changed, its interval halves and it is asked for two refreshes later; a page that changes every time
 * is asked for at every refresh, and so is the seed's own page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, type RequestRecord } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';

const HTML = { 'content-type': 'text/html; charset=utf-8' };

test('revisit intervals grow while a page stays, shrink once it changed; a page that changes is asked for each time', {
  timeout: 120_000,
}, async () => {
  let stable = '<title>Stable</title><p>the same words every time</p>';
  let versions = 0;
  const web = await startTestWeb([
    {
      pages: {
        '/': '<title>Home</title><a href="/stable">stable</a> <a href="/changing">changing</a>',
        '/stable': { handler: (_req, res) => void res.writeHead(200, HTML).end(stable) },
        '/changing': {
          handler: (_req, res) =>
            void res.writeHead(200, HTML).end(`<title>Changing</title><p>version ${++versions}</p>`),
        },
      },
    },
  ]);
  const site = web.sites[0];
  const crawler = startCrawler({ CRAWL_REFRESH: '2s', CRAWL_REVISIT_MAX: '8s' });
  try {
    crawler.addSeed(site.url('/'), { depth: 1 });
    // Which crawl a request belongs to: 0 for the first, k for the k-th refresh (counted by the seed's page).
    const crawlOf = (r: RequestRecord) => site.requestsTo('/').filter((s) => s.start <= r.start).length - 1;
    const crawlsOf = (path: string) => site.requestsTo(path).map(crawlOf);

    await waitFor(() => crawlsOf('/stable').includes(3), {
      timeoutMs: 60_000,
      message: 'the stable page asked for at the 3rd refresh',
    });
    stable = '<title>Stable</title><p>new words, at last</p>';
    await waitFor(() => crawlsOf('/changing').includes(10), { timeoutMs: 90_000, message: 'the 10th refresh' });

    assert.deepEqual(
      crawlsOf('/stable'),
      [0, 1, 3, 7, 9],
      'unchanged: 1, 2 then 4 periods (the ceiling); changed at the 7th: 2 periods',
    );
    assert.deepEqual(
      crawlsOf('/changing'),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      'a page that changes each time is asked for each time',
    );
    assert.equal(site.requestsTo('/').length, 11, "the seed's page at every refresh");
  } finally {
    await crawler.close();
    await web.close();
  }
});
