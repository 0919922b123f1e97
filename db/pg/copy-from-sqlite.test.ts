/**
 * The copy of a Lantern SQLite database into PostgreSQL (copy-from-sqlite.ts, and the command that runs it):
 * a real SQLite file written by the real query modules, a throwaway PostgreSQL cluster for this file
 * (test-support/postgres.ts) with a fresh database per test.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { migratedPool, pgCounts, seededSqlite } from '../../test-support/sqlite-with-everything.ts';
import { openDatabase, type Database } from '../open.ts';
import { COPIED_TABLES, copyFromSqlite, type CopyProgress } from './copy-from-sqlite.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

function sqliteCounts(db: Database): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of COPIED_TABLES) out[t] = (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n;
  return out;
}

test('the copy gives equal counts and equal rows, ids and change sequence kept, progress to the total', async () => {
  const env = seededSqlite();
  const pool = await migratedPool(await cluster.createDatabase());
  const readOnly = openDatabase(env.dir, { readonly: true });
  try {
    const progress: CopyProgress[] = [];
    const summary = await copyFromSqlite(readOnly, pool, { onProgress: (p) => progress.push(p), batchRows: 7 });
    assert.equal(summary.verified, true);
    const expected = sqliteCounts(readOnly);
    assert.ok(expected.seeds === 30 && expected.pages === 25 && expected.sessions === 2 && expected.link_targets === 7);
    assert.deepEqual(await pgCounts(pool), expected);
    const lastPages = progress.filter((p) => p.table === 'pages').at(-1);
    assert.deepEqual(lastPages, { table: 'pages', copied: 25, total: 25 });
    assert.ok(progress.filter((p) => p.table === 'seeds').length >= 5, 'seeds reported batch by batch (7 a batch)');

    const page = readOnly
      .prepare("SELECT id, seed_id, title, body, seq FROM pages WHERE url = 'http://s0.test/p0'")
      .get() as Record<string, unknown>;
    const pgPage = (
      await pool.query("SELECT id, seed_id, title, body, change_seq AS seq FROM pages WHERE url = 'http://s0.test/p0'")
    ).rows[0];
    assert.deepEqual(pgPage, page);
    assert.equal(page.title, 'Page 0 again');
    const labels = (await pool.query('SELECT seed_id, label FROM seed_labels ORDER BY seed_id, label')).rows;
    assert.deepEqual(labels, readOnly.prepare('SELECT seed_id, label FROM seed_labels ORDER BY seed_id, label').all());
    const removed = (await pool.query('SELECT id, removed_at FROM seeds WHERE removed_at IS NOT NULL')).rows;
    assert.deepEqual(removed, readOnly.prepare('SELECT id, removed_at FROM seeds WHERE removed_at IS NOT NULL').all());
    const target = (
      await pool.query("SELECT inlinks, sources, anchors FROM link_targets WHERE url = 'http://t.test/0'")
    ).rows[0];
    const sqliteTarget = readOnly
      .prepare("SELECT inlinks, sources, anchors FROM link_targets WHERE url = 'http://t.test/0'")
      .get() as { inlinks: number; sources: Buffer; anchors: string };
    assert.equal(target.inlinks, sqliteTarget.inlinks);
    assert.ok(Buffer.from(target.sources).equals(sqliteTarget.sources));
    assert.equal(target.anchors, sqliteTarget.anchors);
  } finally {
    readOnly.close();
    await pool.end();
    env.cleanup();
  }
});

test('rows written on PostgreSQL after the copy get ids and change numbers past the copied ones', async () => {
  const env = seededSqlite();
  const pool = await migratedPool(await cluster.createDatabase());
  try {
    await copyFromSqlite(env.db, pool);
    const maxSeed = (env.db.prepare('SELECT max(id) AS m FROM seeds').get() as { m: number }).m;
    const maxSeq = (env.db.prepare('SELECT max(seq) AS m FROM pages').get() as { m: number }).m;
    const seed = await pool.query<{ id: number }>(
      "INSERT INTO seeds (url, origin, depth, scope, created_at, updated_at) VALUES ('http://new.test/', 'http://new.test', 1, 'host', 1, 1) RETURNING id",
    );
    assert.equal(seed.rows[0]?.id, maxSeed + 1);
    const page = await pool.query<{ change_seq: number }>(
      "INSERT INTO pages (url, final_url, origin, host, status, fetched_at) VALUES ('http://new.test/', 'http://new.test/', 'http://new.test', 'new.test', 200, 1) RETURNING change_seq",
    );
    assert.equal(page.rows[0]?.change_seq, maxSeq + 1);
  } finally {
    await pool.end();
    env.cleanup();
  }
});

test('a SQLite database of another schema version is refused before anything is written', async () => {
  const env = seededSqlite();
  const pool = await migratedPool(await cluster.createDatabase());
  try {
    await assert.rejects(
      copyFromSqlite(env.db, pool, { knownVersion: 99 }),
      /^CopyError: copy-from-sqlite: the SQLite database is at schema version \d+ but this Lantern knows version 99/,
    );
    assert.equal((await pgCounts(pool)).seeds, 0);
  } finally {
    await pool.end();
    env.cleanup();
  }
});
