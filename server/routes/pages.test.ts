import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase } from '../../db/open.ts';
import { pageQueries } from '../../db/pages.ts';
import { makePage } from '../../test-support/test-corpus.ts';
import { createTestApp } from '../test-app.ts';
import { STORED_TEXT_MAX_CHARS } from './pages.ts';

describe('GET /api/pages?url=', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  const get = (url: string) => t.app.inject({ method: 'GET', url: `/api/pages?url=${encodeURIComponent(url)}` });

  before(async () => {
    t = await createTestApp();
    const db = openDatabase(t.dataDir); // as the crawler primary writes pages
    const pages = pageQueries(db);
    pages.upsertPage(
      makePage('https://site.example/a', {
        title: '<script>alert(1)</script> Title',
        headings: ['First'],
        body: 'Body text\nsecond line',
        fetchedAt: Date.UTC(2026, 0, 2),
      }),
    );
    pages.upsertPage(
      makePage('https://site.example/hidden', {
        title: 'Hidden',
        body: 'not for search',
        noindex: true,
        indexed: false,
      }),
    );
    pages.upsertPage(
      makePage('https://site.example/long', { title: 'Long', body: 'x'.repeat(STORED_TEXT_MAX_CHARS + 10) }),
    );
    pages.upsertPage(
      makePage('https://site.example/private-copy', {
        title: 'No copy',
        body: 'searchable, not shown',
        noarchive: true,
      }),
    );
    db.close();
  });
  after(async () => {
    await t.close();
  });

  test("a stored page's text, as plain text, looked up by its URL as typed or normalized", async () => {
    for (const url of ['https://site.example/a', 'HTTPS://Site.Example:443/a#top']) {
      const res = await get(url);
      assert.equal(res.statusCode, 200, res.body);
      const { page } = res.json();
      assert.deepEqual(
        {
          url: page.url,
          title: page.title,
          headings: page.headings,
          text: page.text,
          truncated: page.truncated,
          fetchedAt: page.fetchedAt,
        },
        {
          url: 'https://site.example/a',
          title: '<script>alert(1)</script> Title',
          headings: ['First'],
          text: 'Body text\nsecond line',
          truncated: false,
          fetchedAt: '2026-01-02T00:00:00.000Z',
        },
      );
    }
  });

  test('a page that said noarchive is searchable but its stored text is not shown: 403, in words', async () => {
    const res = await get('https://site.example/private-copy');
    assert.equal(res.statusCode, 403);
    assert.deepEqual(res.json(), {
      error: 'no-archive',
      message:
        'pages: https://site.example/private-copy asks that its stored copy not be shown (noarchive); open the page itself',
    });
  });

  test('a very long text is cut, and the answer says so', async () => {
    const { page } = (await get('https://site.example/long')).json();
    assert.equal(page.text.length, STORED_TEXT_MAX_CHARS);
    assert.equal(page.truncated, true);
  });

  test('a page out of search, an unknown page and a bad URL are clear 4xx', async () => {
    for (const url of ['https://site.example/hidden', 'https://site.example/nothing']) {
      const res = await get(url);
      assert.equal(res.statusCode, 404);
      assert.equal(res.json().error, 'unknown-page');
      assert.match(res.json().message, /no searchable page stored for https:\/\/site\.example\//);
    }
    const bad = await get('not a url');
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().error, 'malformed');
    const missing = await t.app.inject({ method: 'GET', url: '/api/pages' });
    assert.equal(missing.statusCode, 400);
  });
});
