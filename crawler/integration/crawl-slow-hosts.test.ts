/**
 * Slow sites do not stop the crawl of the others: a worker runs several fetches at once (each of a
 * different host), so hosts that take seconds to answer hold a slot each, not a whole worker. Judged
 * from the sites' own request logs, through the real cluster.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, generateSite, politenessReport } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { FETCH_DEFAULTS } from '../fetch/fetcher.ts';

const SLOW_MS = 4000;
const SLOW_SITES = FETCH_DEFAULTS.fetchesPerWorker - 1;
const FAST_PAGES = 6;
const DELAY_MS = 50;

test(`one worker, ${SLOW_SITES} sites answering in ${SLOW_MS / 1000} s: a fast site is crawled meanwhile`, {
  timeout: 90_000,
}, async () => {
  const slow = Array.from({ length: SLOW_SITES }, (_, i) => generateSite({ pages: 2, prefix: `slow${i}` }));
  for (const site of slow) site.defaultDelayMs = SLOW_MS;
  const web = await startTestWeb([...slow, generateSite({ pages: FAST_PAGES, prefix: 'fast' })]);
  const fast = web.sites[SLOW_SITES];
  // Pacing off: it would space the slow sites' requests 5 x 4 s apart, and the test waits for their end
  // (pacing has its own tests: crawl-pacing.test.ts).
  const crawler = startCrawler({
    CRAWL_WORKERS: '1',
    CRAWL_DELAY_MS: String(DELAY_MS),
    CRAWL_TIMEOUT_MS: '30000',
    CRAWL_PACING_FACTOR: '0',
  });
  try {
    // The worker starts with the first due job (worker-lifecycle.ts).
    for (const site of web.sites.slice(0, SLOW_SITES)) crawler.addSeed(site.url('/'), { depth: 1 });
    await waitFor(() => crawler.messages.some((m) => m.type === 'snapshot' && m.status.workers === 1), {
      message: 'the worker ready',
    });
    // Every slow site's robots.txt is in flight before the fast site is even known.
    await waitFor(() => web.sites.slice(0, SLOW_SITES).every((s) => s.log.length === 1), {
      message: "the slow sites' robots.txt requests",
    });
    crawler.addSeed(fast.url('/'), { depth: 1 });
    await crawler.waitIdle({ origin: fast.origin, minDone: FAST_PAGES, timeoutMs: 30_000 });

    const firstSlowEnd = Math.min(
      ...web.sites
        .slice(0, SLOW_SITES)
        .map((s) => s.log[0].end)
        .map((e) => (Number.isNaN(e) ? Infinity : e)),
    );
    const fastEnd = Math.max(...fast.log.map((r) => r.end));
    assert.equal(fast.log.length, FAST_PAGES + 1, 'robots.txt and every page of the fast site');
    assert.ok(
      fastEnd < firstSlowEnd,
      `the fast site was done (${Math.round(fastEnd - fast.log[0].start)} ms) before any slow answer came`,
    );
    assert.deepEqual(politenessReport(fast.log, DELAY_MS).violations, [], 'the fast site was still crawled politely');
    await crawler.waitIdle({ minDone: SLOW_SITES * 2 + FAST_PAGES, timeoutMs: 60_000 });
    for (const site of web.sites)
      assert.equal(politenessReport(site.log, DELAY_MS).maxInFlight, 1, `${site.host}: one request at a time`);
  } finally {
    await crawler.close();
    await web.close();
  }
});
