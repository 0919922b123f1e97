import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { openDatabase } from '../../db/open.ts';

/** The Seeds library's routes: GET /api/seeds with q, state, sort and paging; POST /api/seeds/bulk. */
describe('GET /api/seeds as a library: search, filters, order, pages', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  const ids: Record<string, number> = {};
  before(async () => {
    t = await createTestApp();
    const add = async (url: string, title: string, labels: string[] = []) => {
      const res = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url, title, labels } });
      assert.equal(res.statusCode, 201, res.body);
      ids[url] = res.json().seed.id;
    };
    await add('https://docs.python.org/3/', 'Python documentation', ['python']);
    await add('https://git-scm.com/docs', 'Git reference', ['vcs']);
    await add('https://example.org/big.pdf', 'A big manual');
    await add('https://cran.r-project.org/manuals.html', 'R manuals', ['stats', 'python-free']);
    // As the crawler primary writes it: the PDF was too large; git's page is done, one link still queued for R.
    const db = openDatabase(t.dataDir);
    const row = db.prepare(
      'INSERT INTO frontier (url, origin, seed_id, depth, redirects, discovered_at, state, finished_at, last_error) VALUES (?, ?, ?, 0, 0, 1, ?, 2, ?)',
    );
    row.run(
      'https://example.org/big.pdf',
      'https://example.org',
      ids['https://example.org/big.pdf'],
      'failed',
      'example.org: the response is larger than 5 MiB (CRAWL_MAX_BYTES)',
    );
    row.run('https://git-scm.com/docs', 'https://git-scm.com', ids['https://git-scm.com/docs'], 'done', null);
    row.run(
      'https://cran.r-project.org/manuals.html',
      'https://cran.r-project.org',
      ids['https://cran.r-project.org/manuals.html'],
      'done',
      null,
    );
    row.run(
      'https://cran.r-project.org/x.html',
      'https://cran.r-project.org',
      ids['https://cran.r-project.org/manuals.html'],
      'queued',
      null,
    );
    db.close();
  });
  after(async () => {
    await t.close();
  });

  const list = async (query: string) => {
    const res = await t.app.inject({ method: 'GET', url: `/api/seeds?${query}` });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { seeds: Array<{ url: string; state: string; failure: string | null }>; total: number };
    return { urls: body.seeds.map((s) => s.url), total: body.total, seeds: body.seeds };
  };

  test('q finds seeds by title, URL or label, case aside', async () => {
    assert.deepEqual((await list('q=DOCUMENTATION')).urls, ['https://docs.python.org/3/']);
    assert.deepEqual((await list('q=git-scm')).urls, ['https://git-scm.com/docs']);
    // "python" is a label of one and part of a label of another
    assert.deepEqual((await list('q=python&sort=url')).urls, [
      'https://cran.r-project.org/manuals.html',
      'https://docs.python.org/3/',
    ]);
    assert.deepEqual(await list('q=%25'), { urls: [], total: 0, seeds: [] }, '% is taken literally');
  });

  test('state: a failed seed says why; done and crawling are told apart', async () => {
    const failed = await list('state=failed');
    assert.deepEqual(failed.urls, ['https://example.org/big.pdf']);
    assert.equal(failed.seeds[0]!.failure, 'example.org: the response is larger than 5 MiB (CRAWL_MAX_BYTES)');
    assert.deepEqual((await list('state=done')).urls, ['https://git-scm.com/docs']);
    assert.deepEqual((await list('state=crawling&sort=oldest')).urls, [
      'https://docs.python.org/3/',
      'https://cran.r-project.org/manuals.html',
    ]);
    assert.equal((await list('state=crawling')).total, 2);
    const all = await list('');
    assert.equal(all.seeds.find((s) => s.url === 'https://git-scm.com/docs')!.failure, null);
  });

  test('sort by title, and pages of a sorted list', async () => {
    assert.deepEqual((await list('sort=title')).urls, [
      'https://example.org/big.pdf',
      'https://git-scm.com/docs',
      'https://docs.python.org/3/',
      'https://cran.r-project.org/manuals.html',
    ]);
    const second = await list('sort=title&limit=2&offset=2');
    assert.deepEqual(second.urls, ['https://docs.python.org/3/', 'https://cran.r-project.org/manuals.html']);
    assert.equal(second.total, 4);
  });

  test('label and q together; removed seeds are listed only under state=removed', async () => {
    assert.deepEqual((await list('label=python&q=docs')).urls, ['https://docs.python.org/3/']);
    await t.app.inject({ method: 'DELETE', url: `/api/seeds/${ids['https://git-scm.com/docs']}` });
    assert.equal((await list('')).urls.includes('https://git-scm.com/docs'), false);
    assert.deepEqual((await list('state=removed')).urls, ['https://git-scm.com/docs']);
    assert.equal((await list('state=removed')).seeds[0]!.state, 'removed');
  });

  test('bad parameters get a clear 400', async () => {
    const cases: Array<[string, RegExp]> = [
      ['state=broken', /state must be one of crawling, done, failed, removed/],
      ['sort=size', /sort must be one of newest, oldest, title, url/],
      [`q=${'x'.repeat(201)}`, /q must be given once, as text of at most 200/],
      ['q=a&q=b', /q must be given once/],
      ['page=2', /unknown field "page"/],
      ['limit=0', /limit must be an integer from 1 to 500/],
    ];
    for (const [query, message] of cases) {
      const res = await t.app.inject({ method: 'GET', url: `/api/seeds?${query}` });
      assert.equal(res.statusCode, 400, query);
      assert.match(res.json().message, message, query);
    }
  });
});

