/**
 * DNS rebinding, through app.inject: a page whose name was re-pointed at 127.0.0.1 sends its own name
 * in `Host`. Lantern answers only its own names; everything else, API, files and the web app's page
 * alike, is a 421 that carries the security headers and says which setting would allow the name.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { makeWebRoot } from '../../test-support/web-root.ts';
import { SECURITY_HEADERS } from './security-headers.ts';

// A public name needs a secret (shared/config.ts); every request here carries it, so that what decides is the name.
const SECRET = 'host-check test secret';
const auth = { authorization: `Bearer ${SECRET}` };
let t: Awaited<ReturnType<typeof createTestApp>>;
let web: ReturnType<typeof makeWebRoot>;

before(async () => {
  web = makeWebRoot();
  t = await createTestApp({ PUBLIC_HOSTS: 'good.test', LANTERN_SECRET: SECRET }, { webRoot: web.root }); // listens (as if) on port 80
  await t.app.ready();
});
after(async () => {
  await t.close();
  web.remove();
});

const json = { 'content-type': 'application/json', ...auth };
const requests = [
  { method: 'GET', url: '/api/seeds' },
  { method: 'GET', url: '/api/search?q=secret' },
  { method: 'GET', url: '/api/status' },
  { method: 'GET', url: '/api/health' },
  { method: 'POST', url: '/api/seeds', payload: { url: 'https://example.org/' }, headers: json },
  { method: 'DELETE', url: '/api/seeds/1' },
  { method: 'GET', url: '/' },
  { method: 'GET', url: '/assets/app.js' },
  { method: 'GET', url: '/seeds' },
  { method: 'GET', url: '/opensearch.xml' },
] as const;

test("another name in Host gets 421 for everything: API, files, the web app's page; with the security headers and what to set", async () => {
  for (const host of [
    'evil.test',
    'evil.test:80',
    'localhost:3000',
    '127.0.0.1:8080',
    '127.0.0.1.nip.io:80',
    'good.test.evil.test:80',
  ]) {
    for (const r of requests) {
      const res = await t.app.inject({
        ...r,
        headers: { ...auth, ...('headers' in r ? r.headers : {}), host, origin: `http://${host}` },
      });
      assert.equal(res.statusCode, 421, `${host} ${r.method} ${r.url}`);
      for (const [name, value] of Object.entries(SECURITY_HEADERS))
        assert.equal(res.headers[name], value, `${name} on the 421`);
      const name = host.replace(/:\d+$/, '');
      assert.deepEqual(res.json(), {
        error: 'misdirected-request',
        message:
          `host-check: Lantern does not answer requests for ${JSON.stringify(host)}, so that a page whose name points at this machine reads nothing; ` +
          `to reach Lantern by that name, add it to PUBLIC_HOSTS (e.g. PUBLIC_HOSTS=${name})`,
      });
    }
  }
  assert.deepEqual((await t.app.inject({ url: '/api/seeds', headers: auth })).json().seeds, [], 'nothing was added');
});

test("Lantern's own names are answered: loopback on its port, and PUBLIC_HOSTS", async () => {
  for (const host of [
    'localhost:80',
    'localhost',
    '127.0.0.1',
    '127.0.0.1:80',
    '[::1]:80',
    'good.test',
    'good.test:80',
    'GOOD.TEST',
  ]) {
    const page = await t.app.inject({ url: '/', headers: { host } }); // the web app's page needs no sign-in
    assert.equal(page.statusCode, 200, host);
    assert.match(page.body, /<div id="root">/);
    assert.equal((await t.app.inject({ url: '/api/seeds', headers: { host, ...auth } })).statusCode, 200, host);
  }
});

test("a write must come from a page of one of Lantern's names, whatever Host says", async () => {
  const post = (origin: string, host?: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      payload: { url: `https://example.org/${encodeURIComponent(origin)}` },
      headers: { ...json, origin, ...(host ? { host } : {}) },
    });
  assert.equal((await post('http://good.test', 'localhost:80')).statusCode, 201, 'a page of another of its own names');
  assert.equal((await post('http://127.0.0.1')).statusCode, 201);
  for (const origin of ['http://evil.test', 'http://localhost:3000', 'null', 'https://good.test.evil.test']) {
    const res = await post(origin, 'good.test');
    assert.equal(res.statusCode, 403, origin);
    assert.equal(res.json().error, 'cross-origin');
  }
});
