/**
 * PostgreSQL stopped in the middle of a crawl (`pg_ctl stop -m immediate`, as a crash or a pulled cable would
 * leave it) and started again: the crawler primary waits it out instead of crashing (one primary from start to
 * end, no restart), keeps what it fetched, and finishes the crawl by itself once the server is back, with every
 * page stored exactly once and fetched once. Judged from the sites' request logs, the primary's messages to the
 * server and the PostgreSQL record.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSite, startTestWeb, waitFor } from '../../test-support/test-web.ts';
import { engineCrawlers } from '../../test-support/engine-crawler.ts';
import { heldSite } from '../../test-support/held-site.ts';

const crawlers = engineCrawlers();
const PAGES = 12;
/** The held site's page request whose answer waits until PostgreSQL is down (1 is its seed). */
const HELD = 4;

test('PostgreSQL halted mid-crawl and started again: the primary waits, loses nothing, and finishes by itself', {
  timeout: 180_000,
}, async () => {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const web = await startTestWeb([
    heldSite(generateSite({ pages: PAGES, prefix: 'held' }), (_path, n) => (n === HELD ? released : undefined)),
    generateSite({ pages: PAGES, prefix: 'steady', delayMs: 200 }),
  ]);
  const held = web.sites[0];
  const cluster = await crawlers.postgres();
  const crawler = await crawlers.start('postgres', { CRAWL_WORKERS: '2', CRAWL_DELAY_MS: '100' });
  let halted = false;
  try {
    for (const site of web.sites) await crawler.addSeed(site.url('/'), { depth: 1 });
    const heldRequest = await waitFor(
      async () => (await crawler.storedCounts()).n >= 3 && held.log.filter((r) => r.path !== '/robots.txt')[HELD - 1],
      { timeoutMs: 40_000, message: `pages stored and the held site's request ${HELD} waiting for its answer` },
    );
    const pid = crawler.primary.pid;
    const seen = crawler.messages.length;
    cluster.halt();
    halted = true;
    // Answered while PostgreSQL is down: its result can only be kept in memory.
    release();
    await waitFor(() => !Number.isNaN(heldRequest.end), { message: 'the held page to be answered' });
    const heldUrl = held.url(heldRequest.path);
    // The results cannot be stored: the primary says so, and keeps running.
    const outage = await waitFor(() => crawler.messages.slice(seen).find((m) => m.type === 'error'), {
      timeoutMs: 30_000,
      message: 'the primary to report that the database refuses writes',
    });
    assert.equal(crawler.primary.pid, pid, `the same primary runs: ${JSON.stringify(outage)}`);
    assert.equal(crawler.primary.exitCode, null, 'the primary did not exit');

    cluster.resume();
    halted = false;
    await waitFor(() => crawler.messages.slice(seen).some((m) => m.type === 'recovered'), {
      timeoutMs: 60_000,
      message: 'the primary to say the database takes writes again',
    });
    await crawler.waitIdle({ minDone: 2 * PAGES, timeoutMs: 90_000 });

    assert.equal(crawler.primary.pid, pid, 'the same primary finished the crawl');
    assert.equal(crawler.messages.filter((m) => m.type === 'started').length, 1, 'started once: no crash, no restart');
    assert.deepEqual(await crawler.storedCounts(), { n: 2 * PAGES, d: 2 * PAGES }, 'every page stored exactly once');
    assert.deepEqual(await crawler.states(), { done: 2 * PAGES }, 'nothing leased, failed or left queued');
    for (const site of web.sites) {
      const pages = site.log.filter((r) => r.path !== '/robots.txt').map((r) => r.path);
      assert.equal(new Set(pages).size, PAGES, `${site.host}: every page requested`);
      assert.equal(pages.length, PAGES, `${site.host}: no page requested twice (what was fetched was kept)`);
    }
    const stored = await crawler.rows<{ url: string }>('SELECT url FROM pages');
    assert.ok(
      stored.some((r) => r.url === heldUrl),
      `${heldUrl} (answered while PostgreSQL was down) stored`,
    );
    const requested = web.sites.flatMap((s) => s.log.filter((r) => r.path !== '/robots.txt').map((r) => s.url(r.path)));
    assert.deepEqual(
      stored.map((r) => r.url).sort(),
      requested.sort(),
      'every URL fetched is stored, those answered while PostgreSQL was down too',
    );
  } finally {
    release();
    if (halted) cluster.resume();
    await crawler.close();
    await web.close();
  }
});
