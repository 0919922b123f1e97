/**
 * With LANTERN_SECRET set: every route answers 401 without a session or the secret, except the few
 * that hold nothing (collected with onRoute, so a route added later without protection fails here);
 * sign-in, its cookie, sign-out, Bearer, the rate limit and expiry, on an injected clock.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { RouteOptions } from 'fastify';
import { createTestApp } from '../test-app.ts';
import { makeWebRoot } from '../../test-support/web-root.ts';
import { openDatabase } from '../../db/open.ts';
import { SESSION_COOKIE } from './auth.ts';

const SECRET = 'auth test secret 0123456789';
const HOUR = 3_600_000;
const START = Date.UTC(2026, 0, 1);
const json = { 'content-type': 'application/json' };

/** Every route a Lantern app has, as `METHOD /url`, and the app (a secret set; a built web app; a clock the test moves). */
async function appWithRoutes(env: Record<string, string> = {}) {
  const routes: string[] = [];
  const clock = { now: START };
  const web = makeWebRoot();
  const onRoute = (route: RouteOptions) => {
    for (const method of [route.method].flat()) routes.push(`${method} ${route.url}`);
  };
  const t = await createTestApp(
    { LANTERN_SECRET: SECRET, SESSION_LIFETIME: '1h', ...env },
    { webRoot: web.root, now: () => clock.now, onRoute },
  );
  await t.app.ready();
  return {
    t,
    routes,
    clock,
    close: async () => {
      await t.close();
      web.remove();
    },
  };
}

/** The cookie a sign-in set, as a browser would send it back. */
function sessionCookie(res: { headers: Record<string, unknown> }): string {
  const set = [res.headers['set-cookie']].flat().find((c) => String(c).startsWith(`${SESSION_COOKIE}=`));
  assert.ok(set, 'a session cookie was set');
  return String(set).split(';')[0];
}

/** Routes that answer without a sign-in, and why: nothing private is in them. Anything else needs one. */
const PUBLIC = new Set([
  'GET /api/health',
  'HEAD /api/health', // says that Lantern runs, and its version
  'GET /api/session',
  'HEAD /api/session',
  'POST /api/session',
  'DELETE /api/session', // the sign-in itself
  'GET /',
  'HEAD /',
  'GET /index.html',
  'HEAD /index.html',
  'GET /assets/app.js',
  'HEAD /assets/app.js', // the web app's files
]);

describe('with a secret, every route but the public ones needs a sign-in', () => {
  let a: Awaited<ReturnType<typeof appWithRoutes>>;
  before(async () => {
    a = await appWithRoutes();
  });
  after(() => a.close());

  const call = (route: string, headers: Record<string, string> = {}) => {
    const [method, url] = route.split(' ');
    const path = url
      .replace(/:host/g, 'example.org')
      .replace(/:[a-z]+/g, '1')
      .replace(/\*/g, 'x');
    const body = method === 'POST' || method === 'PUT' || method === 'PATCH' || method === 'DELETE';
    return a.t.app.inject({
      method: method as 'GET',
      url: path,
      headers: { ...(body ? json : {}), ...headers },
      ...(body ? { payload: {} } : {}),
    });
  };

  test('each route without a session: 401 unauthenticated, unless it is one of the few public ones', async () => {
    assert.ok(a.routes.length >= 20, `the app's routes were collected (${a.routes.length})`);
    for (const route of a.routes) {
      const res = await call(route);
      if (PUBLIC.has(route)) {
        assert.notEqual(res.statusCode, 401, route);
        continue;
      }
      assert.equal(res.statusCode, 401, `${route} answered ${res.statusCode} without a sign-in`);
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="Lantern"');
      if (!route.startsWith('HEAD')) {
        assert.deepEqual(
          res.json(),
          {
            error: 'unauthenticated',
            message:
              'auth: sign in first: open Lantern in a browser and enter its secret, or send Authorization: Bearer <LANTERN_SECRET>',
          },
          route,
        );
      }
    }
    assert.deepEqual(
      [...PUBLIC].filter((r) => !a.routes.includes(r)),
      [],
      'every public route exists',
    );
  });

  test("unknown paths: the web app's page for its own routes (no data in it), 401 under /api and for other methods", async () => {
    const shell = await a.t.app.inject({ url: '/seeds' });
    assert.equal(shell.statusCode, 200);
    assert.match(shell.body, /<div id="root">/);
    assert.equal((await a.t.app.inject({ url: '/stored?url=https://example.org/' })).statusCode, 200);
    for (const [method, url] of [
      ['GET', '/api/nothing-here'],
      ['GET', '/api'],
      ['POST', '/seeds'],
      ['DELETE', '/x'],
    ] as const) {
      assert.equal((await a.t.app.inject({ method, url })).statusCode, 401, `${method} ${url}`);
    }
  });

  test('with a session, the protected routes answer (none 401), the OpenSearch description and suggestions included', async () => {
    const cookie = sessionCookie(
      await a.t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET } }),
    );
    for (const route of a.routes.filter((r) => !PUBLIC.has(r))) {
      assert.notEqual((await call(route, { cookie })).statusCode, 401, route);
    }
    const osd = await a.t.app.inject({ url: '/opensearch.xml', headers: { cookie } });
    assert.equal(osd.statusCode, 200);
    assert.match(osd.body, /api\/suggest\?q=\{searchTerms\}&amp;format=opensearch/);
    const proxied = await a.t.app.inject({
      url: '/opensearch.xml',
      headers: { cookie, host: 'localhost', 'x-forwarded-proto': 'https' },
    });
    assert.match(
      proxied.body,
      /template="https:\/\/localhost\/\?q=\{searchTerms\}"/,
      'behind a TLS proxy the browser is sent to https, where its Secure cookie goes',
    );
    const suggest = await a.t.app.inject({ url: '/api/suggest?q=tele&format=opensearch', headers: { cookie } });
    assert.equal(suggest.statusCode, 200);
    assert.deepEqual(suggest.json(), ['tele', []]);
  });
});

