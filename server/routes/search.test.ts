import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { CORPUS } from '../../test-support/test-corpus.ts';
import { pageQueries } from '../../db/pages.ts';
import { createTestApp } from '../test-app.ts';

// The whole app, as the browser reaches it: the routes find the search service where the services plugin put it.
let t: Awaited<ReturnType<typeof createTestApp>>;
let app: Awaited<ReturnType<typeof createTestApp>>['app'];

before(async () => {
  t = await createTestApp();
  app = t.app;
  const pages = pageQueries(app.db); // the crawler's writes, on the test's SQLite file
  for (const p of Object.values(CORPUS)) pages.upsertPage(p);
  app.searcher.refresh();
});
after(async () => {
  await t.close();
});

test('GET /api/search answers in the documented shape', async () => {
  const res = await app.inject({ method: 'GET', url: '/api/search', query: { q: 'andromeda', limit: '5' } });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), [
    'correction',
    'indexing',
    'mode',
    'notice',
    'query',
    'results',
    'tookMs',
    'total',
  ]);
  assert.equal(body.query, 'andromeda');
  assert.equal(body.total, 1);
  assert.equal(body.mode, 'and');
  assert.equal(body.notice, null);
  assert.equal(body.indexing, false);
  const [r] = body.results;
  assert.deepEqual(Object.keys(r).sort(), [
    'fetchedAt',
    'fileType',
    'host',
    'labels',
    'missing',
    'moreFromSite',
    'page',
    'score',
    'snippet',
    'stored',
    'title',
    'url',
  ]);
  assert.equal(r.url, CORPUS.galaxies.url);
  assert.ok(r.snippet.some((p: { text: string; match: boolean }) => p.match && p.text === 'Andromeda'));
});

test('limit and offset default, page, and are validated', async () => {
  const all = (await app.inject({ url: '/api/search?q=collection' })).json();
  assert.equal(all.results.length, 10);
  // Pages are dealt in pages of `limit` (at most two of a site on one): paged with one limit, each result once.
  const first = (await app.inject({ url: '/api/search?q=collection&limit=5&offset=0' })).json();
  const second = (await app.inject({ url: '/api/search?q=collection&limit=5&offset=5' })).json();
  const urls = [...first.results, ...second.results].map((r: { url: string }) => r.url);
  assert.equal(new Set(urls).size, 10);
  assert.deepEqual([first.total, second.total], [all.total, all.total]);
  for (const bad of ['limit=0', 'limit=51', 'offset=-1', 'offset=1001', 'limit=abc']) {
    const res = await app.inject({ url: `/api/search?q=collection&${bad}` });
    assert.equal(res.statusCode, 400, bad);
  }
});

test('site: alone lists that site, newest first, in the documented shape, paged', async () => {
  const host = new URL(CORPUS.galaxies.url).host;
  const res = await app.inject({ url: '/api/search', query: { q: `site:${host}`, limit: '1' } });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  const count = Object.values(CORPUS).filter((p) => p.host === host).length;
  assert.equal(body.total, count);
  assert.equal(body.results.length, 1);
  assert.equal(body.results[0].host, host);
  assert.deepEqual([body.results[0].missing, body.results[0].moreFromSite], [[], false]);
});

test('nothing searchable → 400 bad-query; hostile text → 200 or 400, never 500', async () => {
  for (const q of ['', '   ', '-only', '***', '-site:example.org']) {
    const res = await app.inject({ url: '/api/search', query: { q } });
    assert.equal(res.statusCode, 400, JSON.stringify(q));
    assert.equal(res.json().error, 'bad-query');
    assert.match(res.json().message, /^search: /);
  }
  const missing = await app.inject({ url: '/api/search' });
  assert.equal(missing.statusCode, 400);
  for (const q of [
    '"',
    'NEAR(',
    'a:b',
    '^x',
    'AND OR NOT',
    '"unbalanced phrase',
    'x*y*',
    '\u0000a',
    'k'.repeat(1000),
    '(("a',
    'title:x OR body:y',
  ]) {
    const res = await app.inject({ url: '/api/search', query: { q } });
    assert.ok(
      res.statusCode === 200 || res.statusCode === 400,
      `${JSON.stringify(q.slice(0, 20))} → ${res.statusCode}`,
    );
    const sres = await app.inject({ url: '/api/suggest', query: { q } });
    assert.equal(sres.statusCode, 200);
  }
});

test('a query string that is too long, or gives q twice, is a 400 that says what to change', async () => {
  for (const url of ['/api/search', '/api/suggest']) {
    for (const query of [`q=telescope+${'x'.repeat(1000)}`, 'q=telescope&q=andromeda']) {
      const res = await app.inject({ url: `${url}?${query}` });
      assert.equal(res.statusCode, 400, `${url}?${query.slice(0, 30)}`);
      assert.deepEqual(res.json(), {
        error: 'invalid-query',
        message: 'q must be given once, as text of at most 1000 characters',
      });
    }
  }
  const longest = await app.inject({ url: '/api/search', query: { q: `telescope ${'x'.repeat(990)}` } });
  assert.equal(longest.statusCode, 200);
  assert.equal(longest.json().query.length, 1000);
});

test('GET /api/suggest answers completions', async () => {
  const res = await app.inject({ url: '/api/suggest?q=tele&limit=4' });
  assert.equal(res.statusCode, 200);
  const body = res.json();
  assert.equal(body.query, 'tele');
  assert.ok(body.suggestions.length > 0 && body.suggestions.length <= 4);
  assert.ok(body.suggestions.some((s: { kind: string; text: string }) => s.kind === 'term' && s.text === 'telescope'));
  assert.ok(
    body.suggestions.some((s: { kind: string; url?: string }) => s.kind === 'title' && s.url === CORPUS.telescope.url),
  );
  assert.deepEqual((await app.inject({ url: '/api/suggest' })).json(), { query: '', suggestions: [] });
  assert.equal((await app.inject({ url: '/api/suggest?q=x&limit=21' })).statusCode, 400);
});

test('GET /api/suggest?format=opensearch answers in the OpenSearch suggestions format a browser reads', async () => {
  const res = await app.inject({ url: '/api/suggest?q=tele&format=opensearch' });
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/x-suggestions\+json/);
  const [query, texts] = res.json();
  assert.equal(query, 'tele');
  assert.ok(Array.isArray(texts) && texts.includes('telescope'));
});
