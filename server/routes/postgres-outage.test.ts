/**
 * A Lantern server on PostgreSQL whose database stops mid-run (a real throwaway cluster halted as a crash would,
 * then started again): /api/status still answers, with the outage as state and in words ("database unreachable
 * since ..."); search answers from the search copy; the routes that need the record (adding and listing seeds,
 * labels, an import, signing in, a signed-in session) answer 503 database-unreachable, saying to try again, never
 * a 500, naming PostgreSQL's address only where no secret guards Lantern; and once PostgreSQL is back the state
 * clears and the same routes work again, by themselves. Every wait is on a condition (waitFor), never on time.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { syntheticHosts } from '../../test-support/many-hosts.ts';
import { createTestApp } from '../test-app.ts';
import type { Status } from './crawl.ts';

const SECRET = 'correct horse battery staple outage';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

describe('PostgreSQL stopped under a running server', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  /** A second server without LANTERN_SECRET, on its own database of the same cluster. */
  let open: Awaited<ReturnType<typeof createTestApp>>;
  let url: string;
  let openUrl: string;
  let cookie: string;
  const bearer = { authorization: `Bearer ${SECRET}` };
  const status = async (): Promise<Status> => {
    const res = await t.app.inject({ method: 'GET', url: '/api/status', headers: bearer });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };
  const found = async (q: string): Promise<string[]> => {
    const res = await t.app.inject({ method: 'GET', url: '/api/search', query: { q }, headers: bearer });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { results: Array<{ url: string }> }).results.map((r) => r.url);
  };
  const addSeed = (seed: string) =>
    t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: seed }, headers: bearer });

  before(async () => {
    url = await cluster.createDatabase();
    t = await createTestApp({ DATABASE_URL: url, LANTERN_SECRET: SECRET }, { feed: { pollMs: 50 } });
    const raw = new pg.Client({ connectionString: url });
    await raw.connect();
    await raw.query(
      `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body)
       VALUES ('http://zoo.test/okapi', 'http://zoo.test/okapi', 'http://zoo.test', 'zoo.test', 200, 1, 'Okapi', 'the okapi lives in the rainforest')`,
    );
    await raw.end();
    await waitFor(async () => (await found('okapi')).length === 1, { message: 'the page reaches the search copy' });
    openUrl = await cluster.createDatabase();
    open = await createTestApp({ DATABASE_URL: openUrl }, { feed: { pollMs: 50 } });
    const signIn = await t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET } });
    assert.equal(signIn.statusCode, 200, signIn.body);
    cookie = String(signIn.headers['set-cookie']).split(';')[0];
    assert.equal((await addSeed('http://zoo.test/')).statusCode, 201);
    assert.equal((await status()).storage, null, 'no outage while PostgreSQL answers');
  });
  after(async () => {
    await t?.close();
    await open?.close();
  });

  test('while it is down: status tells why and since when, search answers, the record routes say 503 and to retry', async () => {
    cluster.halt();
    const down = await status();
    assert.equal(down.pages, 1, 'the pages the search copy holds');
    const storage = down.storage;
    assert.ok(storage !== null, 'the outage is state');
    assert.deepEqual([storage.engine, storage.reachable, storage.writable], ['postgres', false, false]);
    assert.ok(!Number.isNaN(Date.parse(storage.since)), storage.since);
    const where = url.replace('postgres://', '');
    assert.match(
      storage.message,
      new RegExp(
        `^database unreachable since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ: PostgreSQL at ${where} does not answer \\(.+\\)\\. .*search answers from this server's copy\\.$`,
      ),
    );
    assert.match(storage.action, /^start PostgreSQL, or check DATABASE_URL/);
    assert.deepEqual(
      down.cluster,
      { answered: false, aliveWithinMs: 90_000, alive: 0, silent: 0, left: 0, nodes: [] },
      'the crawler nodes are unknown, not none',
    );
    t.app.crawler.domains = syntheticHosts(1); // a host whose group's owner Domains would show
    const domains = await t.app.inject({ method: 'GET', url: '/api/domains', headers: bearer });
    assert.equal(domains.statusCode, 200, domains.body);
    assert.equal((domains.json() as { owners: string }).owners, 'unknown', 'Domains answers, its owners unknown');

    assert.deepEqual(await found('okapi'), ['http://zoo.test/okapi'], 'search answers from the copy');

    for (const res of [
      await addSeed('http://zoo.test/giraffes/'),
      await t.app.inject({ method: 'GET', url: '/api/seeds', headers: bearer }),
      await t.app.inject({ method: 'PUT', url: '/api/seeds/1/labels', payload: { labels: ['zoo'] }, headers: bearer }),
      await t.app.inject({ method: 'GET', url: '/api/labels', headers: bearer }),
      await t.app.inject({
        method: 'POST',
        url: '/api/seeds/import',
        payload: { file: 'http://zoo.test/lions/\n' },
        headers: bearer,
      }),
      await t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET } }),
      await t.app.inject({ method: 'GET', url: '/api/seeds', headers: { cookie } }),
    ]) {
      assert.equal(res.statusCode, 503, `${res.statusCode} ${res.body}`);
      assert.equal(res.headers['retry-after'], '10');
      assert.deepEqual(res.json(), {
        error: 'database-unreachable',
        message:
          'error-handler: the database is unreachable: PostgreSQL does not answer; nothing was saved; try again in a ' +
          'moment (Lantern reconnects by itself once it answers); signed in, GET /api/status says more',
      });
    }

    const unguarded = await open.app.inject({
      method: 'POST',
      url: '/api/seeds',
      payload: { url: 'http://zoo.test/' },
    });
    assert.equal(unguarded.statusCode, 503, unguarded.body);
    const body = unguarded.json() as { error: string; message: string };
    assert.equal(body.error, 'database-unreachable');
    assert.match(
      body.message,
      new RegExp(
        `^error-handler: the database is unreachable: PostgreSQL at ${openUrl.replace('postgres://', '')} does not answer \\(.+\\); nothing was saved; try again in a moment \\(Lantern reconnects by itself once it answers\\)$`,
      ),
    );
    assert.ok((await status()).storage !== null, 'still down');
  });

  test('once it is back: the state clears and the same routes work again, without a restart', async () => {
    cluster.resume();
    await waitFor(async () => (await status()).storage === null, {
      message: 'the outage clears once PostgreSQL answers',
    });
    assert.equal((await status()).cluster?.answered, true, 'the nodes are known again');
    assert.equal((await addSeed('http://zoo.test/giraffes/')).statusCode, 201);
    const seeds = await t.app.inject({ method: 'GET', url: '/api/seeds', headers: { cookie } });
    assert.equal(seeds.statusCode, 200, seeds.body);
    assert.equal((seeds.json() as { total: number }).total, 2, 'both seeds, the session still valid');
    const unguarded = await open.app.inject({
      method: 'POST',
      url: '/api/seeds',
      payload: { url: 'http://zoo.test/' },
    });
    assert.equal(unguarded.statusCode, 201, unguarded.body);
  });
});
