/**
 * Removing a seed through a real cluster, in the middle of its crawl: the crawler stops contacting
 * its site (queued URLs dropped without a request, a result in flight not stored), its URLs are
 * deleted and its pages leave the full-text index, while another seed's crawl goes on untouched.
 * Submitting the seed again crawls it afresh.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSite, generatedDepth, uniqueToken } from '../../test-support/generate.ts';
import { politenessReport, startTestWeb, waitFor, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';

const DELAY_MS = 100;
const A_PAGES = 40; // about 4 s at one request per 100 ms: removed long before it is done
const B_PAGES = 12;

describe('a seed removed while it is crawled', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let a: TestSite;
  let b: TestSite;
  /** When the removal was applied: A's URLs deleted and its pages out of search. */
  let appliedAt = 0;
  let storedBefore = 0;

  const searchable = (word: string): number =>
    (crawler.db.prepare('SELECT COUNT(*) AS n FROM pages_fts WHERE pages_fts MATCH ?').get(word) as { n: number }).n;
  const indexedOf = (origin: string): number =>
    (
      crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE origin = ? AND indexed = 1').get(origin) as {
        n: number;
      }
    ).n;
  const seedRow = (url: string) => crawler.db.prepare('SELECT id FROM seeds WHERE url = ?').get(url);

  before(async () => {
    web = await startTestWeb([
      generateSite({ pages: A_PAGES, prefix: 'alpha' }),
      generateSite({ pages: B_PAGES, prefix: 'beta' }),
    ]);
    [a, b] = web.sites;
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    crawler.addSeed(a.url('/'), { depth: generatedDepth(A_PAGES) });
    await waitFor(() => indexedOf(a.origin) >= 5, { timeoutMs: 30_000, message: '5 pages of A stored' });
    storedBefore = indexedOf(a.origin);
    assert.ok(crawler.removeSeed(a.url('/')));
    await waitFor(
      () =>
        seedRow(a.url('/')) === undefined &&
        Object.keys(crawler.states(a.origin)).length === 0 &&
        indexedOf(a.origin) === 0,
      {
        timeoutMs: 30_000,
        message: 'the removal applied: seed row, URLs and searchable pages of A gone',
      },
    );
    appliedAt = performance.timeOrigin + performance.now();
    // Another seed crawled from now on: time in which A, were its queue not dropped, would be asked again and again.
    crawler.addSeed(b.url('/'), { depth: generatedDepth(B_PAGES) });
    await crawler.waitIdle({ origin: b.origin, minDone: B_PAGES, timeoutMs: 30_000 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test("the removed seed's site is not contacted once the removal is applied", () => {
    assert.ok(storedBefore < A_PAGES, 'removed in the middle of the crawl');
    const late = a.log.filter((r) => r.start > appliedAt);
    assert.deepEqual(
      late.map((r) => r.path),
      [],
      'no request to A after the removal was applied',
    );
    assert.ok(a.log.length < A_PAGES + 1, `A was not crawled to the end (${a.log.length} requests)`);
  });

  test('its pages leave the full-text index; the other seed is crawled and searchable in full', () => {
    assert.equal(searchable(uniqueToken(0, 'alpha')), 0);
    assert.equal(searchable(uniqueToken(1, 'alpha')), 0);
    assert.equal(indexedOf(b.origin), B_PAGES);
    assert.equal(searchable(uniqueToken(B_PAGES - 1, 'beta')), 1);
    assert.deepEqual(politenessReport(a.log, DELAY_MS).violations, []);
    assert.deepEqual(politenessReport(b.log, DELAY_MS).violations, []);
  });

  test('submitted again, the seed is crawled afresh and found again', async () => {
    const before = a.requestsTo('/').length;
    crawler.addSeed(a.url('/'), { depth: 0 });
    await waitFor(() => indexedOf(a.origin) === 1, { timeoutMs: 30_000, message: 'the seed page of A stored again' });
    assert.equal(a.requestsTo('/').length, before + 1);
    assert.equal(searchable(uniqueToken(0, 'alpha')), 1);
    assert.equal(searchable(uniqueToken(1, 'alpha')), 0, 'depth 0 now: only the seed page');
    assert.deepEqual(politenessReport(a.log, DELAY_MS).violations, []);
  });
});

describe('a seed removed while the crawler is down', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('is removed when the crawler starts again', async () => {
    web = await startTestWeb([generateSite({ pages: 4, prefix: 'gamma' })]);
    const site = web.sites[0];
    crawler = startCrawler({ CRAWL_WORKERS: '1', CRAWL_DELAY_MS: '20' });
    crawler.addSeed(site.url('/'), { depth: 2 });
    await crawler.waitIdle({ origin: site.origin, minDone: 4, timeoutMs: 30_000 });
    await crawler.kill('SIGKILL');
    assert.ok(crawler.removeSeed(site.url('/')), 'marked removed, as the server does while the crawler is gone');
    await crawler.restart();
    const indexed = () =>
      (crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE indexed = 1').get() as { n: number }).n;
    await waitFor(() => indexed() === 0 && crawler.db.prepare('SELECT 1 FROM seeds').get() === undefined, {
      timeoutMs: 30_000,
      message: 'the removal applied after the restart',
    });
    assert.equal((crawler.db.prepare('SELECT COUNT(*) AS n FROM frontier').get() as { n: number }).n, 0);
    assert.equal(
      (
        crawler.db
          .prepare('SELECT COUNT(*) AS n FROM pages_fts WHERE pages_fts MATCH ?')
          .get(uniqueToken(2, 'gamma')) as { n: number }
      ).n,
      0,
    );
  });
});
