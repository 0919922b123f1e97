import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb } from '../../test-support/test-web.ts';
import { benchSite } from './bench-pages.ts';
import { measureCrawlee } from './crawlee-side.ts';

// The side-by-side's one-per-host variant against real loopback sites, with crawlee pushed to run 8 tasks
// from the start (its default starts at 1 and may never get there on a busy machine). The default variant
// under the same push is the control: it does put several requests to one host in flight, so the count can see it.
test('crawlee held to one request per host never has two in flight to one host; unheld, it does', async () => {
  const pagesPerSite = 30;
  const spec = benchSite({ pagesPerSite, bodyBytes: 30_000 });
  const web = await startTestWeb([spec, spec, spec]);
  try {
    const held = await measureCrawlee({
      sites: web.sites,
      pagesPerSite,
      variant: 'one-per-host',
      timeoutMs: 120_000,
      minConcurrency: 8,
    });
    assert.equal(held.pages, 90, 'every page crawled');
    assert.equal(held.failed, 0);
    assert.equal(held.crawlerMaxInFlightPerHost, 1);
    assert.equal(held.maxInFlightPerHost, 1, "the sites' logs agree");
    assert.ok((held.crawlerMaxInFlight ?? 0) >= 2, `the hosts were crawled at once (${held.crawlerMaxInFlight})`);
    const unheld = await measureCrawlee({
      sites: web.sites,
      pagesPerSite,
      variant: 'default',
      timeoutMs: 120_000,
      minConcurrency: 8,
    });
    assert.equal(unheld.pages, 90);
    assert.ok((unheld.crawlerMaxInFlightPerHost ?? 0) > 1, `unheld: ${unheld.crawlerMaxInFlightPerHost} per host`);
  } finally {
    await web.close();
  }
});
