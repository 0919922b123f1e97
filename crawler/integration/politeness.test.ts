import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, generateSite, politenessReport } from '../../test-support/test-web.ts';
import { ENGINES, engineCrawlers } from '../../test-support/engine-crawler.ts';

const crawlers = engineCrawlers();

for (const engine of ENGINES) {
  describe(`on ${engine}`, () => {
    test('4 workers, 200 ms delay, one 30-page site: every page once, robots.txt first, never two in flight, never a gap below 200 ms', async () => {
      const web = await startTestWeb([generateSite({ pages: 30, robots: 'User-agent: *\nAllow: /\n' })]);
      const crawler = await crawlers.start(engine, { CRAWL_WORKERS: '4', CRAWL_DELAY_MS: '200' });
      try {
        const site = web.sites[0];
        await crawler.addSeed(site.url('/'), { depth: 2 });
        await crawler.waitIdle({ minDone: 30, timeoutMs: 40_000 });
        const log = site.log;
        assert.equal(log[0].path, '/robots.txt', 'robots.txt is the first request');
        const pages = log.filter((r) => r.path !== '/robots.txt').map((r) => r.path);
        assert.equal(pages.length, 30, `30 page requests, got ${pages.length}`);
        assert.equal(new Set(pages).size, 30, 'no page fetched twice');
        const report = politenessReport(log, 200);
        assert.equal(report.maxInFlight, 1);
        assert.deepEqual(report.violations, [], `gaps below 200 ms: ${JSON.stringify(report.violations.slice(0, 3))}`);
        assert.ok(report.minGapMs >= 200, `smallest gap ${report.minGapMs} ms`);
        assert.deepEqual(await crawler.storedCounts(), { n: 30, d: 30 }, 'every page stored once');
        assert.ok(
          log.every((r) => r.userAgent.startsWith('LanternBot/')),
          'every request carries our User-Agent',
        );
      } finally {
        await crawler.close();
        await web.close();
      }
    });
  });
}
