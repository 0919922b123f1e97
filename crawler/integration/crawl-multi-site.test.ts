/**
 * Many sites at once through one real cluster: every site is treated politely on its own clock, and
 * the sites are crawled side by side (not one after another). Everything is judged from the sites'
 * own request logs and the crawler's SQLite file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, generateSite, politenessReport, type RequestRecord } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { FETCH_DEFAULTS } from '../fetch/fetcher.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';

const SITES = 8;
const PAGES = 10;
const WORKERS = 4;
const DELAY_MS = 200;

/** Largest number of requests in flight at one instant over several logs (sweep over [start, end)). */
function maxConcurrent(records: RequestRecord[]): number {
  const events: Array<[number, number]> = [];
  for (const r of records) events.push([r.start, 1], [r.end, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (cur += d));
  return max;
}

test(`${WORKERS} workers, ${SITES} sites of ${PAGES} pages, ${DELAY_MS} ms delay: each site polite on its own clock, the sites crawled in parallel`, async () => {
  const web = await startTestWeb(
    Array.from({ length: SITES }, (_, i) =>
      generateSite({
        pages: PAGES,
        prefix: `site${i}`,
        delayMs: 40,
        robots: i % 2 === 0 ? 'User-agent: *\nAllow: /\n' : undefined,
      }),
    ),
  );
  const crawler = startCrawler({ CRAWL_WORKERS: String(WORKERS), CRAWL_DELAY_MS: String(DELAY_MS) });
  try {
    for (const site of web.sites) crawler.addSeed(site.url('/'), { depth: 1 });
    await crawler.waitIdle({ minDone: SITES * PAGES, timeoutMs: 60_000 });

    for (const site of web.sites) {
      const log = site.log;
      assert.equal(log[0]?.path, '/robots.txt', `${site.host}: robots.txt is the first request`);
      assert.equal(log.filter((r) => r.path === '/robots.txt').length, 1, `${site.host}: robots.txt fetched once`);
      const pages = log.filter((r) => r.path !== '/robots.txt').map((r) => r.path);
      assert.equal(pages.length, PAGES, `${site.host}: ${PAGES} page requests, got ${pages.length}`);
      assert.equal(new Set(pages).size, PAGES, `${site.host}: no page fetched twice`);
      const report = politenessReport(log, DELAY_MS);
      assert.equal(report.maxInFlight, 1, `${site.host}: never two requests in flight`);
      assert.deepEqual(
        report.violations.map((v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`),
        [],
        `${site.host}: gaps below ${DELAY_MS} ms`,
      );
    }

    // Parallel, from the logs alone: requests of different sites were in flight at the same moment
    // (each site alone never has two), never more than there are workers, and the whole crawl took
    // far less than the sum of the sites' own crawl spans (what one-site-after-another would need).
    const all = web.sites.flatMap((s) => s.log);
    const concurrent = maxConcurrent(all);
    assert.ok(concurrent >= 2, `requests of different sites overlapped in time (max in flight ${concurrent})`);
    assert.ok(
      concurrent <= WORKERS * FETCH_DEFAULTS.fetchesPerWorker,
      `never more requests in flight than the workers' fetch slots (${concurrent})`,
    );
    const spans = web.sites.map((s) => Math.max(...s.log.map((r) => r.end)) - Math.min(...s.log.map((r) => r.start)));
    const serial = spans.reduce((a, b) => a + b, 0);
    const total = Math.max(...all.map((r) => r.end)) - Math.min(...all.map((r) => r.start));
    assert.ok(
      total < serial / 3,
      `whole crawl ${Math.round(total)} ms vs ${Math.round(serial)} ms for the sites one after another`,
    );
    // Every site's crawl span overlaps every other's.
    const firstEnd = Math.min(...web.sites.map((s) => Math.max(...s.log.map((r) => r.end))));
    const lastStart = Math.max(...web.sites.map((s) => Math.min(...s.log.map((r) => r.start))));
    assert.ok(lastStart < firstEnd, 'the last site to start began before the first site to finish ended');

    const stored = crawler.db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT url) AS d FROM pages').get() as {
      n: number;
      d: number;
    };
    assert.deepEqual(stored, { n: SITES * PAGES, d: SITES * PAGES }, 'every page stored exactly once');
    for (const site of web.sites) {
      const perSite = crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE origin = ?').get(site.origin) as {
        n: number;
      };
      assert.equal(perSite.n, PAGES, `${site.host}: ${PAGES} pages stored`);
    }
  } finally {
    await crawler.close();
    await web.close();
  }
});

test(`a host goes back to the worker that last fetched from it: 3 sites, ${WORKERS} workers, each site sees one connection`, async () => {
  // With more workers than sites, every host's last worker is idle when the host is due again, so each
  // site is served over the one keep-alive connection its first request opened. Handing jobs to the
  // worker idle longest instead rotates every host through all the workers: up to WORKERS connections.
  const web = await startTestWeb(Array.from({ length: 3 }, (_, i) => generateSite({ pages: 8, prefix: `conn${i}` })));
  const crawler = startCrawler({ CRAWL_WORKERS: String(WORKERS), CRAWL_DELAY_MS: '100' });
  try {
    // Workers start with the first due job (worker-lifecycle.ts), all at once; the first one ready takes
    // the first jobs, so a host may well stay with one worker from its first request on.
    for (const site of web.sites) crawler.addSeed(site.url('/'), { depth: 1 });
    await waitFor(() => crawler.messages.some((m) => m.type === 'snapshot' && m.status.workers === WORKERS), {
      message: `${WORKERS} workers ready`,
    });
    await crawler.waitIdle({ minDone: 3 * 8, timeoutMs: 60_000 });
    for (const site of web.sites) {
      const connections = new Set(site.log.map((r) => r.connection));
      assert.equal(site.log.length, 9, `${site.host}: robots.txt and 8 pages`);
      assert.equal(
        connections.size,
        1,
        `${site.host}: ${site.log.length} requests came over ${connections.size} connections`,
      );
    }
  } finally {
    await crawler.close();
    await web.close();
  }
});
