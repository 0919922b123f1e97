import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const URL_MESSAGE = 'url must be a string such as "https://example.org/"';
const DEPTH_MESSAGE = 'depth must be an integer from 0 to 10 (links followed from the seed)';
const SCOPE_MESSAGE = 'scope must be "path", "host", "domain" or "any"';
const ID_MESSAGE = 'the seed id must be a whole number from 1 up, as GET /api/seeds lists it';

describe('strict input: read as written, never coerced', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });

  const post = (payload: string, contentType = 'application/json') =>
    t.app.inject({ method: 'POST', url: '/api/seeds', payload, headers: { 'content-type': contentType } });

  const bodies: Array<[string, unknown, string, string]> = [
    ['a url in an array', { url: ['https://example.org/'] }, 'malformed', URL_MESSAGE],
    ['a url that is a number', { url: 42 }, 'malformed', URL_MESSAGE],
    ['a url that is null', { url: null }, 'malformed', URL_MESSAGE],
    ['a depth written as text', { url: 'https://example.org/', depth: '2' }, 'invalid-depth', DEPTH_MESSAGE],
    ['a depth that is not whole', { url: 'https://example.org/', depth: 2.5 }, 'invalid-depth', DEPTH_MESSAGE],
    ['a depth that is true', { url: 'https://example.org/', depth: true }, 'invalid-depth', DEPTH_MESSAGE],
    ['a scope in an array', { url: 'https://example.org/', scope: ['host'] }, 'invalid-scope', SCOPE_MESSAGE],
    [
      'an unknown field',
      { url: 'https://example.org/', color: 'red' },
      'invalid-body',
      'unknown field "color"; send url, depth, scope, title and labels only',
    ],
  ];
  for (const [what, body, code, message] of bodies) {
    test(`POST /api/seeds: 400 ${code} for ${what}`, async () => {
      const res = await post(JSON.stringify(body));
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { error: code, message });
    });
  }

  test('the same fields, written as the schema wants them, are accepted', async () => {
    const res = await post(JSON.stringify({ url: 'https://strict.example/', depth: 2, scope: 'domain' }));
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().seed.depth, res.json().seed.scope], [2, 'domain']);
  });

  for (const id of ['1e3', '0x10', '01', '1.0', '%201', '-1', '0', 'abc', '12345678901234567890']) {
    test(`DELETE /api/seeds/${id}: 400 invalid-id`, async () => {
      const res = await t.app.inject({ method: 'DELETE', url: `/api/seeds/${id}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { error: 'invalid-id', message: ID_MESSAGE });
    });
  }

  test('DELETE /api/seeds/1000: a whole number is read as one (no such seed: 404)', async () => {
    const res = await t.app.inject({ method: 'DELETE', url: '/api/seeds/1000' });
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().error, 'unknown-seed');
  });

  const queries: Array<[string, string]> = [
    ['limit=1e1', 'limit must be an integer from 1 to 50'],
    ['limit=0x10', 'limit must be an integer from 1 to 50'],
    ['limit=010', 'limit must be an integer from 1 to 50'],
    ['limit=%2B5', 'limit must be an integer from 1 to 50'],
    ['limit=5.0', 'limit must be an integer from 1 to 50'],
    ['limit=%205', 'limit must be an integer from 1 to 50'],
    ['limit=', 'limit must be an integer from 1 to 50'],
    ['limit=5&limit=6', 'limit must be an integer from 1 to 50'],
    ['limit=51', 'limit must be an integer from 1 to 50'],
    ['offset=1e2', 'offset must be an integer from 0 to 1000'],
    ['offset=-0', 'offset must be an integer from 0 to 1000'],
  ];
  for (const [query, message] of queries) {
    test(`GET /api/search?q=x&${query}: 400 invalid-query`, async () => {
      const res = await t.app.inject({ url: `/api/search?q=x&${query}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { error: 'invalid-query', message });
    });
  }

  test('query numbers written as plain decimal digits within range are accepted', async () => {
    const res = await t.app.inject({ url: '/api/search?q=x&limit=50&offset=0' });
    assert.equal(res.statusCode, 200, res.body);
    const suggest = await t.app.inject({ url: '/api/suggest?q=x&limit=1e1' });
    assert.deepEqual(
      [suggest.statusCode, suggest.json()],
      [400, { error: 'invalid-query', message: 'limit must be an integer from 1 to 20' }],
    );
    const format = await t.app.inject({ url: '/api/suggest?q=x&format=xml' });
    assert.deepEqual(
      [format.statusCode, format.json()],
      [400, { error: 'invalid-query', message: 'format must be "json" or "opensearch"' }],
    );
  });

  test("GET /api/pages with url given twice, or not at all: 400 malformed, the url field's own answer", async () => {
    for (const query of ['?url=https://a.example/&url=https://b.example/', '']) {
      const res = await t.app.inject({ url: `/api/pages${query}` });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.json(), { error: 'malformed', message: URL_MESSAGE }, query);
    }
  });

  for (const charset of ['latin1', 'ISO-8859-1', 'utf-16', '"windows-1252"']) {
    test(`a JSON body declared as charset=${charset} is refused: 415 unsupported-charset`, async () => {
      const res = await post(
        JSON.stringify({ url: 'https://charset.example/' }),
        `application/json; charset=${charset}`,
      );
      assert.equal(res.statusCode, 415, res.body);
      const bare = charset.replace(/"/g, '');
      assert.deepEqual(res.json(), {
        error: 'unsupported-charset',
        message: `strict-input: the body is declared as charset=${bare}; send JSON as UTF-8 (application/json, or application/json; charset=utf-8)`,
      });
    });
  }

  for (const charset of ['utf-8', 'UTF-8', 'Utf-8', '"utf-8"']) {
    test(`a JSON body declared as charset=${charset} is read`, async () => {
      const res = await post(
        JSON.stringify({ url: `https://utf8.example/${encodeURIComponent(charset)}/é` }),
        `application/json; charset=${charset}`,
      );
      assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
      assert.match(res.json().seed.url, /\/%C3%A9$/, 'the body was read as UTF-8');
    });
  }
});

