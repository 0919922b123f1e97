/**
 * Crash safety of the real cluster, worker side: kill -9 the worker that is in the middle of a fetch.
 * It is replaced, the URLs it was fetching go back to the queue and is fetched again, the crawl completes with every
 * page stored exactly once and no URL left leased, and no site is treated impolitely meanwhile.
 * Judged from the sites' request logs and the crawler's record, on each storage engine (the SQLite file, or
 * PostgreSQL).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestWeb,
  generateSite,
  politenessReport,
  waitFor,
  type PageSpec,
  type SiteSpec,
  type TestSite,
} from '../../test-support/test-web.ts';
import { ENGINES, engineCrawlers } from '../../test-support/engine-crawler.ts';
import { FETCH_DEFAULTS } from '../fetch/fetcher.ts';

const DELAY_MS = 100;
const crawlers = engineCrawlers();

function assertPolite(sites: TestSite[]): void {
  for (const site of sites) {
    const report = politenessReport(site.log, DELAY_MS);
    assert.equal(report.maxInFlight, 1, `${site.host}: never two requests in flight`);
    assert.deepEqual(
      report.violations.map((v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`),
      [],
      `${site.host}: gaps below ${DELAY_MS} ms`,
    );
  }
}

/** A page request in flight, with the TCP connection it came on. */
interface Fetching {
  path: string;
  clientPort: number;
  serverAddress: string;
  serverPort: number;
}

/**
 * A generated site whose pages answer after `delayMs`, remembering the connection of each request
 * in flight (so a test can find the worker process that is fetching it).
 */
function slowSite(pages: number, prefix: string, delayMs: number, inFlight: Set<Fetching>): SiteSpec {
  const spec = generateSite({ pages, prefix });
  const wrapped: Record<string, PageSpec> = {};
  for (const [path, html] of Object.entries(spec.pages)) {
    wrapped[path] = {
      handler: (req, res) => {
        const conn = {
          path,
          clientPort: req.socket.remotePort!,
          serverAddress: req.socket.localAddress!,
          serverPort: req.socket.localPort!,
        };
        inFlight.add(conn);
        const timer = setTimeout(
          () => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html),
          delayMs,
        );
        res.once('close', () => {
          clearTimeout(timer);
          inFlight.delete(conn);
        });
      },
    };
  }
  return { pages: wrapped };
}

for (const engine of ENGINES) {
  describe(engine, () => {
    test(`on ${engine}: kill -9 the worker in the middle of a fetch: it is replaced, its URL goes back to the queue, every page stored exactly once`, async () => {
      const PAGES = 8;
      const fetching = new Set<Fetching>();
      const web = await startTestWeb([0, 1].map((i) => slowSite(PAGES, `w${i}`, 300, fetching)));
      // Pacing off: at its default (5 times a site's response time) the pages' 300 ms would space each site's
      // requests 1.5 s apart; what the kill needs is a fetch in flight, which the 300 ms answers give.
      const crawler = await crawlers.start(engine, {
        CRAWL_WORKERS: '2',
        CRAWL_DELAY_MS: String(DELAY_MS),
        CRAWL_PACING_FACTOR: '0',
      });
      try {
        for (const site of web.sites) await crawler.addSeed(site.url('/'), { depth: 1 });
        // A page request in flight, and the worker process that holds its connection. The kill follows
        // the check without yielding to the event loop, so the site has not answered in between.
        const { victim, cut } = await waitFor(
          async () => {
            if ((await crawler.storedCounts()).n < 3) return undefined;
            for (const conn of fetching) {
              const pid = crawler.workerByConnection(conn);
              if (pid !== undefined) return { victim: pid, cut: conn };
            }
            return undefined;
          },
          { timeoutMs: 40_000, message: 'a worker in the middle of fetching a page' },
        );
        process.kill(victim, 'SIGKILL');
        const killedAt = performance.timeOrigin + performance.now();
        const cutSite = web.sites.find((s) => s.address === cut.serverAddress && s.port === cut.serverPort)!;

        // A new worker takes its place.
        await waitFor(
          () => {
            const pids = crawler.workerPids();
            return pids.length === 2 && !pids.includes(victim);
          },
          { timeoutMs: 20_000, message: 'a replacement worker' },
        );

        await crawler.waitIdle({ minDone: 2 * PAGES, timeoutMs: 40_000 });
        assert.deepEqual(
          await crawler.storedCounts(),
          { n: 2 * PAGES, d: 2 * PAGES },
          'every page stored exactly once',
        );
        assert.deepEqual(await crawler.states(), { done: 2 * PAGES }, 'nothing leased, failed or left queued');
        // A worker runs several fetches at once (each of another host): every job the victim held, whether
        // its request was on the wire, its answer not yet reported, or its request not yet sent, is
        // fetched once more and counted as an attempt. No other page is requested twice.
        const requests = new Map<string, number[]>();
        for (const site of web.sites) {
          for (const r of site.log)
            requests.set(site.url(r.path), [...(requests.get(site.url(r.path)) ?? []), r.start]);
        }
        for (const [url, starts] of requests) assert.ok(starts.length <= 2, `${url}: requested ${starts.length} times`);
        const twice = [...requests].filter(([, starts]) => starts.length === 2).map(([url]) => url);
        assert.ok(twice.includes(cutSite.url(cut.path)), `${cut.path} (cut off) was requested again`);
        assert.ok(
          twice.length <= FETCH_DEFAULTS.fetchesPerWorker,
          `at most one worker's fetches repeated: ${twice.join(', ')}`,
        );
        for (const url of twice) {
          const retried = await crawler.frontier(url);
          assert.equal(retried?.state, 'done', `${url} (cut off) was fetched again and stored`);
          assert.equal(retried?.attempts, 2, `${url}: the cut-off fetch counts as an attempt`);
        }
        const attempted = (await crawler.rows<{ url: string }>('SELECT url FROM frontier WHERE attempts > 1')).map(
          (r) => r.url,
        );
        assert.ok(
          attempted.length <= FETCH_DEFAULTS.fetchesPerWorker,
          `at most one worker's jobs counted as cut off: ${attempted.join(', ')}`,
        );
        // The URLs counted as cut off are those requested twice, plus any whose job the victim held but had
        // not yet sent: those were requested once, after the kill (by the retry).
        const sentAfterKillOnly = attempted.filter((url) => {
          const starts = requests.get(url) ?? [];
          return starts.length === 1 && starts[0] > killedAt;
        });
        assert.deepEqual(
          attempted.sort(),
          [...twice, ...sentAfterKillOnly].sort(),
          'the URLs counted as cut off are exactly those requested twice or only after the kill',
        );
        assertPolite(web.sites);
      } finally {
        await crawler.close();
        await web.close();
      }
    });
  });
}
