/**
 * Search with DATABASE_URL set: the whole app (app.inject) on a throwaway PostgreSQL cluster. Pages written into
 * PostgreSQL with plain SQL (as any writer of the record would) become searchable through GET /api/search from
 * the search copy in DATA_DIR, and leave it when retired or deleted; with PostgreSQL stopped at once, search
 * still answers from the copy, and the feed resumes by itself when the server is back. Every wait is on a
 * condition (waitFor), never on time.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { createTestApp } from '../test-app.ts';
import { linkTargetQueries } from '../../db/link-targets.ts';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { SearchService } from '../search/search-service.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const INSERT = `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body)
  VALUES ($1, $1, 'http://zoo.test', 'zoo.test', 200, 1, $2, $3)`;

const INSERT_OF_SEED = `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body, seed_id)
  VALUES ($1, $1, 'http://zoo.test', 'zoo.test', 200, 1, $2, $3, $4)`;

/** A test app on a fresh PostgreSQL database, a client of that database, and search as a person uses it. */
async function appOnPostgres(options: Parameters<typeof createTestApp>[1] = {}) {
  const url = await cluster.createDatabase();
  const t = await createTestApp({ DATABASE_URL: url }, options);
  const connect = async () => {
    const client = new pg.Client({ connectionString: url });
    // Cut when the test stops the server on purpose; the test connects again (`reconnect`).
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  let raw = await connect();
  return {
    ...t,
    /** Runs SQL on PostgreSQL (a new connection after `reconnect`). */
    sql: (text: string, values: unknown[] = []) => raw.query(text, values),
    async reconnect() {
      await raw.end().catch(() => undefined); // its server was stopped: nothing left to end
      raw = await connect();
    },
    /** The urls GET /api/search answers for `q`, in their order. */
    async ranked(q: string): Promise<string[]> {
      const res = await t.app.inject({ method: 'GET', url: '/api/search', query: { q } });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { results: Array<{ url: string }> }).results.map((r) => r.url);
    },
    /** The urls GET /api/search answers for `q`, sorted. */
    async found(q: string): Promise<string[]> {
      const res = await t.app.inject({ method: 'GET', url: '/api/search', query: { q } });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { results: Array<{ url: string }> }).results.map((r) => r.url).sort();
    },
    async close() {
      await raw.end().catch(() => undefined);
      await t.close();
    },
  };
}

/** Waits until a search for `q` finds exactly `urls`. */
async function untilFound(t: Awaited<ReturnType<typeof appOnPostgres>>, q: string, urls: string[]): Promise<void> {
  let last: string[] = [];
  await waitFor(
    async () => {
      last = await t.found(q);
      return JSON.stringify(last) === JSON.stringify(urls);
    },
    {
      message: () => `search for ${q} to find ${urls.join(', ') || 'nothing'} (found ${last.join(', ') || 'nothing'})`,
    },
  );
}

test('pages stored in PostgreSQL become searchable; a retired page and a deleted one leave the results', async () => {
  const t = await appOnPostgres();
  try {
    // As the crawler stores them: each page of a seed.
    const seed = await t.sql(
      "INSERT INTO seeds (url, origin, depth, scope, created_at, updated_at) VALUES ('http://zoo.test/', 'http://zoo.test', 2, 'host', 1, 1) RETURNING id",
    );
    const seedId = (seed.rows[0] as { id: number }).id;
    for (const n of [1, 2, 3]) {
      await t.sql(INSERT_OF_SEED, [`http://zoo.test/${n}`, `Quokka ${n}`, `the quokka number ${n}`, seedId]);
    }
    await untilFound(t, 'quokka', ['http://zoo.test/1', 'http://zoo.test/2', 'http://zoo.test/3']);
    assert.equal(t.app.db.prepare('SELECT count(*) FROM pages').pluck().get(), 3, 'the copy holds them');

    await t.sql("UPDATE pages SET indexed = 0, removed = 1, seed_id = NULL, body = '' WHERE url = 'http://zoo.test/2'");
    await untilFound(t, 'quokka', ['http://zoo.test/1', 'http://zoo.test/3']);
    await t.sql("DELETE FROM pages WHERE url = 'http://zoo.test/3'");
    await untilFound(t, 'quokka', ['http://zoo.test/1']);
    await t.sql("UPDATE pages SET title = 'Wallaby', body = 'a wallaby now' WHERE url = 'http://zoo.test/1'");
    await untilFound(t, 'wallaby', ['http://zoo.test/1']);
    await untilFound(t, 'quokka', []);
  } finally {
    await t.close();
  }
});

/** Pages that all say "wombat" alike, and three that link to one of them (their words are not about wombats). */
const WOMBATS = ['a', 'b', 'c', 'd'].map((n) =>
  makePage(`http://zoo.test/wombat-${n}`, { title: `Notes ${n}`, body: `All about the wombat, notes ${n}.` }),
);
const LINKERS = [1, 2, 3].map((n) => makePage(`http://zoo.test/see-${n}`, { title: `See ${n}`, body: 'See.' }));

