/**
 * Workers that start with the work, through the real cluster: a crawler with nothing to crawl runs no
 * worker process and says so (0 workers, no problem reported); a seed starts CRAWL_WORKERS workers and
 * the site is crawled politely. (Leaving after a minute without work is unit-tested in
 * crawler/coordination/worker-lifecycle.test.ts with time run by hand; `npm run bench:footprint`
 * measures the idle process tree.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSite, politenessReport, startTestWeb, waitFor } from '../../test-support/test-web.ts';
import { startCrawler, type ShownSnapshot } from '../../test-support/crawler-harness.ts';
import { crawlWorkerPids } from '../../test-support/hostile-pages.ts';

const DELAY_MS = 50;
const PAGES = 5;

test('nothing to crawl: no worker process; a seed starts the workers and its site is crawled', {
  timeout: 90_000,
}, async () => {
  const web = await startTestWeb([generateSite({ pages: PAGES })]);
  const [site] = web.sites;
  const crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
  const snapshots = () => crawler.messages.filter((m): m is ShownSnapshot => m.type === 'snapshot');
  try {
    await waitFor(() => snapshots().length >= 4, {
      timeoutMs: 30_000,
      message: 'the primary started and sent four snapshots (2 s)',
    });
    assert.deepEqual(crawler.workerPids(), [], 'no worker process while there is nothing to fetch');
    assert.deepEqual(
      snapshots().map((s) => s.status.workers),
      [0, 0, 0, 0],
      'and the status says 0 workers all along',
    );
    assert.equal(
      crawler.messages.some((m) => m.type === 'error'),
      false,
      'an idle crawler reports no problem',
    );

    const seededAt = performance.timeOrigin + performance.now();
    crawler.addSeed(site.url('/'), { depth: 1 });
    await waitFor(() => crawlWorkerPids(crawler).length === 2, {
      timeoutMs: 30_000,
      message: 'the seed to start both workers',
    });
    await crawler.waitIdle({ minDone: PAGES, timeoutMs: 30_000 });
    console.log(
      `# crawl-idle-workers: first request ${Math.round(site.log[0].start - seededAt)} ms after the seed (worker start-up included, tsx)`,
    );
    assert.equal(site.log.length, PAGES + 1, 'robots.txt and every page');
    assert.deepEqual(politenessReport(site.log, DELAY_MS).violations, []);
    await waitFor(() => snapshots().at(-1)?.status.workers === 2, {
      timeoutMs: 5_000,
      message: 'the status to count both workers',
    });
  } finally {
    await crawler.close();
    await web.close();
  }
});
