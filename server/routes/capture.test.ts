import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { CHROME_EXPORT, FIREFOX_EXPORT, largeBookmarkExport } from '../../test-support/bookmark-exports.ts';
import { seedQueries } from '../../db/seeds.ts';
import { openDatabase } from '../../db/open.ts';
import { IMPORT_RATE } from './capture.ts';

describe('POST /api/seeds/import, labels', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  const json = { 'content-type': 'application/json' };
  const importFile = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/seeds/import',
      payload: payload as string,
      headers: { ...json, ...headers },
    });
  const seeds = async (query = '') =>
    (await t.app.inject({ method: 'GET', url: `/api/seeds${query}` })).json().seeds as Array<{
      id: number;
      url: string;
      title: string | null;
      folder: string | null;
      labels: string[];
      depth: number;
      scope: string;
    }>;

  test('a Chrome export becomes seeds of depth 0 with titles, folders and labels; bad lines come back one by one', async () => {
    const res = await importFile({ file: CHROME_EXPORT });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(
      {
        format: body.format,
        entries: body.entries,
        created: body.created,
        merged: body.merged,
        duplicates: body.duplicates,
      },
      { format: 'netscape', entries: 7, created: 4, merged: 1, duplicates: 1 },
    );
    assert.deepEqual(
      body.refused.map((r: { line: number; error: string; title: string }) => [r.line, r.error, r.title]),
      [
        [19, 'unsupported-scheme', 'Show title'],
        [25, 'unsupported-scheme', 'Settings'],
      ],
    );
    const rust = (await seeds()).find((s) => s.url === 'https://doc.rust-lang.org/book/?x=1&y=2')!;
    assert.deepEqual(
      { title: rust.title, folder: rust.folder, labels: rust.labels, depth: rust.depth, scope: rust.scope },
      { title: 'The Rust <Book>', folder: 'Bookmarks bar / Dev Tools', labels: ['dev-tools'], depth: 0, scope: 'host' },
    );
    assert.deepEqual(
      (await seeds('?label=Dev%20Tools')).map((s) => s.url).sort(),
      ['https://doc.rust-lang.org/book/?x=1&y=2', 'https://xn--e1afmkfd.xn--p1ai/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F'],
      'the Seeds list filters by label (typed as the folder is named)',
    );
  });

  test('importing again merges: nothing new, an existing seed keeps its depth and crawl and gains the labels', async () => {
    const typed = await t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      headers: json,
      payload: { url: 'https://support.mozilla.example/products/firefox', depth: 3 },
    });
    assert.equal(typed.statusCode, 201);
    const db = openDatabase(t.dataDir);
    const before = seedQueries(db).seedsChangedSince(0).length;
    const res = await importFile({ file: FIREFOX_EXPORT, depth: 1, scope: 'path', labels: ['From Firefox'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().created, res.json().merged], [2, 1]);
    const all = await seeds();
    const merged = all.find((s) => s.url === 'https://support.mozilla.example/products/firefox')!;
    assert.deepEqual(
      { depth: merged.depth, labels: merged.labels, title: merged.title },
      { depth: 3, labels: ['from-firefox', 'mozilla-firefox'], title: 'Get Help' },
    );
    const greek = all.find((s) => s.url.startsWith('https://greek.example.org/'))!;
    assert.deepEqual(
      { depth: greek.depth, scope: greek.scope, labels: greek.labels },
      { depth: 1, scope: 'path', labels: ['from-firefox', 'ελληνικα'] },
    );
    assert.equal(
      seedQueries(db).seedsChangedSince(0).length,
      before + 2,
      'the merged seed is not taken for a resubmission (no re-crawl)',
    );
    const again = (await importFile({ file: CHROME_EXPORT })).json();
    assert.deepEqual([again.created, again.merged], [0, 5]);
    db.close();
  });

  test('the body is checked strictly: no coercion, no unknown fields, no empty file', async () => {
    const cases: Array<[unknown, string]> = [
      [{ file: CHROME_EXPORT, depth: '0' }, 'invalid-depth'],
      [{ file: CHROME_EXPORT, depth: 11 }, 'invalid-depth'],
      [{ file: CHROME_EXPORT, scope: 'site' }, 'invalid-scope'],
      [{ file: 42 }, 'invalid-file'],
      [{ file: '   ' }, 'invalid-file'],
      [{ file: CHROME_EXPORT, labels: 'x' }, 'invalid-label'],
      [{ file: CHROME_EXPORT, labels: ['!!!'] }, 'invalid-label'],
      [{ file: CHROME_EXPORT, extra: 1 }, 'invalid-body'],
      [[CHROME_EXPORT], 'invalid-body'],
      [{ file: '<html><body>no links here</body></html>\n' }, 'malformed'],
    ];
    for (const [payload, code] of cases) {
      const res = await importFile(payload);
      if (code === 'malformed') {
        assert.equal(res.json().refused[0].error, code, 'a line that is no URL is refused, not the file');
        continue;
      }
      assert.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 80));
      assert.equal(res.json().error, code, JSON.stringify(payload).slice(0, 80));
      // An unknown field is named as on every route (server/plugins/strict-input.ts); the others say the import's own words.
      assert.match(
        res.json().message,
        code === 'invalid-body' && !Array.isArray(payload)
          ? /^unknown field "extra"; send file, depth, scope and labels only$/
          : /^(import|labels): /,
      );
    }
    const notJson = await t.app.inject({
      method: 'POST',
      url: '/api/seeds/import',
      payload: 'https://a.example/',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(notJson.statusCode, 415);
    const crossSite = await importFile({ file: 'https://a.example/' }, { origin: 'https://evil.example' });
    assert.equal(crossSite.statusCode, 403, "another site's page cannot import");
  });

  test("a 10,000-bookmark export fits this route's body limit, while the other routes keep theirs", async () => {
    const file = largeBookmarkExport(10_000);
    assert.ok(file.length > 3_000_000);
    const res = await importFile({ file, labels: ['big'] });
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(res.json().created, 10_000);
    const big = await t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      headers: json,
      payload: { url: `https://a.example/${'x'.repeat(70_000)}` },
    });
    assert.equal(big.statusCode, 413, 'POST /api/seeds keeps its small limit');
    const labels = (await t.app.inject({ method: 'GET', url: '/api/labels' })).json().labels as Array<{
      label: string;
      seeds: number;
    }>;
    assert.deepEqual(
      labels.find((l) => l.label === 'big'),
      { label: 'big', seeds: 10_000 },
    );
  });

  test("PUT /api/seeds/:id/labels sets a seed's labels; POST /api/seeds takes labels and a title", async () => {
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      headers: json,
      payload: { url: 'https://labelled.example/', labels: ['Reading'], title: 'Labelled' },
    });
    assert.equal(made.statusCode, 201, made.body);
    const seed = made.json().seed;
    assert.deepEqual([seed.labels, seed.title], [['reading'], 'Labelled']);
    const put = (id: unknown, payload: unknown) =>
      t.app.inject({ method: 'PUT', url: `/api/seeds/${id}/labels`, headers: json, payload: payload as string });
    const res = await put(seed.id, { labels: ['Work', 'later', 'work'] });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json().seed.labels, ['later', 'work']);
    assert.deepEqual(
      (await seeds('?label=later')).map((s) => s.url),
      ['https://labelled.example/'],
    );
    assert.deepEqual((await put(seed.id, { labels: [] })).json().seed.labels, []);
    assert.equal((await put(999_999, { labels: ['x'] })).json().error, 'unknown-seed');
    assert.equal((await put(seed.id, { labels: ['?'] })).json().error, 'invalid-label');
    assert.equal((await put(seed.id, { labels: ['x'], url: 'y' })).statusCode, 400);
  });

  test('the labels route and the new fields of POST /api/seeds are strict: no coercion, each refusal its own code', async () => {
    const made = await t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      headers: json,
      payload: { url: 'https://strict.example/' },
    });
    const id = made.json().seed.id as number;
    const post = (payload: unknown) =>
      t.app.inject({ method: 'POST', url: '/api/seeds', headers: json, payload: payload as string });
    const put = (path: string, payload: unknown) =>
      t.app.inject({ method: 'PUT', url: `/api/seeds/${path}/labels`, headers: json, payload: payload as string });
    const cases: Array<[string, Awaited<ReturnType<typeof post>>, string, RegExp]> = [
      [
        'POST depth "0"',
        await post({ url: 'https://strict.example/a', depth: '0' }),
        'invalid-depth',
        /^depth must be an integer from 0 to 10/,
      ],
      [
        'POST labels "a"',
        await post({ url: 'https://strict.example/a', labels: 'a' }),
        'invalid-label',
        /^seeds: labels must be an array of at most 20 strings/,
      ],
      [
        'POST labels [1]',
        await post({ url: 'https://strict.example/a', labels: [1] }),
        'invalid-label',
        /^seeds: labels must be an array/,
      ],
      [
        'POST 21 labels',
        await post({ url: 'https://strict.example/a', labels: Array.from({ length: 21 }, (_, i) => `l${i}`) }),
        'invalid-label',
        /^seeds: labels must be an array of at most 20/,
      ],
      [
        'POST title 5',
        await post({ url: 'https://strict.example/a', title: 5 }),
        'invalid-title',
        /^seeds: title must be a string/,
      ],
      ['PUT labels "a"', await put(String(id), { labels: 'a' }), 'invalid-label', /^labels: labels must be an array/],
      [
        'PUT labels [null]',
        await put(String(id), { labels: [null] }),
        'invalid-label',
        /^labels: labels must be an array/,
      ],
      ['PUT no labels', await put(String(id), {}), 'invalid-label', /^labels: labels must be an array/],
      ['PUT an array', await put(String(id), ['a']), 'invalid-body', /^labels: send a JSON object/],
      ['PUT id 1e0', await put('1e0', { labels: ['a'] }), 'invalid-id', /^the seed id must be a whole number/],
      ['PUT id 0', await put('0', { labels: ['a'] }), 'invalid-id', /^the seed id must be a whole number/],
    ];
    for (const [what, res, code, message] of cases) {
      assert.equal(res.statusCode, 400, `${what}: ${res.body}`);
      assert.deepEqual([res.json().error, message.test(res.json().message)], [code, true], `${what}: ${res.body}`);
    }
    const after = (await t.app.inject({ method: 'GET', url: '/api/seeds' })).json().seeds as Array<{
      url: string;
      labels: string[];
    }>;
    assert.equal(after.filter((s) => s.url === 'https://strict.example/a').length, 0, 'nothing refused was stored');
    assert.deepEqual(after.find((s) => s.url === 'https://strict.example/')!.labels, [], 'no refused label was set');
  });

  test('GET /api/seeds pages through every seed with limit and offset; total says how many there are', async () => {
    const page = async (query: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/seeds${query}` })).json() as {
        seeds: Array<{ id: number }>;
        total: number;
      };
    const first = await page('');
    assert.ok(first.total > 10_000, `the 10,000 imported are counted: ${first.total}`);
    assert.equal(first.seeds.length, 500, 'at most 500 by default');
    const all: number[] = [];
    for (let offset = 0; offset < first.total; offset += 500)
      all.push(...(await page(`?limit=500&offset=${offset}`)).seeds.map((s) => s.id));
    assert.equal(all.length, first.total, 'every seed is reached, page by page');
    assert.equal(new Set(all).size, all.length, 'no seed twice');
    assert.deepEqual(
      all,
      [...all].sort((a, b) => b - a),
      'newest first throughout',
    );
    const big = await page('?label=big&limit=3&offset=9998');
    assert.deepEqual([big.seeds.length, big.total], [2, 10_000], 'a label pages the same way');
    for (const query of ['?limit=0', '?limit=501', '?limit=1e1', '?offset=-1', '?offset=01', '?limit=5&limit=6']) {
      const res = await t.app.inject({ method: 'GET', url: `/api/seeds${query}` });
      assert.deepEqual([res.statusCode, res.json().error], [400, 'invalid-query'], query);
      assert.match(res.json().message, /^seeds: (limit|offset) must be an integer/, query);
    }
  });
});

describe('POST /api/seeds/import, rate', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  test(`${IMPORT_RATE.burst} imports at once, then 429 with Retry-After; a refused body does not count`, async () => {
    const send = (payload: unknown) =>
      t.app.inject({
        method: 'POST',
        url: '/api/seeds/import',
        headers: { 'content-type': 'application/json' },
        payload: payload as string,
      });
    for (let i = 0; i < 5; i++)
      assert.equal((await send({ file: 'x', depth: '1' })).statusCode, 400, 'refused before the limit is asked');
    // Sent at once: each import is read in a thread of its own, one after the other, which takes longer
    // than the 5 s a token takes to come back; the limit is taken as each request arrives.
    const sent = await Promise.all(
      Array.from({ length: IMPORT_RATE.burst + 1 }, (_, i) =>
        send({ file: i < IMPORT_RATE.burst ? `https://rate${i}.example/` : 'https://rate-over.example/' }),
      ),
    );
    for (const [i, res] of sent.slice(0, IMPORT_RATE.burst).entries())
      assert.equal(res.statusCode, 200, `import ${i + 1}: ${res.body}`);
    const over = sent[IMPORT_RATE.burst];
    assert.equal(over.statusCode, 429, over.body);
    assert.equal(over.json().error, 'rate-limited');
    assert.match(over.json().message, /^import: too many imports at once; try again in \d+ s$/);
    assert.ok(Number(over.headers['retry-after']) >= 1, `Retry-After: ${over.headers['retry-after']}`);
    const urls = (
      (await t.app.inject({ method: 'GET', url: '/api/seeds' })).json().seeds as Array<{ url: string }>
    ).map((s) => s.url);
    assert.equal(urls.includes('https://rate-over.example/'), false, 'the refused import stored nothing');
  });
});
