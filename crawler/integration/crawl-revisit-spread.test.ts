/**
 * A periodic refresh spread over time, through the real cluster and judged from the site's own request
 * log: with a refresh every 16 s (CRAWL_REFRESH) and no delay between requests (CRAWL_DELAY_MS 0), the 20
 * pages a refresh asks for again come over its window (a quarter of the period, 4 s), not as one block at
 * the full allowed rate (revisit-spread.ts, whose unit test proves the even spacing).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, waitFor } from '../../test-support/test-web.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { REVISIT_SPREAD_SHARE } from '../frontier/revisit-spread.ts';

const REFRESH_MS = 16_000;
const PAGES = Array.from({ length: 20 }, (_, i) => `/p${i}`);

test("a refresh's due pages reach the site spread evenly over a quarter of the period", {
  timeout: 120_000,
}, async () => {
  const web = await startTestWeb([{ pages: {} }]);
  const site = web.sites[0];
  site.setPage('/', `<title>Home</title>${PAGES.map((p) => `<a href="${p}">${p}</a>`).join(' ')}`);
  for (const p of PAGES) site.setPage(p, `<title>${p}</title><p>page ${p}</p>`);
  const crawler = startCrawler({ CRAWL_DELAY_MS: '0', CRAWL_REFRESH: `${REFRESH_MS / 1000}s` });
  try {
    crawler.addSeed(site.url('/'), { depth: 1 });
    await waitFor(() => PAGES.every((p) => site.requestsTo(p).length >= 2), {
      timeoutMs: 60_000,
      message: 'every page asked for again at the first refresh',
    });
    const firstCrawl = PAGES.map((p) => site.requestsTo(p)[0].start).sort((a, b) => a - b);
    const revisits = PAGES.map((p) => site.requestsTo(p)[1].start).sort((a, b) => a - b);
    const window = REVISIT_SPREAD_SHARE * REFRESH_MS;
    // The refresh asks for the seed's page at once and spreads the rest: the last of n comes (n - 1) / n of
    // the window after the refresh began, which was at most a moment before the seed's page was asked for.
    // Half the window allows that moment to be long on a busy machine; a block would take a few ms here.
    const refreshed = site.requestsTo('/')[1].start;
    const span = revisits.at(-1)! - refreshed;
    assert.ok(
      span >= window / 2,
      `the refresh's ${PAGES.length} revisits came within ${Math.round(span)} ms of its start, not spread over its ${window} ms window (the first crawl asked for all of them within ${Math.round(firstCrawl.at(-1)! - firstCrawl[0])} ms)`,
    );
    for (const start of revisits) assert.ok(start >= refreshed, 'none before the refresh asked for the seed page');
  } finally {
    await crawler.close();
    await web.close();
  }
});