describe('sign-in, cookie, sign-out', () => {
  let a: Awaited<ReturnType<typeof appWithRoutes>>;
  before(async () => {
    a = await appWithRoutes();
  });
  after(() => a.close());
  const signIn = (secret: string, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') =>
    a.t.app.inject({ method: 'POST', url: '/api/session', payload: { secret }, headers, remoteAddress });

  test('the wrong secret: 401 wrong-secret and no cookie; the right one: a session cookie, HttpOnly, SameSite=Strict, for SESSION_LIFETIME', async () => {
    const wrong = await signIn('not the secret at all');
    assert.equal(wrong.statusCode, 401);
    assert.deepEqual(wrong.json(), {
      error: 'wrong-secret',
      message: "session: that is not Lantern's secret; it is the value of LANTERN_SECRET where Lantern runs",
    });
    assert.equal(wrong.headers['set-cookie'], undefined);

    const right = await signIn(SECRET);
    assert.equal(right.statusCode, 200, right.body);
    assert.deepEqual(right.json(), {
      required: true,
      signedIn: true,
      expiresAt: new Date(a.clock.now + HOUR).toISOString(),
    });
    const set = String(right.headers['set-cookie']);
    const attributes = set
      .split(';')
      .slice(1)
      .map((s) => s.trim())
      .sort();
    assert.deepEqual(
      attributes,
      ['HttpOnly', 'Max-Age=3600', 'Path=/', 'SameSite=Strict'],
      'over plain http: not Secure (the browser would drop it)',
    );
    assert.match(sessionCookie(right), new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}$`));

    const cookie = sessionCookie(right);
    assert.equal((await a.t.app.inject({ url: '/api/seeds', headers: { cookie } })).statusCode, 200);
    assert.deepEqual((await a.t.app.inject({ url: '/api/session', headers: { cookie } })).json(), {
      required: true,
      signedIn: true,
      expiresAt: new Date(a.clock.now + HOUR).toISOString(),
    });
    assert.deepEqual((await a.t.app.inject({ url: '/api/session' })).json(), {
      required: true,
      signedIn: false,
      expiresAt: null,
    });
  });

  test('behind a TLS-terminating proxy (X-Forwarded-Proto: https) the cookie is Secure', async () => {
    const res = await signIn(SECRET, { 'x-forwarded-proto': 'https' });
    assert.match(String(res.headers['set-cookie']), /; Secure(;|$)/);
  });

  test('the session is kept on the server by a digest of its token, never the token', async () => {
    const token = sessionCookie(await signIn(SECRET)).split('=')[1];
    const db = openDatabase(a.t.dataDir);
    try {
      const rows = db.prepare('SELECT token_digest FROM sessions').pluck().all() as string[];
      assert.ok(rows.length >= 1);
      assert.ok(rows.every((r) => r !== token && /^[0-9a-f]{64}$/.test(r)));
    } finally {
      db.close();
    }
  });

  test('sign-out ends the session on the server: a copy of the cookie no longer works', async () => {
    const cookie = sessionCookie(await signIn(SECRET));
    const copy = cookie;
    const out = await a.t.app.inject({ method: 'DELETE', url: '/api/session', headers: { cookie } });
    assert.equal(out.statusCode, 200);
    assert.deepEqual(out.json(), { required: true, signedIn: false, expiresAt: null });
    assert.match(
      String(out.headers['set-cookie']),
      new RegExp(`^${SESSION_COOKIE}=;.*Expires=Thu, 01 Jan 1970`),
      'the browser drops the cookie',
    );
    const after = await a.t.app.inject({ url: '/api/seeds', headers: { cookie: copy } });
    assert.equal(after.statusCode, 401);
    assert.equal(after.json().error, 'unauthenticated');
    assert.equal(
      (await a.t.app.inject({ method: 'DELETE', url: '/api/session' })).statusCode,
      200,
      'signing out without a session is no error',
    );
  });

  test("a sign-in from another site's page is refused (no login CSRF); a body that is not {secret} is a 400", async () => {
    const cross = await signIn(SECRET, { origin: 'https://evil.example' });
    assert.equal(cross.statusCode, 403);
    assert.equal(cross.headers['set-cookie'], undefined);
    for (const payload of [{}, { secret: '' }, { secret: 'x'.repeat(1025) }, { secret: 5 }]) {
      const res = await a.t.app.inject({ method: 'POST', url: '/api/session', payload });
      assert.equal(res.statusCode, 400, JSON.stringify(payload).slice(0, 40));
      assert.equal(res.json().error, 'invalid-body');
      assert.match(res.json().message, /^session: send \{"secret": "\.\.\."\} as JSON/);
    }
    // An unknown field is named, as for every body (server/plugins/strict-input.ts).
    const extra = await a.t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET, extra: 1 } });
    assert.deepEqual(
      [extra.statusCode, extra.json()],
      [400, { error: 'invalid-body', message: 'unknown field "extra"; send secret only' }],
    );
    const form = await a.t.app.inject({
      method: 'POST',
      url: '/api/session',
      payload: `secret=${SECRET}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.statusCode, 415);
  });
});