describe('POST /api/seeds/bulk', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let ids: number[] = [];
  before(async () => {
    t = await createTestApp();
    ids = [];
    for (const n of [1, 2, 3]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: `https://s${n}.example/` } });
      ids.push(res.json().seed.id);
    }
  });
  after(async () => {
    await t.close();
  });
  const bulk = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/api/seeds/bulk', payload: payload as object });
  const labelsOf = async () =>
    Object.fromEntries(
      (
        (await t.app.inject({ method: 'GET', url: '/api/seeds?sort=oldest' })).json().seeds as Array<{
          id: number;
          labels: string[];
        }>
      ).map((s) => [s.id, s.labels]),
    );

  test('label then unlabel many seeds in one request each, with the count changed', async () => {
    const labelled = await bulk({ action: 'label', ids: [ids[0], ids[1]], labels: ['Dev Tools', 'rust'] });
    assert.equal(labelled.statusCode, 200, labelled.body);
    assert.deepEqual(labelled.json(), { action: 'label', count: 2 });
    assert.deepEqual(await labelsOf(), {
      [ids[0]!]: ['dev-tools', 'rust'],
      [ids[1]!]: ['dev-tools', 'rust'],
      [ids[2]!]: [],
    });
    const unlabelled = await bulk({ action: 'unlabel', ids, labels: ['rust'] });
    assert.deepEqual(unlabelled.json(), { action: 'unlabel', count: 3 });
    assert.deepEqual(await labelsOf(), { [ids[0]!]: ['dev-tools'], [ids[1]!]: ['dev-tools'], [ids[2]!]: [] });
  });

  test('crawl again touches the seeds for the crawler; remove takes them off the list', async () => {
    const db = openDatabase(t.dataDir);
    const updated = db.prepare('SELECT updated_at FROM seeds WHERE id = ?').pluck();
    const before = updated.get(ids[2]) as number;
    assert.deepEqual((await bulk({ action: 'crawl', ids: [ids[2]] })).json(), { action: 'crawl', count: 1 });
    assert.ok((updated.get(ids[2]) as number) > before, 'the crawler sees it as submitted again');
    db.close();
    assert.deepEqual((await bulk({ action: 'remove', ids: [ids[0], ids[1], 999] })).json(), {
      action: 'remove',
      count: 2,
    });
    const left = (await t.app.inject({ method: 'GET', url: '/api/seeds' })).json();
    assert.deepEqual(
      left.seeds.map((s: { id: number }) => s.id),
      [ids[2]],
    );
    assert.deepEqual(
      (await bulk({ action: 'remove', ids: [ids[0]] })).json(),
      { action: 'remove', count: 0 },
      'removed already',
    );
  });

  test("another site's page cannot act on seeds, nor send anything but JSON", async () => {
    const crossSite = await t.app.inject({
      method: 'POST',
      url: '/api/seeds/bulk',
      payload: { action: 'remove', ids: [ids[2]] },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(crossSite.statusCode, 403);
    assert.equal(crossSite.json().error, 'cross-origin');
    const form = await t.app.inject({
      method: 'POST',
      url: '/api/seeds/bulk',
      payload: 'action=remove&ids=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 415);
  });

  test('bad bodies get a clear 400', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ action: 'explode', ids: [1] }, /action must be "remove", "crawl", "label" or "unlabel"/],
      [{ action: 'remove', ids: [] }, /ids must be an array of 1 to 1000 seed ids/],
      [{ action: 'remove', ids: ['1'] }, /ids must be an array/],
      [{ action: 'remove', ids: Array.from({ length: 1001 }, (_, i) => i + 1) }, /ids must be an array of 1 to 1000/],
      [{ action: 'label', ids: [1] }, /label needs labels/],
      [{ action: 'remove', ids: [1], extra: true }, /unknown field "extra"/],
    ];
    for (const [payload, message] of cases) {
      const res = await bulk(payload);
      assert.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 80));
      assert.match(res.json().message, message);
    }
  });
});
