/**
 * The change feed on a throwaway PostgreSQL cluster: writes, retirements and deletions come out in order past a
 * cursor, and a change held by a transaction still in flight is never stepped past.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { migratePg } from './migrate-pg.ts';
import { openPgPool } from './pool.ts';
import {
  FEED_START,
  type FeedCursor,
  type PageChangeEvent,
  readPageChanges,
  readPgIdentity,
} from './pg-change-feed.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

async function freshDatabase(): Promise<{ url: string; pool: pg.Pool }> {
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 3 });
  await migratePg(pool);
  return { url, pool };
}

const INSERT = `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body)
  VALUES ($1, $1, 'http://a.test', 'a.test', 200, 1, $2, $3) RETURNING id`;

/** Reads the feed as a copy does: chunk after chunk past the cursor until it answers nothing. */
async function drain(
  pool: pg.Pool,
  cursor: FeedCursor,
  limit = 2,
): Promise<{ seen: PageChangeEvent[]; cursor: FeedCursor }> {
  const seen: PageChangeEvent[] = [];
  for (;;) {
    const chunk = await readPageChanges(pool, cursor, limit);
    if (chunk.length === 0) return { seen, cursor };
    seen.push(...chunk);
    cursor = (chunk.at(-1) as PageChangeEvent).at;
  }
}

const urls = (events: PageChangeEvent[]) => events.map((e) => `${e.kind}:${e.kind === 'page' ? e.page.url : e.url}`);

test('writes, an update, a retirement and a deletion come out past the cursor in commit order, in chunks', async () => {
  const { pool } = await freshDatabase();
  try {
    for (const n of [1, 2, 3]) await pool.query(INSERT, [`http://a.test/${n}`, `Page ${n}`, `body ${n}`]);
    let { seen, cursor } = await drain(pool, FEED_START);
    assert.deepEqual(urls(seen), ['page:http://a.test/1', 'page:http://a.test/2', 'page:http://a.test/3']);
    const first = seen[0];
    assert.ok(first?.kind === 'page');
    assert.deepEqual(
      [first.page.title, first.page.body, first.page.indexed, first.removed],
      ['Page 1', 'body 1', true, false],
    );

    await pool.query("UPDATE pages SET title = 'Page one' WHERE url = 'http://a.test/1'");
    await pool.query("UPDATE pages SET indexed = 0, removed = 1, body = '' WHERE url = 'http://a.test/2'");
    await pool.query("DELETE FROM pages WHERE url = 'http://a.test/3'");
    ({ seen, cursor } = await drain(pool, cursor));
    assert.deepEqual(urls(seen), ['page:http://a.test/1', 'page:http://a.test/2', 'deleted:http://a.test/3']);
    const [retitled, retired] = seen;
    assert.ok(retitled?.kind === 'page' && retired?.kind === 'page');
    assert.equal(retitled.page.title, 'Page one');
    assert.deepEqual([retired.removed, retired.page.indexed], [true, false]);
    assert.deepEqual((await drain(pool, cursor)).seen, [], 'nothing is delivered twice');
  } finally {
    await pool.end();
  }
});

test('a change held by a transaction still open is not stepped past: both it and a later one are delivered', async () => {
  const { url, pool } = await freshDatabase();
  const early = new pg.Client({ connectionString: url });
  const late = new pg.Client({ connectionString: url });
  await early.connect();
  await late.connect();
  try {
    // The early transaction draws its sequence value (and its transaction id) first, and commits last.
    await early.query('BEGIN');
    await early.query(INSERT, ['http://a.test/early', 'Early', 'held open']);
    await late.query('BEGIN');
    await late.query(INSERT, ['http://a.test/late', 'Late', 'committed first']);
    await late.query('COMMIT');

    const whileOpen = await drain(pool, FEED_START);
    await early.query('COMMIT');
    const afterCommit = await drain(pool, whileOpen.cursor);
    const delivered = [...urls(whileOpen.seen), ...urls(afterCommit.seen)];
    assert.deepEqual(delivered.sort(), ['page:http://a.test/early', 'page:http://a.test/late']);
    assert.deepEqual(urls(afterCommit.seen), ['page:http://a.test/early', 'page:http://a.test/late']);
  } finally {
    await early.end();
    await late.end();
    await pool.end();
  }
});

const TARGET = `INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts)
  VALUES ($1, 1, '\\x01000000', $2, '1')`;

test("link targets come out on the pages' clock, an update again, and one held open is not stepped past", async () => {
  const { url, pool } = await freshDatabase();
  const early = new pg.Client({ connectionString: url });
  const late = new pg.Client({ connectionString: url });
  await early.connect();
  await late.connect();
  try {
    await pool.query(INSERT, ['http://a.test/1', 'Page 1', 'body 1']);
    await pool.query(TARGET, ['http://a.test/1', 'first words']);
    let { seen, cursor } = await drain(pool, FEED_START);
    assert.deepEqual(urls(seen), ['page:http://a.test/1', 'link-target:http://a.test/1']);
    const first = seen[1];
    assert.ok(first?.kind === 'link-target');
    assert.deepEqual(
      [first.inlinks, first.sources.toString('hex'), first.anchors, first.anchorCounts],
      [1, '01000000', 'first words', '1'],
    );

    // The early transaction draws its sequence value (and its transaction id) first, and commits last.
    await early.query('BEGIN');
    await early.query(TARGET, ['http://a.test/early', 'held open']);
    await late.query('BEGIN');
    await late.query("UPDATE link_targets SET anchors = 'first words\nmore words' WHERE url = 'http://a.test/1'");
    await late.query('COMMIT');
    const whileOpen = await drain(pool, cursor);
    await early.query('COMMIT');
    ({ seen, cursor } = await drain(pool, whileOpen.cursor));
    assert.deepEqual([...urls(whileOpen.seen), ...urls(seen)].sort(), [
      'link-target:http://a.test/1',
      'link-target:http://a.test/early',
    ]);
    const updated = [...whileOpen.seen, ...seen].find((e) => e.kind === 'link-target' && e.url === 'http://a.test/1');
    assert.ok(updated?.kind === 'link-target' && updated.anchors === 'first words\nmore words');
    assert.deepEqual((await drain(pool, cursor)).seen, [], 'nothing is delivered twice');
  } finally {
    await early.end();
    await late.end();
    await pool.end();
  }
});

test('each database has its own identity, the same on every read', async () => {
  const a = await freshDatabase();
  const b = await freshDatabase();
  try {
    const [idA, idA2, idB] = [await readPgIdentity(a.pool), await readPgIdentity(a.pool), await readPgIdentity(b.pool)];
    assert.deepEqual(idA, idA2);
    assert.notEqual(idA.instanceId, idB.instanceId);
    assert.match(idA.systemId, /^\d+$/);
    assert.equal(idA.systemId, idB.systemId, 'one cluster');
  } finally {
    await a.pool.end();
    await b.pool.end();
  }
});
