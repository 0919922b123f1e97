/**
 * The seed routes with DATABASE_URL set: the whole app (app.inject) on a throwaway PostgreSQL cluster
 * (test-support/postgres.ts). Seeds added, listed, labelled, imported, acted on in bulk and removed answer as on
 * SQLite, and land in PostgreSQL, none in the SQLite file of DATA_DIR. Signing in keeps its session there too.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { DB_FILE } from '../../db/open.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { createTestApp } from '../test-app.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** A test app on a fresh PostgreSQL database, and a client of that database to look at its rows. */
async function appOnPostgres(env: Record<string, string> = {}) {
  const url = await cluster.createDatabase();
  const t = await createTestApp({ DATABASE_URL: url, ...env });
  const raw = new pg.Client({ connectionString: url });
  await raw.connect();
  return {
    ...t,
    /** Seeds rows in PostgreSQL, and in the SQLite file of DATA_DIR (which must stay empty). */
    async stored() {
      const inPg = (await raw.query<{ n: string }>('SELECT count(*) AS n FROM seeds')).rows[0]?.n;
      // No SQLite record is opened on PostgreSQL (search reads its copy in DATA_DIR/search-copy, whose seeds are
      // taken from PostgreSQL's for label:), so lantern.db is never even created.
      const file = path.join(t.dataDir, DB_FILE);
      let inSqlite = 0;
      if (existsSync(file)) {
        const record = new BetterSqlite3(file, { readonly: true });
        inSqlite = record.prepare<[], number>('SELECT count(*) FROM seeds').pluck().get() ?? 0;
        record.close();
      }
      return { postgres: Number(inPg), sqlite: inSqlite };
    },
    async close() {
      await raw.end();
      await t.close();
    },
  };
}

describe('seeds on PostgreSQL', () => {
  let t: Awaited<ReturnType<typeof appOnPostgres>>;
  before(async () => {
    t = await appOnPostgres();
  });
  after(async () => {
    await t?.close();
  });
  const inject = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, ...(payload === undefined ? {} : { payload }) });
  const listed = async (query = '') =>
    (await inject('GET', `/api/seeds${query}`)).json() as {
      seeds: Array<{ id: number; url: string; labels: string[]; depth: number; state: string; title: string | null }>;
      total: number;
    };

  test('POST adds (201), the same URL again updates (200), GET lists them; the rows are in PostgreSQL only', async () => {
    const added = await inject('POST', '/api/seeds', {
      url: 'https://Docs.Example.org/guide',
      depth: 1,
      labels: ['Docs'],
    });
    assert.equal(added.statusCode, 201, added.body);
    const seed = added.json().seed;
    assert.deepEqual(
      [seed.url, seed.depth, seed.scope, seed.labels, seed.state],
      ['https://docs.example.org/guide', 1, 'host', ['docs'], 'crawling'],
    );
    const again = await inject('POST', '/api/seeds', { url: 'https://docs.example.org/guide', depth: 3 });
    assert.equal(again.statusCode, 200, again.body);
    assert.deepEqual([again.json().seed.id, again.json().seed.depth], [seed.id, 3]);
    assert.equal((await inject('POST', '/api/seeds', { url: 'https://b.example.org/' })).statusCode, 201);
    const list = await listed();
    assert.deepEqual(
      [list.total, list.seeds.map((s) => s.url)],
      [2, ['https://b.example.org/', 'https://docs.example.org/guide']],
    );
    assert.deepEqual(await t.stored(), { postgres: 2, sqlite: 0 });
  });

  test('labels: PUT sets a seed’s labels, GET /api/labels counts them, the list filters and searches by them', async () => {
    const [b, docs] = (await listed()).seeds;
    const put = await inject('PUT', `/api/seeds/${b!.id}/labels`, { labels: ['Docs', 'Rust Lang'] });
    assert.equal(put.statusCode, 200, put.body);
    assert.deepEqual(put.json().seed.labels, ['docs', 'rust-lang']);
    assert.deepEqual((await inject('GET', '/api/labels')).json(), {
      labels: [
        { label: 'docs', seeds: 2 },
        { label: 'rust-lang', seeds: 1 },
      ],
    });
    assert.deepEqual(
      (await listed('?label=rust-lang')).seeds.map((s) => s.id),
      [b!.id],
    );
    assert.deepEqual(
      (await listed('?q=GUIDE')).seeds.map((s) => s.id),
      [docs!.id],
    );
    assert.equal((await inject('PUT', '/api/seeds/999999/labels', { labels: ['x'] })).statusCode, 404);
  });

  test('an import creates seeds and merges into existing ones, in PostgreSQL', async () => {
    const res = await inject('POST', '/api/seeds/import', {
      file: 'https://c.example.org/\nhttps://b.example.org/\n',
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual([res.json().created, res.json().merged], [1, 1]);
    assert.deepEqual(await t.stored(), { postgres: 3, sqlite: 0 });
  });

  test('bulk: label, then remove a selection; DELETE removes one; removed seeds are listed under state=removed only', async () => {
    const ids = (await listed('?sort=oldest')).seeds.map((s) => s.id);
    const labelled = await inject('POST', '/api/seeds/bulk', { action: 'label', ids, labels: ['Later'] });
    assert.deepEqual(labelled.json(), { action: 'label', count: 3 });
    assert.ok((await listed()).seeds.every((s) => s.labels.includes('later')));
    const removed = await inject('POST', '/api/seeds/bulk', { action: 'remove', ids: ids.slice(0, 2) });
    assert.deepEqual(removed.json(), { action: 'remove', count: 2 });
    const one = await inject('DELETE', `/api/seeds/${ids[2]}`);
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(one.json().removed.id, ids[2]);
    assert.equal((await inject('DELETE', `/api/seeds/${ids[2]}`)).statusCode, 404, 'removing it again');
    assert.deepEqual(await listed(), { seeds: [], total: 0 });
    assert.deepEqual(
      (await listed('?state=removed&sort=oldest')).seeds.map((s) => s.id),
      ids,
    );
  });
});

describe('sign-in on PostgreSQL', () => {
  const SECRET = 'a-secret-of-enough-length';
  test('a session started by signing in is kept in PostgreSQL and ends at sign-out', async () => {
    const t = await appOnPostgres({ LANTERN_SECRET: SECRET });
    try {
      const signIn = await t.app.inject({ method: 'POST', url: '/api/session', payload: { secret: SECRET } });
      assert.equal(signIn.statusCode, 200, signIn.body);
      const cookie = signIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
      assert.equal((await t.app.inject({ url: '/api/seeds', headers: { cookie } })).statusCode, 200);
      assert.equal(t.app.db.prepare('SELECT count(*) FROM sessions').pluck().get(), 0, 'not in SQLite');
      assert.equal(
        (await t.app.inject({ method: 'DELETE', url: '/api/session', headers: { cookie } })).statusCode,
        200,
      );
      assert.equal((await t.app.inject({ url: '/api/seeds', headers: { cookie } })).statusCode, 401);
    } finally {
      await t.close();
    }
  });
});
