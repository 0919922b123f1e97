/**
 * Submitting a seed again re-crawls what it found, through a real cluster: every URL within the
 * seed's depth is fetched again, spaced like any request; a page stored with an ETag or Last-Modified
 * is asked for conditionally, so an unchanged page costs the site a 304 and keeps its stored entry,
 * while a changed page replaces its old text in the full-text index.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type http from 'node:http';
import { politenessReport, startTestWeb, waitFor, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { NOT_MODIFIED } from '../coordination/page-outcome.ts';

const DELAY_MS = 50;
const LAST_MODIFIED = 'Wed, 01 Jan 2025 00:00:00 GMT';
const PAGES = ['/', '/etag', '/dated', '/changed', '/plain'];

function html(title: string, text: string, links: string[] = []): string {
  return (
    `<!doctype html><html><head><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p>` +
    links.map((l) => `<a href="${l}">${l}</a>`).join(' ') +
    '</body></html>'
  );
}

describe('a seed submitted again is re-crawled, conditionally where the site allows', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let site: TestSite;
  /** The conditional headers of every request to a page, in order. */
  const conditions = new Map<string, Array<{ ifNoneMatch?: string; ifModifiedSince?: string }>>();
  let changed = false;

  const record = (req: http.IncomingMessage): void => {
    const list = conditions.get(req.url!) ?? [];
    list.push({ ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'] });
    conditions.set(req.url!, list);
  };
  const send = (res: http.ServerResponse, status: number, headers: Record<string, string>, body = ''): void => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers }).end(body);
  };
  const searchable = (word: string): boolean =>
    (crawler.db.prepare('SELECT COUNT(*) AS n FROM pages_fts WHERE pages_fts MATCH ?').get(word) as { n: number }).n >
    0;
  const statuses = (path: string): number[] => site.requestsTo(path).map((r) => r.status);

  before(async () => {
    web = await startTestWeb([
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: {
          '/': {
            handler: (req, res) => {
              record(req);
              send(res, 200, {}, html('Home', 'homeword', PAGES.slice(1)));
            },
          },
          '/etag': {
            handler: (req, res) => {
              record(req);
              if (req.headers['if-none-match'] === '"e1"') send(res, 304, { etag: '"e1"' });
              else send(res, 200, { etag: '"e1"' }, html('Tagged', 'etagword'));
            },
          },
          '/dated': {
            handler: (req, res) => {
              record(req);
              if (req.headers['if-modified-since'] === LAST_MODIFIED)
                send(res, 304, { 'last-modified': LAST_MODIFIED });
              else send(res, 200, { 'last-modified': LAST_MODIFIED }, html('Dated', 'datedword'));
            },
          },
          '/changed': {
            handler: (req, res) => {
              record(req);
              const etag = changed ? '"v2"' : '"v1"';
              if (req.headers['if-none-match'] === etag) send(res, 304, { etag });
              else send(res, 200, { etag }, html('Changing', changed ? 'secondversionword' : 'firstversionword'));
            },
          },
          '/plain': {
            handler: (req, res) => {
              record(req);
              send(res, 200, {}, html('Plain', changed ? 'plainnewword' : 'plainoldword'));
            },
          },
        },
      },
    ]);
    site = web.sites[0];
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    crawler.addSeed(site.url('/'), { depth: 1 });
    await crawler.waitIdle({ origin: site.origin, minDone: PAGES.length, timeoutMs: 30_000 });
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('the first crawl asks for nothing conditionally', () => {
    for (const path of PAGES)
      assert.deepEqual(conditions.get(path), [{ ifNoneMatch: undefined, ifModifiedSince: undefined }], path);
    assert.ok(searchable('etagword') && searchable('firstversionword') && searchable('plainoldword'));
  });

  test('submitted again: every page is fetched again, unchanged ones answer 304 and keep their entry, changed ones are replaced', async () => {
    const fetchedAt = (path: string) =>
      (crawler.db.prepare('SELECT fetched_at AS t FROM pages WHERE url = ?').get(site.url(path)) as { t: number }).t;
    const firstFetch = fetchedAt('/etag');
    changed = true;
    crawler.addSeed(site.url('/'), { depth: 1 });
    await waitFor(() => PAGES.every((p) => site.requestsTo(p).length === 2), {
      timeoutMs: 30_000,
      message: 'every page of the seed requested a second time',
    });
    await crawler.waitIdle({ origin: site.origin, timeoutMs: 30_000 });

    assert.deepEqual(conditions.get('/etag')?.[1], { ifNoneMatch: '"e1"', ifModifiedSince: undefined });
    assert.deepEqual(conditions.get('/dated')?.[1], { ifNoneMatch: undefined, ifModifiedSince: LAST_MODIFIED });
    assert.deepEqual(conditions.get('/changed')?.[1], { ifNoneMatch: '"v1"', ifModifiedSince: undefined });
    assert.deepEqual(
      conditions.get('/plain')?.[1],
      { ifNoneMatch: undefined, ifModifiedSince: undefined },
      'no validators, no condition',
    );
    assert.deepEqual(statuses('/etag'), [200, 304]);
    assert.deepEqual(statuses('/dated'), [200, 304]);
    assert.deepEqual(statuses('/changed'), [200, 200]);

    // Unchanged pages keep their stored text; changed ones show only their new text.
    assert.ok(searchable('etagword') && searchable('datedword'), 'a 304 keeps the stored page searchable');
    assert.equal(crawler.frontier(site.url('/etag'))?.lastError, NOT_MODIFIED);
    assert.equal(crawler.frontier(site.url('/etag'))?.state, 'done');
    assert.ok(
      fetchedAt('/etag') >= site.requestsTo('/etag')[1].start - 1000 && fetchedAt('/etag') > firstFetch,
      'the page shows when it was last confirmed current',
    );
    assert.ok(searchable('secondversionword') && !searchable('firstversionword'), 'the changed page was replaced');
    assert.ok(searchable('plainnewword') && !searchable('plainoldword'));

    assert.equal(site.requestsTo('/robots.txt').length, 1, 'robots.txt is remembered, not fetched again');
    assert.deepEqual(politenessReport(site.log, DELAY_MS).violations, [], 'the re-crawl is spaced like the crawl');
  });

  test('submitted again with a smaller depth: only what lies within it is fetched again', async () => {
    crawler.addSeed(site.url('/'), { depth: 0 });
    await waitFor(() => site.requestsTo('/').length === 3, {
      timeoutMs: 30_000,
      message: 'the seed requested a third time',
    });
    await crawler.waitIdle({ origin: site.origin, timeoutMs: 30_000 });
    for (const path of PAGES.slice(1))
      assert.equal(site.requestsTo(path).length, 2, `${path} lies one link deep: not fetched again`);
  });
});
