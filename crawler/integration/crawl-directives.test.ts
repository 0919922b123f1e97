/**
 * Page-level robots directives through a real cluster: meta robots (and meta for our own product
 * token), X-Robots-Tag headers and rel="nofollow" links. noindex keeps a page out of search but its
 * links are followed; nofollow stores the page but follows none of its links; noarchive and nosnippet
 * are stored with the page (search and the stored-text view obey them). Judged from the site's
 * request log and the crawler's SQLite file (pages and the full-text index).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, type PageSpec, type TestSite, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';

/** A page with a unique search word `<name>word`, optional extra head markup, and links. */
function page(name: string, links: string[], head = ''): string {
  return (
    `<!doctype html><html><head><title>${name}</title>${head}</head><body><h1>${name}</h1>` +
    `<p>This page carries ${name.replace(/\W/g, '')}word.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`
  );
}

function withHeader(body: string, value: string): PageSpec {
  return { body, headers: { 'x-robots-tag': value } };
}

interface PageFlags {
  indexed: number;
  noindex: number;
  nofollow: number;
}

describe('robots directives through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let site: TestSite;
  let requested: Set<string>;

  const flags = (path: string): PageFlags | undefined =>
    crawler.db.prepare('SELECT indexed, noindex, nofollow FROM pages WHERE url = ?').get(site.url(path)) as
      | PageFlags
      | undefined;
  const searchable = (word: string): boolean =>
    (crawler.db.prepare('SELECT COUNT(*) AS n FROM pages_fts WHERE pages_fts MATCH ?').get(word) as { n: number }).n >
    0;

  before(async () => {
    web = await startTestWeb([
      {
        robots: 'User-agent: *\nAllow: /\n',
        pages: {
          '/':
            `<!doctype html><html><head><title>Home</title></head><body><h1>Home</h1>` +
            [
              '/noindex',
              '/nofollow',
              '/none',
              '/token',
              '/other-bot',
              '/xrobots',
              '/xrobots-nofollow',
              '/noarchive',
              '/nosnippet',
            ]
              .map((l) => `<a href="${l}">${l}</a>`)
              .join(' ') +
            ` <a rel="nofollow" href="/rel-nofollow">sponsored</a> <a rel="external NOFOLLOW" href="/rel-nofollow-2">ad</a></body></html>`,
          '/noindex': page('noindex', ['/from-noindex'], '<meta name="robots" content="noindex">'),
          '/nofollow': page('nofollow', ['/from-nofollow'], '<meta name="robots" content="nofollow">'),
          '/none': page('none', ['/from-none'], '<meta name="robots" content="none">'),
          '/token': page('token', ['/from-token'], '<meta name="LanternBot" content="noindex, nofollow">'),
          '/other-bot': page('otherbot', ['/from-other-bot'], '<meta name="OtherBot" content="noindex, nofollow">'),
          '/xrobots': withHeader(page('xrobots', ['/from-xrobots']), 'noindex'),
          '/xrobots-nofollow': withHeader(page('xrobotsnofollow', ['/from-xrobots-nofollow']), 'nofollow'),
          '/noarchive': page('noarchive', [], '<meta name="robots" content="noarchive">'),
          '/nosnippet': withHeader(page('nosnippet', []), 'nosnippet'),
          '/from-noindex': page('fromnoindex', []),
          '/from-xrobots': page('fromxrobots', []),
          '/from-other-bot': page('fromotherbot', []),
          '/from-nofollow': page('fromnofollow', []),
          '/from-none': page('fromnone', []),
          '/from-token': page('fromtoken', []),
          '/from-xrobots-nofollow': page('fromxrobotsnofollow', []),
          '/rel-nofollow': page('relnofollow', []),
          '/rel-nofollow-2': page('relnofollow2', []),
        },
      },
    ]);
    site = web.sites[0];
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: '100' });
    crawler.addSeed(site.url('/'), { depth: 3 });
    await crawler.waitIdle({ origin: site.origin, minDone: 13, timeoutMs: 40_000 });
    requested = new Set(site.log.map((r) => r.path));
  });

  after(async () => {
    await crawler?.close();
    await web?.close();
  });

  test('exactly the expected pages were requested, each once', () => {
    const expected = [
      '/robots.txt',
      '/',
      '/noindex',
      '/nofollow',
      '/none',
      '/token',
      '/other-bot',
      '/xrobots',
      '/xrobots-nofollow',
      '/noarchive',
      '/nosnippet',
      '/from-noindex',
      '/from-xrobots',
      '/from-other-bot',
    ];
    assert.deepEqual(site.log.map((r) => r.path).sort(), expected.sort());
  });

  test('meta robots noindex: stored with indexed=0, out of search, its links followed', () => {
    assert.deepEqual(flags('/noindex'), { indexed: 0, noindex: 1, nofollow: 0 });
    assert.equal(searchable('noindexword'), false);
    assert.ok(requested.has('/from-noindex'));
    assert.deepEqual(flags('/from-noindex'), { indexed: 1, noindex: 0, nofollow: 0 });
    assert.equal(searchable('fromnoindexword'), true);
  });

  test('meta robots nofollow: stored and searchable, its links not followed (not even queued)', () => {
    assert.deepEqual(flags('/nofollow'), { indexed: 1, noindex: 0, nofollow: 1 });
    assert.equal(searchable('nofollowword'), true);
    assert.ok(!requested.has('/from-nofollow'));
    assert.equal(crawler.frontier(site.url('/from-nofollow')), undefined);
  });

  test('meta robots none, and noindex,nofollow for our own product token: out of search, links not followed', () => {
    for (const p of ['/none', '/token']) assert.deepEqual(flags(p), { indexed: 0, noindex: 1, nofollow: 1 }, p);
    assert.ok(!requested.has('/from-none') && !requested.has('/from-token'));
  });

  test("another bot's meta directives do not apply to us", () => {
    assert.deepEqual(flags('/other-bot'), { indexed: 1, noindex: 0, nofollow: 0 });
    assert.ok(requested.has('/from-other-bot'));
  });

  test('X-Robots-Tag: noindex and X-Robots-Tag: nofollow headers are obeyed', () => {
    assert.deepEqual(flags('/xrobots'), { indexed: 0, noindex: 1, nofollow: 0 });
    assert.equal(searchable('xrobotsword'), false);
    assert.ok(requested.has('/from-xrobots'));
    assert.deepEqual(flags('/xrobots-nofollow'), { indexed: 1, noindex: 0, nofollow: 1 });
    assert.ok(!requested.has('/from-xrobots-nofollow'));
  });

  test('noarchive (meta) and nosnippet (X-Robots-Tag) pages stay searchable, with what they forbid to show stored', () => {
    const shown = (path: string) =>
      crawler.db.prepare('SELECT indexed, noarchive, nosnippet FROM pages WHERE url = ?').get(site.url(path));
    assert.deepEqual(shown('/noarchive'), { indexed: 1, noarchive: 1, nosnippet: 0 });
    assert.deepEqual(shown('/nosnippet'), { indexed: 1, noarchive: 0, nosnippet: 1 });
    assert.deepEqual(shown('/'), { indexed: 1, noarchive: 0, nosnippet: 0 });
    assert.equal(searchable('noarchiveword'), true);
    assert.equal(searchable('nosnippetword'), true);
  });

  test('rel="nofollow" links are not followed (not even queued)', () => {
    for (const p of ['/rel-nofollow', '/rel-nofollow-2']) {
      assert.ok(!requested.has(p), `${p} not requested`);
      assert.equal(crawler.frontier(site.url(p)), undefined, `${p} not queued`);
    }
  });
});
