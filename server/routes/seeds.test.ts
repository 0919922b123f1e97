import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { refreshOffsetMs } from '../../crawler/frontier/revisit-spread.ts';
import { createTestApp } from '../test-app.ts';
import { openDatabase } from '../../db/open.ts';

describe('POST /api/seeds and GET /api/seeds', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  const post = (payload: unknown, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      payload: payload as string,
      headers: { 'content-type': 'application/json', ...headers },
    });

  test('201 with the normalized URL and defaults', async () => {
    const res = await post({ url: 'HTTPS://Example.ORG:443/a/../b#frag' });
    assert.equal(res.statusCode, 201, res.body);
    const { seed } = res.json();
    assert.equal(seed.url, 'https://example.org/b');
    assert.equal(seed.depth, 2);
    assert.equal(seed.scope, 'host');
    assert.equal(seed.host, 'example.org');
    assert.match(seed.createdAt, /^\d{4}-\d\d-\d\dT/);
  });

  test('GET lists the stored seeds with their counts', async () => {
    await post({ url: 'https://example.net/', depth: 0, scope: 'domain' });
    const res = await t.app.inject({ method: 'GET', url: '/api/seeds' });
    assert.equal(res.statusCode, 200);
    const { seeds } = res.json();
    const net = seeds.find((s: { url: string }) => s.url === 'https://example.net/');
    assert.deepEqual(
      { depth: net.depth, scope: net.scope, fetched: net.fetched, queued: net.queued },
      { depth: 0, scope: 'domain', fetched: 0, queued: 0 },
    );
  });

  test('a seed says when it was last crawled and when it will be again on its own (CRAWL_REFRESH, 7 days by default)', async () => {
    const seed = (await post({ url: 'https://crawled.example/' })).json().seed;
    assert.deepEqual(
      { last: seed.lastCrawledAt, next: seed.nextCrawlAt },
      { last: null, next: null },
      'not crawled yet',
    );
    const db = openDatabase(t.dataDir); // as the crawler primary writes it
    const at = Date.UTC(2026, 0, 1);
    const add = db.prepare(
      'INSERT INTO frontier (url, origin, seed_id, depth, redirects, discovered_at, state, finished_at) VALUES (?, ?, ?, ?, 0, ?, ?, ?)',
    );
    add.run('https://crawled.example/', 'https://crawled.example', seed.id, 0, at, 'done', at);
    const listed = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/seeds' }))
        .json()
        .seeds.find((s: { id: number }) => s.id === seed.id);
    // A week later, and its site's own offset (crawler/frontier/revisit-spread.ts) so that sites crawled together are not refreshed together.
    const week = 7 * 86_400_000;
    assert.deepEqual(await listed().then((s) => [s.lastCrawledAt, s.nextCrawlAt]), [
      '2026-01-01T00:00:00.000Z',
      new Date(at + week + refreshOffsetMs('https://crawled.example', week)).toISOString(),
    ]);
    add.run('https://crawled.example/more', 'https://crawled.example', seed.id, 1, at, 'queued', null);
    assert.deepEqual(
      await listed().then((s) => [s.lastCrawledAt, s.nextCrawlAt]),
      ['2026-01-01T00:00:00.000Z', null],
      'no next crawl while this one goes on',
    );
    db.close();
  });

  test('DELETE removes a seed from the list; removing it again is a 404; submitting its URL again adds it anew', async () => {
    const { seed } = (await post({ url: 'https://removed.example/', depth: 3 })).json();
    const del = (id: unknown, headers: Record<string, string> = {}) =>
      t.app.inject({ method: 'DELETE', url: `/api/seeds/${id}`, headers });
    const listed = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/seeds' })).json().seeds.map((s: { url: string }) => s.url);

    const crossSite = await del(seed.id, { origin: 'https://evil.example' });
    assert.equal(crossSite.statusCode, 403, "another site's page cannot remove seeds");
    assert.ok((await listed()).includes('https://removed.example/'));

    const res = await del(seed.id);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { removed: { id: seed.id, url: 'https://removed.example/' } });
    assert.ok(!(await listed()).includes('https://removed.example/'));

    const again = await del(seed.id);
    assert.equal(again.statusCode, 404);
    assert.equal(again.json().error, 'unknown-seed');
    assert.match(again.json().message, new RegExp(`no seed ${seed.id}`));
    const bad = await del('abc');
    assert.equal(bad.statusCode, 400);
    assert.deepEqual(bad.json(), {
      error: 'invalid-id',
      message: 'the seed id must be a whole number from 1 up, as GET /api/seeds lists it',
    });
    assert.equal((await del(0)).statusCode, 400);

    const back = await post({ url: 'https://removed.example/', depth: 1 });
    assert.equal(back.statusCode, 201, 'a removed seed submitted again is new');
    assert.equal(back.json().seed.depth, 1);
    assert.ok((await listed()).includes('https://removed.example/'));
  });

  test('the path scope is stored and listed as such, and can be changed like any scope', async () => {
    const res = await post({ url: 'https://docs.example/guide/', scope: 'path' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().seed.scope, 'path');
    const listed = async () =>
      (await t.app.inject({ method: 'GET', url: '/api/seeds' }))
        .json()
        .seeds.find((s: { url: string }) => s.url === 'https://docs.example/guide/').scope;
    assert.equal(await listed(), 'path');
    assert.equal((await post({ url: 'https://docs.example/guide/', scope: 'host' })).json().seed.scope, 'host');
    assert.equal(await listed(), 'host');
  });

  test('the same URL again updates it (200), never duplicates it', async () => {
    const res = await post({ url: 'https://example.org/b', depth: 5 });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().seed.depth, 5);
    const list = (await t.app.inject({ method: 'GET', url: '/api/seeds' })).json().seeds;
    assert.equal(list.filter((s: { url: string }) => s.url === 'https://example.org/b').length, 1);
  });

  const refusals: Array<[string, unknown, string]> = [
    ['not a URL', { url: 'not a url' }, 'malformed'],
    ['ftp:', { url: 'ftp://example.org/' }, 'unsupported-scheme'],
    ['javascript:', { url: 'javascript:alert(1)' }, 'unsupported-scheme'],
    ['file:', { url: 'file:///etc/passwd' }, 'unsupported-scheme'],
    ['a 5000-character URL', { url: `https://example.org/${'a'.repeat(5000)}` }, 'too-long'],
    ['loopback', { url: 'http://127.0.0.1/' }, 'private-address'],
    ['private network', { url: 'http://10.1.2.3/' }, 'private-address'],
    ['IPv6 loopback', { url: 'http://[::1]/' }, 'private-address'],
    ['cloud metadata', { url: 'http://169.254.169.254/' }, 'private-address'],
    ['depth -1', { url: 'https://example.org/', depth: -1 }, 'invalid-depth'],
    ['depth 99', { url: 'https://example.org/', depth: 99 }, 'invalid-depth'],
    ['an unknown scope', { url: 'https://example.org/', scope: 'planet' }, 'invalid-scope'],
    ['a missing url', { depth: 1 }, 'missing'],
    ['a body that is not JSON', '{"url": "https://example.org/"', 'invalid-json'],
    ['a JSON array', [1, 2], 'invalid-body'],
    ['an unknown field', { url: 'https://example.org/', color: 'red' }, 'invalid-body'],
  ];
  for (const [what, body, code] of refusals) {
    test(`400 ${code} for ${what}`, async () => {
      const res = await post(typeof body === 'string' ? body : JSON.stringify(body));
      assert.equal(res.statusCode, 400, res.body);
      const answer = res.json();
      assert.equal(answer.error, code);
      assert.equal(typeof answer.message, 'string');
      assert.ok(answer.message.length > 10, 'the message says what was wrong');
    });
  }

  test('the private-address message says how to allow it', async () => {
    const res = await post({ url: 'http://127.0.0.1/' });
    assert.match(res.json().message, /CRAWL_ALLOW_PRIVATE=1/);
  });

  test('415 for a body that is not sent as JSON, including the kinds a page of another site can send without asking', async () => {
    // A cross-site form or fetch() can send these three without a CORS preflight; text/plain is the one that could carry JSON.
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', 'url=https://example.org/'],
      ['text/plain', '{"url": "https://example.org/"}'],
      [
        'multipart/form-data; boundary=x',
        '--x\r\nContent-Disposition: form-data; name="url"\r\n\r\nhttps://example.org/\r\n--x--\r\n',
      ],
    ]) {
      const res = await t.app.inject({ method: 'POST', url: '/api/seeds', payload, headers: { 'content-type': type } });
      assert.equal(res.statusCode, 415, type);
      assert.deepEqual(res.json(), { error: 'unsupported-media-type', message: 'send the body as application/json' });
    }
  });

  test('403 for a cross-site Origin, so another page in the browser cannot add seeds', async () => {
    const res = await post({ url: 'https://example.org/x' }, { origin: 'https://evil.example' });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error, 'cross-origin');
    // A sandboxed frame or a page opened from file: sends the opaque origin "null".
    const opaque = await post({ url: 'https://example.org/x' }, { origin: 'null' });
    assert.equal(opaque.statusCode, 403);
    assert.equal(opaque.json().error, 'cross-origin');
    // The test app listens (as if) on port 80: its own page's origin is http://localhost.
    const same = await post({ url: 'https://example.org/x' }, { origin: 'http://localhost' });
    assert.equal(same.statusCode, 201);
  });

  test('413 for a huge body', async () => {
    const res = await post(JSON.stringify({ url: `https://example.org/${'a'.repeat(70_000)}` }));
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().error, 'body-too-large');
  });
});