describe('wrong secrets are rate-limited per client, Bearer included; sessions expire', () => {
  test('5 wrong secrets, then 429 with Retry-After, even for the right one; another client is not affected; after the wait it works', async () => {
    const a = await appWithRoutes();
    try {
      const signIn = (secret: string, remoteAddress: string) =>
        a.t.app.inject({ method: 'POST', url: '/api/session', payload: { secret }, remoteAddress });
      for (let i = 0; i < 5; i++) assert.equal((await signIn(`wrong guess ${i}`, '10.0.0.7')).statusCode, 401);
      const limited = await signIn(SECRET, '10.0.0.7');
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.headers['retry-after'], '12');
      assert.deepEqual(limited.json(), {
        error: 'rate-limited',
        message: 'auth: too many wrong secrets from this address; try again in 12 s',
      });
      assert.equal(limited.headers['set-cookie'], undefined);
      const bearer = await a.t.app.inject({
        url: '/api/seeds',
        headers: { authorization: `Bearer ${SECRET}` },
        remoteAddress: '10.0.0.7',
      });
      assert.equal(bearer.statusCode, 429, 'the Bearer header is no way around the limit');
      assert.equal((await signIn(SECRET, '10.0.0.8')).statusCode, 200, 'another client');
      a.clock.now += 12_000;
      assert.equal((await signIn(SECRET, '10.0.0.7')).statusCode, 200, 'after Retry-After');
    } finally {
      await a.close();
    }
  });

  test('Authorization: Bearer <secret> lets a script in; a wrong one is a 401 that counts as a wrong guess', async () => {
    const a = await appWithRoutes();
    try {
      const get = (authorization: string) =>
        a.t.app.inject({ url: '/api/seeds', headers: { authorization }, remoteAddress: '10.0.0.9' });
      for (let i = 0; i < 20; i++)
        assert.equal((await get(`Bearer ${SECRET}`)).statusCode, 200, 'a script using the secret is never slowed');
      const post = await a.t.app.inject({
        method: 'POST',
        url: '/api/seeds',
        payload: { url: 'https://example.org/' },
        headers: { authorization: `Bearer ${SECRET}` },
      });
      assert.equal(post.statusCode, 201);
      for (let i = 0; i < 5; i++) {
        const wrong = await get(`Bearer wrong-${i}`);
        assert.equal(wrong.statusCode, 401);
        assert.equal(wrong.json().error, 'wrong-secret');
      }
      assert.equal((await get(`Bearer ${SECRET}`)).statusCode, 429);
      assert.equal(
        (await get(`Basic ${Buffer.from(`x:${SECRET}`).toString('base64')}`)).statusCode,
        401,
        'only Bearer carries the secret',
      );
    } finally {
      await a.close();
    }
  });

  test('a session ends when SESSION_LIFETIME is over (an injected clock, no waiting)', async () => {
    const a = await appWithRoutes();
    try {
      const cookie = sessionCookie(
        await a.t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET } }),
      );
      a.clock.now += HOUR - 1;
      assert.equal(
        (await a.t.app.inject({ url: '/api/seeds', headers: { cookie } })).statusCode,
        200,
        'a millisecond before the end',
      );
      a.clock.now += 1;
      assert.equal((await a.t.app.inject({ url: '/api/seeds', headers: { cookie } })).statusCode, 401, 'at the end');
      assert.deepEqual((await a.t.app.inject({ url: '/api/session', headers: { cookie } })).json().signedIn, false);
    } finally {
      await a.close();
    }
  });
});

describe('without a secret (loopback)', () => {
  test('nothing asks for a sign-in, and signing in is a 409 that says why', async () => {
    const t = await createTestApp();
    try {
      assert.equal((await t.app.inject({ url: '/api/seeds' })).statusCode, 200);
      assert.deepEqual((await t.app.inject({ url: '/api/session' })).json(), {
        required: false,
        signedIn: false,
        expiresAt: null,
      });
      const res = await t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET } });
      assert.equal(res.statusCode, 409);
      assert.equal(res.json().error, 'no-secret');
    } finally {
      await t.close();
    }
  });
});
