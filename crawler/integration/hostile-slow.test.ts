/**
 * Slow sites through a real cluster: headers only after 20 s, a body that drips one byte a second, and
 * a body that never ends. With CRAWL_TIMEOUT_MS=4000 (headers may take 2 s, the whole answer 4 s) each
 * fetch is cut off at its limit (seen from the server: the crawler hung up), the URL carries a clear
 * error, the host backs off after the second failure and its row says why in words. Meanwhile a
 * healthy site in the same crawl is crawled in full at its own pace, on the other worker; no worker
 * dies and the workers' memory stays bounded. One crawl (2 workers) runs the cases one after another,
 * each with a fresh slow site and a fresh healthy site.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, generateSite, politenessReport, waitFor } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { drip, endlessBody, lateHeaders, type HostilePage } from '../../test-support/hostile-sites.ts';
import { sampleMemory, type MemorySampler } from '../../test-support/memory-sampler.ts';
import { fetchLimits } from '../fetch/fetcher.ts';

const DELAY_MS = 50;
const TIMEOUT_MS = 4000;
const LIMITS = fetchLimits(TIMEOUT_MS);
const HEALTHY_PAGES = 15;
const RSS_BOUND_MiB = 250;

describe('slow sites through the real cluster', () => {
  let crawler: CrawlerHarness;
  let memory: MemorySampler;
  let workers: number[] | undefined;

  before(() => {
    // Pacing off: after a timeout it would hold the slow host 5 x 2 x its wait (20 s and more) before the
    // second attempt (crawl-pacing.test.ts proves that); here the fetch limits and the backoff are the subject.
    crawler = startCrawler({
      CRAWL_WORKERS: '2',
      CRAWL_DELAY_MS: String(DELAY_MS),
      CRAWL_TIMEOUT_MS: String(TIMEOUT_MS),
      CRAWL_PACING_FACTOR: '0',
    });
  });

  after(async () => {
    memory?.stop();
    await crawler?.close();
  });

  /**
   * A healthy site and one hostile page, added to the running crawl; checks everything the issue asks
   * of a slow site. `cutAfterMs` is the limit that should end each hostile fetch (headers or total
   * time). The hostile site is closed at the end, so its later retries fail fast and hold no worker.
   */
  async function slowCase(hostile: HostilePage, error: RegExp, cutAfterMs: number): Promise<void> {
    const web = await startTestWeb([
      { pages: { '/': hostile } },
      generateSite({ pages: HEALTHY_PAGES, prefix: 'healthy' }),
    ]);
    const [slow, healthy] = web.sites;
    try {
      crawler.addSeed(slow.url('/'), { depth: 0 });
      crawler.addSeed(healthy.url('/'), { depth: 1 });
      if (workers === undefined) {
        // Workers start with the first due job (worker-lifecycle.ts); memory is sampled from then on (VmHWM keeps any earlier peak).
        workers = await waitFor(() => crawler.workerPids().length === 2 && crawler.workerPids(), {
          timeoutMs: 45_000,
          message: 'two workers',
        });
        memory = sampleMemory(() => crawler.workerPids());
      }

      // The healthy site is crawled while the slow request hangs, and finishes while the slow URL is unfinished.
      await waitFor(() => hostile.transfers.length > 0, { message: 'the slow page to be requested' });
      await crawler.waitIdle({ origin: healthy.origin, minDone: HEALTHY_PAGES, timeoutMs: 20_000 });
      assert.ok(
        ['queued', 'leased'].includes(crawler.frontier(slow.url('/'))!.state),
        'the slow URL is still unfinished when the healthy site is done',
      );
      const first = hostile.transfers[0];
      const during = healthy.log.filter(
        (r) => r.start > first.start && r.start < (Number.isNaN(first.end) ? Infinity : first.end),
      );
      assert.ok(
        during.length >= 2,
        `the healthy site was crawled while the slow request hung (${during.length} requests meanwhile)`,
      );
      // A figure, not a verdict (a loaded machine stretches every gap): the two assertions above are the proof,
      // by the order of events, that the healthy site never waited for the slow one.
      const starts = healthy.log.map((r) => r.start).sort((a, b) => a - b);
      const maxGap = Math.max(...starts.slice(1).map((t, i) => t - starts[i]));
      console.log(`# hostile-slow ${slow.host}: the healthy site's largest gap ${Math.round(maxGap)} ms`);
      assert.deepEqual(politenessReport(healthy.log, DELAY_MS).violations, []);

      // The URL's own error, after its first attempt.
      const row = await waitFor(
        () => {
          const r = crawler.frontier(slow.url('/'));
          return r && r.lastError !== null && r;
        },
        { timeoutMs: cutAfterMs + 10_000, message: 'the slow URL to fail once' },
      );
      assert.match(row.lastError!, error);
      assert.ok(row.state === 'queued' || row.state === 'leased', 'a timeout is retried later');

      // A second failure backs the host off; its row says so, with the error in words.
      const backoff = await waitFor(
        () => {
          const d = crawler.domain(slow.host);
          return d && d.state === 'backoff' && d;
        },
        { timeoutMs: 2 * cutAfterMs + 15_000, message: `${slow.host} to back off` },
      );
      assert.match(
        backoff.stateText,
        /^backing off until \d\d:\d\d:\d\d UTC after 2 failures in a row \(timeouts\): fetcher: /,
      );
      assert.match(backoff.lastError ?? '', error);
      assert.ok(backoff.stateText.endsWith(backoff.lastError!));
      assert.equal(backoff.errors, 2);
      assert.notEqual(backoff.backoffUntil, null);

      // From the server's side: each slow fetch was cut off, not waited out (the crawler hung up before the
      // server had sent it all), and not before the limit. How late after the limit it was cut depends on the
      // machine's load (timers fire late), so that is a figure, not a verdict.
      const cut = hostile.transfers.filter((t) => !Number.isNaN(t.end));
      assert.ok(cut.length >= 2, `two slow fetches ended (${cut.length})`);
      for (const t of cut) {
        assert.ok(t.cutOff && !t.complete, 'the crawler hung up before the slow answer was complete');
        const took = t.end - t.start;
        assert.ok(
          took >= cutAfterMs - 300,
          `cut off after ${Math.round(took)} ms, not before the limit (${cutAfterMs} ms)`,
        );
      }
      console.log(
        `# hostile-slow ${slow.host}: cut off after ${cut.map((t) => Math.round(t.end - t.start)).join(', ')} ms (limit ${cutAfterMs} ms)`,
      );

      assert.deepEqual(crawler.workerPids().sort(), [...workers!].sort(), 'the same two workers, none crashed');
      assert.equal(crawler.primary.exitCode, null, 'the crawl is still running');
      const mem = memory.report();
      console.log(
        `# hostile-slow ${slow.host}: peak worker RSS so far ${mem.peakRssMiB} MiB (VmHWM ${mem.peakHwmMiB} MiB) over ${mem.samples} samples`,
      );
      assert.ok(
        mem.peakHwmMiB < RSS_BOUND_MiB,
        `peak worker memory ${mem.peakHwmMiB} MiB stays under ${RSS_BOUND_MiB} MiB`,
      );
    } finally {
      await web.close();
    }
  }

  test('headers only after 20 s: cut at the 2 s header limit, the host backs off, a healthy site goes on', async () => {
    await slowCase(
      lateHeaders(20_000),
      /^fetcher: 127\.[\d.:]+ sent no response headers within 2 s$/,
      LIMITS.headersTimeoutMs,
    );
  });

  test('a body that drips one byte a second: cut at the 4 s total limit, the host backs off, a healthy site goes on', async () => {
    await slowCase(
      drip(1000),
      /^fetcher: 127\.[\d.:]+ did not finish its answer within 4 s; \d+ bytes? of body had arrived \(it drips slowly or never ends\)$/,
      LIMITS.totalTimeoutMs,
    );
  });

  test('a body that never ends (1 KiB every 50 ms): cut at the 4 s total limit, the host backs off, a healthy site goes on', async () => {
    await slowCase(
      endlessBody(1024, 50),
      /^fetcher: 127\.[\d.:]+ did not finish its answer within 4 s; \d+ KiB of body had arrived \(it drips slowly or never ends\)$/,
      LIMITS.totalTimeoutMs,
    );
  });
});