describe('private addresses allowed by configuration', () => {
  test('CRAWL_ALLOW_PRIVATE=1 accepts a loopback seed', async () => {
    const t = await createTestApp({ CRAWL_ALLOW_PRIVATE: '1' });
    try {
      const res = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'http://127.0.0.1:8080/' } });
      assert.equal(res.statusCode, 201);
      assert.equal(res.json().seed.url, 'http://127.0.0.1:8080/');
    } finally {
      await t.close();
    }
  });
});

/** The instant a burst test's requests all arrive at: the limit refills 1 a second, so a slow run must not refill it. */
const BURST_AT = Date.parse('2026-12-07T12:00:00Z');

describe('a burst of seed removals', () => {
  test('is rate-limited like submissions, per client, with a clear 429 and Retry-After', async () => {
    const t = await createTestApp({}, { now: () => BURST_AT }); // the burst at one instant, however slow the machine
    try {
      const codes: number[] = [];
      let last: Awaited<ReturnType<typeof t.app.inject>> | undefined;
      for (let i = 0; i < 70; i++) {
        last = await t.app.inject({ method: 'DELETE', url: `/api/seeds/${i + 1}` });
        codes.push(last.statusCode);
      }
      assert.equal(codes.filter((c) => c === 404).length, 60, 'the first 60 are answered (none of these seeds exists)');
      assert.equal(last!.statusCode, 429);
      assert.deepEqual(last!.json(), { error: 'rate-limited', message: 'too many removals at once; try again in 1 s' });
      assert.equal(last!.headers['retry-after'], '1');
      const other = await t.app.inject({ method: 'DELETE', url: '/api/seeds/1', remoteAddress: '127.0.0.9' });
      assert.equal(other.statusCode, 404, 'another client has its own allowance');
      const adding = await t.app.inject({
        method: 'POST',
        url: '/api/seeds',
        payload: { url: 'https://example.org/' },
      });
      assert.equal(adding.statusCode, 201, 'removals and submissions are counted apart');
    } finally {
      await t.close();
    }
  });
});

describe('a burst of seed submissions', () => {
  test('is rate-limited with a clear 429 and Retry-After', async () => {
    const t = await createTestApp({}, { now: () => BURST_AT });
    try {
      const codes: number[] = [];
      let last: Awaited<ReturnType<typeof t.app.inject>> | undefined;
      for (let i = 0; i < 70; i++) {
        last = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: `https://example.org/p${i}` } });
        codes.push(last.statusCode);
      }
      assert.equal(codes.filter((c) => c === 201).length, 60, 'the first 60 (a pasted list) pass');
      assert.equal(last!.statusCode, 429);
      assert.equal(last!.json().error, 'rate-limited');
      assert.ok(Number(last!.headers['retry-after']) >= 1);
    } finally {
      await t.close();
    }
  });
});