describe('strict input: validators are compiled when needed, not at start', () => {
  test('a ready app has compiled none; once it listens they are all compiled, and every schema compiles', async () => {
    const t = await createTestApp();
    const errors: string[] = [];
    try {
      await t.app.ready();
      const atStart = t.app.validatorsPending;
      assert.ok(atStart > 10, `the routes' validators wait to be compiled (${atStart} pending)`);
      const search = await t.app.inject({ url: '/api/search?q=x&limit=abc' });
      assert.equal(search.statusCode, 400, 'a request compiles its own validator and is refused as before');
      assert.equal(t.app.validatorsPending, atStart - 1, 'that request compiled only its own');
      t.app.log.error = ((...args: unknown[]) => {
        errors.push(String(args.at(-1)));
      }) as unknown as typeof t.app.log.error; // what the plugin logs when a schema does not compile
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      await waitFor(() => t.app.validatorsPending === 0, {
        timeoutMs: 30_000,
        message: 'every validator to be compiled after listening',
      });
      assert.deepEqual(errors, [], 'no schema failed to compile');
    } finally {
      await t.close();
    }
  });

  test('a route whose schema does not compile answers 500 internal, naming nothing of it, and the other routes work', async () => {
    const t = await createTestApp();
    try {
      t.app.get(
        '/api/broken',
        { schema: { querystring: { type: 'object', properties: { n: { type: 'no-such-type' } } } } },
        async () => ({ ok: true }),
      );
      const res = await t.app.inject({ url: '/api/broken?n=1' });
      assert.deepEqual(
        [res.statusCode, res.json()],
        [500, { error: 'internal', message: 'Lantern hit an internal error; the server log has the details' }],
      );
      assert.equal((await t.app.inject({ url: '/api/search?q=x&limit=abc' })).statusCode, 400);
    } finally {
      await t.close();
    }
  });
});
