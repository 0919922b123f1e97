import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;

before(async () => {
  t = await createTestApp();
  await t.app.ready();
});
after(() => t.close());

test('every answer carries the guard rails: API, web app, a 404 and an early refusal alike', async () => {
  const answers = await Promise.all([
    t.app.inject({ url: '/api/health' }),
    t.app.inject({ url: '/' }),
    t.app.inject({ url: '/api/nothing-here' }),
    t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      payload: { url: 'https://example.org/' },
      headers: { origin: 'https://evil.example', host: 'localhost' },
    }),
  ]);
  assert.deepEqual(
    answers.map((a) => a.statusCode),
    [200, 503, 404, 403],
  );
  for (const a of answers) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS))
      assert.equal(a.headers[name], value, `${name} on a ${a.statusCode}`);
  }
  const csp = SECURITY_HEADERS['content-security-policy'];
  assert.match(csp, /script-src 'self'(;|$)/, "only the app's own scripts: no inline script, no other origin");
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(
    SECURITY_HEADERS['referrer-policy'],
    'no-referrer',
    'searches are not sent to the sites opened from results',
  );
});
