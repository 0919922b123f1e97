/**
 * The benchmark's part measurements do the work they claim on small sites: every page stored once by
 * the real Coordinator, every page fetched from the real test web and its result received over IPC.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb } from '../../test-support/test-web.ts';
import { generatedDepth } from '../../test-support/generate.ts';
import { benchPages, benchSite, parseLikeWorker } from './bench-pages.ts';
import { measureFetchCost } from './fetch-cost.ts';
import { measureStoreCost } from './store-cost.ts';

const site = { pagesPerSite: 6, bodyBytes: 3_000 };

test('the store part crawls every page of every site through the Coordinator and stores each once', async () => {
  const origins = ['http://127.0.0.2:8001', 'http://127.0.0.3:8002'];
  const parsed = new Map(benchPages(origins, site).map((p) => [p.url, parseLikeWorker(p)!]));
  const cost = await measureStoreCost({ origins, parsed, depth: generatedDepth(site.pagesPerSite), slots: 4 });
  assert.equal(cost.pagesStored, 12);
  assert.ok(cost.flushes >= 1 && cost.cpuMsPerPage > 0);
  // A page the simulated crawl cannot reach (too deep for the seed) makes the measurement refuse to report.
  await assert.rejects(
    () => measureStoreCost({ origins, parsed, depth: 0, slots: 4 }),
    /store-cost: 2 pages stored, expected 12/,
  );
});

test('the fetch part fetches every page from the test web and receives every result', async () => {
  const web = await startTestWeb([benchSite(site), benchSite(site)]);
  try {
    const cost = await measureFetchCost({ origins: web.sites.map((s) => s.origin), site, rounds: 2 });
    assert.equal(cost.pages, 24);
    assert.ok(cost.fetchSendMs > 0 && cost.serveReceiveMs > 0);
    for (const s of web.sites) {
      // robots.txt is never asked for; each page once in the warm-up round and twice measured.
      assert.equal(s.log.length, 3 * site.pagesPerSite, `${s.host} served every page three times`);
    }
  } finally {
    await web.close();
  }
});
