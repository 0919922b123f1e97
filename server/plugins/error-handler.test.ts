import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { createTestApp } from '../test-app.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;

before(async () => {
  t = await createTestApp();
  t.app.get('/api/test/bug', async () => {
    throw new Error('open /srv/secret/lantern.key failed: token=hunter2');
  });
  await t.app.ready();
});
after(() => t.close());

test('an unexpected error is a 500 that says where to look and leaks nothing of the error', async () => {
  const res = await t.app.inject({ url: '/api/test/bug' });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), {
    error: 'internal',
    message: 'Lantern hit an internal error; the server log has the details',
  });
  assert.doesNotMatch(res.body, /secret|hunter2|lantern\.key|at /);
});

test('a database that refuses writes: adding a seed is a 503 that says what is wrong and that nothing was saved', async () => {
  t.app.db.pragma('query_only = 1'); // SQLite itself refuses every write from here on, as for a read-only file
  try {
    const res = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'https://example.org/' } });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers['retry-after'], '10');
    const { error, message } = res.json();
    assert.equal(error, 'storage-unavailable');
    assert.equal(
      message,
      `cannot write to the database in ${t.dataDir} (SQLITE_READONLY: attempt to write a readonly database): ` +
        'is the disk full or the file read-only? Nothing was saved; try again once the disk has space or the file is writable.',
    );
  } finally {
    t.app.db.pragma('query_only = 0');
  }
  assert.deepEqual((await t.app.inject({ url: '/api/seeds' })).json().seeds, [], 'nothing was saved');
  const again = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'https://example.org/' } });
  assert.equal(again.statusCode, 201, 'once the database takes writes, the same request succeeds');
});

test("Fastify's own refusals come in Lantern's {error, message} shape, with a code for each kind", async () => {
  const json = { 'content-type': 'application/json' };
  const cases: Array<[string, InjectOptions, number, { error: string; message: string }]> = [
    [
      'a body that is not JSON',
      { method: 'POST', url: '/api/seeds', payload: '{"url": ', headers: json },
      400,
      { error: 'invalid-json', message: 'the body is not valid JSON' },
    ],
    [
      'an empty body',
      { method: 'POST', url: '/api/seeds', payload: '', headers: json },
      400,
      { error: 'invalid-json', message: 'the body is empty; send a JSON object' },
    ],
    [
      'a body over the limit',
      {
        method: 'POST',
        url: '/api/seeds',
        payload: JSON.stringify({ url: `https://example.org/${'a'.repeat(70_000)}` }),
        headers: json,
      },
      413,
      { error: 'body-too-large', message: 'the request body is too large' },
    ],
    [
      'a body that is not JSON at all',
      { method: 'POST', url: '/api/seeds', payload: '<url/>', headers: { 'content-type': 'application/xml' } },
      415,
      { error: 'unsupported-media-type', message: 'send the body as application/json' },
    ],
    [
      'a path parameter over maxParamLength',
      { method: 'GET', url: `/api/domains/${'h'.repeat(301)}/requests` },
      414,
      {
        error: 'url-too-long',
        message:
          'error-handler: a part of the address is longer than 300 characters; no seed id or host name is that long',
      },
    ],
    [
      'an unknown route',
      { method: 'GET', url: '/api/nope' },
      404,
      { error: 'not-found', message: 'no route GET /api/nope' },
    ],
    [
      'a method the path does not take',
      { method: 'PUT', url: '/api/seeds' },
      405,
      { error: 'method-not-allowed', message: 'error-handler: /api/seeds does not take PUT; use GET, HEAD, POST' },
    ],
    [
      'a method a parameter path does not take',
      { method: 'GET', url: '/api/seeds/3' },
      405,
      { error: 'method-not-allowed', message: 'error-handler: /api/seeds/3 does not take GET; use DELETE' },
    ],
    [
      'a broken percent-encoding',
      { method: 'DELETE', url: '/api/seeds/%E0%A4%A' },
      400,
      {
        error: 'malformed-url',
        message:
          'error-handler: the address has a broken percent-encoding (a % must be followed by two hex digits, and the bytes must be UTF-8); encode it with encodeURIComponent',
      },
    ],
  ];
  for (const [what, request, status, body] of cases) {
    const res = await t.app.inject(request);
    assert.equal(res.statusCode, status, `${what}: ${res.body}`);
    assert.deepEqual(res.json(), body, what);
    assert.equal(res.headers['x-content-type-options'], 'nosniff', `${what}: the guard-rail headers are there too`);
  }
  const put = await t.app.inject({ method: 'PUT', url: '/api/seeds' });
  assert.equal(put.headers.allow, 'GET, HEAD, POST', 'a 405 says which methods the path takes');
  const within = await t.app.inject({ method: 'GET', url: `/api/domains/${'h'.repeat(300)}/requests` });
  assert.equal(within.statusCode, 404, 'a 300-character host is read (and unknown)');
});