/** The order SearchService gives `q` on a SQLite crawl of WOMBATS and LINKERS, before and after the links. */
function sqliteOrders(q: string): { before: string[]; after: string[]; target: string } {
  const env = tempDatabase('linkfeed-sqlite');
  const order = () => {
    const service = new SearchService(env.db);
    try {
      service.refresh();
      return service.search(q, { limit: 10, offset: 0 }).results.map((r) => r.url);
    } finally {
      service.close();
    }
  };
  try {
    const pages = pageQueries(env.db);
    const sources = env.db
      .transaction(() => [...WOMBATS, ...LINKERS].map((p) => pages.upsertPage(p)))()
      .slice(-3);
    const before = order();
    const target = before.at(-1) as string; // the last without links: their words must lift it
    const links = linkTargetQueries(env.db);
    env.db.transaction(() => {
      for (const from of sources) links.recordLinks(from, [{ url: target, text: 'wombat burrow' }]);
    })();
    return { before, after: order(), target };
  } finally {
    env.cleanup();
  }
}

test('on PostgreSQL, link targets rank results by anchor text and inlinks exactly as on SQLite', async () => {
  const q = 'wombat';
  const sqlite = sqliteOrders(q);
  assert.equal(sqlite.before.length, 4);
  assert.equal(sqlite.after[0], sqlite.target, 'on SQLite the linked page comes first');
  const t = await appOnPostgres();
  try {
    const insert = `INSERT INTO pages (url, final_url, origin, host, status, content_type, lang, fetched_at, title, body)
      VALUES ($1, $1, 'http://zoo.test', 'zoo.test', 200, 'text/html; charset=utf-8', 'en', $2, $3, $4) RETURNING id`;
    const ids: number[] = [];
    for (const p of [...WOMBATS, ...LINKERS]) {
      ids.push(((await t.sql(insert, [p.url, p.fetchedAt, p.title, p.body])).rows[0] as { id: number }).id);
    }
    let last: string[] = [];
    const untilRanked = (order: string[]) =>
      waitFor(
        async () => {
          last = await t.ranked(q);
          return JSON.stringify(last) === JSON.stringify(order);
        },
        { message: () => `search for ${q} to rank ${order.join(', ')} (ranked ${last.join(', ')})` },
      );
    await untilRanked(sqlite.before);

    // As the crawler's PostgreSQL writer leaves the row (db/pg/pg-link-targets.ts): three linking pages, one text.
    const sources = Buffer.alloc(12);
    for (const [i, id] of ids.slice(-3).entries()) sources.writeUInt32LE(id, i * 4);
    await t.sql(
      "INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts) VALUES ($1, 3, $2, 'wombat burrow', '3')",
      [sqlite.target, sources],
    );
    await untilRanked(sqlite.after);
    await untilFound(t, 'burrow', []); // anchor text ranks a page, it does not make one match (as on SQLite)
  } finally {
    await t.close();
  }
});

test('label: finds the pages of seeds with that label, and follows labels changed through the API', async () => {
  const t = await appOnPostgres();
  try {
    const added = await t.app.inject({
      method: 'POST',
      url: '/api/seeds',
      payload: { url: 'http://zoo.test/', labels: ['marsupials'] },
    });
    assert.equal(added.statusCode, 201, added.body);
    const seedId = (added.json() as { seed: { id: number } }).seed.id;
    await t.sql(INSERT_OF_SEED, ['http://zoo.test/koala', 'Koala', 'a koala sleeps', seedId]);
    await t.sql(INSERT, ['http://zoo.test/loose-koala', 'Koala', 'a koala of no seed']);
    await untilFound(t, 'koala', ['http://zoo.test/koala', 'http://zoo.test/loose-koala']);
    await untilFound(t, 'label:marsupials koala', ['http://zoo.test/koala']);

    const relabelled = await t.app.inject({
      method: 'PUT',
      url: `/api/seeds/${seedId}/labels`,
      payload: { labels: ['sleepers'] },
    });
    assert.equal(relabelled.statusCode, 200, relabelled.body);
    await untilFound(t, 'label:sleepers koala', ['http://zoo.test/koala']);
    await untilFound(t, 'label:marsupials koala', []);
  } finally {
    await t.close();
  }
});

test('a NOTIFY wakes the feed: with the poll ten minutes away, a stored page is searchable at once', async () => {
  const t = await appOnPostgres({ feed: { pollMs: 600_000 } });
  try {
    await waitFor(() => t.feed?.status.state === 'following', { message: 'the first (empty) read done' });
    await t.sql(INSERT, ['http://zoo.test/platypus', 'Platypus', 'a platypus swims']);
    await untilFound(t, 'platypus', ['http://zoo.test/platypus']);
  } finally {
    await t.close();
  }
});

test('PostgreSQL stopped at once: search answers from the copy; started again, the feed resumes by itself', async () => {
  const t = await appOnPostgres();
  try {
    await t.sql(INSERT, ['http://zoo.test/wombat', 'Wombat', 'a wombat digs']);
    await untilFound(t, 'wombat', ['http://zoo.test/wombat']);
    const feed = t.feed;
    assert.ok(feed !== undefined);

    // An immediate stop, as a lost machine: every connection cut; what was committed survives (the test cluster
    // keeps synchronous_commit on), so the outage is only that: PostgreSQL unreachable, then back.
    cluster.halt();
    await waitFor(() => feed.status.state === 'failing', { message: 'the feed to notice PostgreSQL is gone' });
    assert.deepEqual(await t.found('wombat'), ['http://zoo.test/wombat'], 'search answers from the copy');

    cluster.resume();
    await t.reconnect();
    await t.sql(INSERT, ['http://zoo.test/numbat', 'Numbat', 'a numbat eats termites, unlike a wombat']);
    await untilFound(t, 'numbat', ['http://zoo.test/numbat']);
    await untilFound(t, 'wombat', ['http://zoo.test/numbat', 'http://zoo.test/wombat']);
    assert.equal(feed.status.state, 'following');
  } finally {
    await t.close();
  }
});
