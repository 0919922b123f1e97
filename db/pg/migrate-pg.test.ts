/**
 * PostgreSQL's migrations and their runner, on a throwaway cluster (test-support/postgres.ts): the schema of
 * SQLite's tables, the version table, a failing migration rolled back whole, several starts at once, and the
 * change feed's sequence on pages.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { MigrationError, readMigrations } from '../migrate.ts';
import { openDatabase } from '../open.ts';
import { migratePg, PG_MIGRATIONS_DIR } from './migrate-pg.ts';
import { openPgPool } from './pool.ts';
import { FEED_ONLY_COLUMNS, FEED_ONLY_TABLES } from './pg-change-feed.ts';
import { LEASE_TABLES } from './pg-leases.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** Each table's columns, by name, sorted. */
type Columns = Record<string, string[]>;

function sqliteColumns(): Columns {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-schema-'));
  try {
    openDatabase(dir).close();
    const db = new BetterSqlite3(path.join(dir, 'lantern.db'), { readonly: true });
    const tables = db
      .prepare<[], { name: string }>(
        `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%' AND name NOT LIKE 'pages_idents%'`,
      )
      .all();
    const out: Columns = {};
    for (const { name } of tables)
      out[name] = db
        .prepare<[], { name: string }>(`SELECT name FROM pragma_table_info('${name}')`)
        .all()
        .map((c) => c.name)
        .sort();
    db.close();
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("migrated, PostgreSQL has SQLite's tables with their columns (pages' seq as change_seq), once however often it starts", async () => {
  const pool = openPgPool(await cluster.createDatabase());
  try {
    const latest = readMigrations(PG_MIGRATIONS_DIR).length;
    // Three Lantern processes starting on one new database at once: one migrates, the others find it done.
    assert.deepEqual(await Promise.all([migratePg(pool), migratePg(pool), migratePg(pool)]), [latest, latest, latest]);
    const { rows: versions } = await pool.query('SELECT version, name FROM lantern_schema ORDER BY version');
    assert.deepEqual(
      versions.map((v) => v.version),
      Array.from({ length: latest }, (_, i) => i + 1),
    );
    const { rows } = await pool.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'lantern_schema'`,
    );
    const pgColumns: Columns = {};
    for (const r of rows) {
      if (FEED_ONLY_TABLES.includes(r.table_name) || LEASE_TABLES.includes(r.table_name)) continue;
      if (FEED_ONLY_COLUMNS[r.table_name]?.includes(r.column_name)) continue;
      (pgColumns[r.table_name] ??= []).push(r.column_name === 'change_seq' ? 'seq' : r.column_name);
    }
    for (const list of Object.values(pgColumns)) list.sort();
    assert.deepEqual(pgColumns, sqliteColumns());
  } finally {
    await pool.end();
  }
});

test('a failing migration leaves the database at the version before it; a database newer than this Lantern is refused', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-mig-pg-'));
  const pool = openPgPool(await cluster.createDatabase());
  try {
    mkdirSync(path.join(dir, 'm'));
    writeFileSync(path.join(dir, 'm', '0001-a.sql'), 'CREATE TABLE a (x INTEGER);');
    writeFileSync(path.join(dir, 'm', '0002-b.sql'), 'CREATE TABLE b (y INTEGER); INSERT INTO nope VALUES (1);');
    await assert.rejects(
      migratePg(pool, readMigrations(path.join(dir, 'm'))),
      (e: Error) => e instanceof MigrationError && /^migrate-pg: 0002-b\.sql failed/.test(e.message),
    );
    const { rows } = await pool.query(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
    );
    assert.deepEqual(
      rows.map((r) => r.table_name),
      ['a', 'lantern_schema'],
      'table b was rolled back with its migration',
    );
    await assert.rejects(
      migratePg(pool, readMigrations(path.join(dir, 'm')).slice(0, 0)),
      (e: Error) => e instanceof MigrationError && /at version 1 but this Lantern knows only 0/.test(e.message),
    );
  } finally {
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('every write of a page moves it to the end of the change feed (change_seq), whatever statement wrote it', async () => {
  const pool = openPgPool(await cluster.createDatabase());
  try {
    await migratePg(pool);
    const insert = (url: string) =>
      pool.query(
        `INSERT INTO pages (url, final_url, origin, host, status, fetched_at) VALUES ($1, $1, 'https://a.org', 'a.org', 200, 1)`,
        [url],
      );
    await insert('https://a.org/1');
    await insert('https://a.org/2');
    const feed = async () =>
      (await pool.query<{ url: string; change_seq: number }>('SELECT url, change_seq FROM pages ORDER BY change_seq'))
        .rows;
    const before = await feed();
    assert.deepEqual(
      before.map((r) => r.url),
      ['https://a.org/1', 'https://a.org/2'],
    );
    await pool.query(`UPDATE pages SET indexed = 0 WHERE url = 'https://a.org/1'`);
    const after = await feed();
    assert.deepEqual(
      after.map((r) => r.url),
      ['https://a.org/2', 'https://a.org/1'],
    );
    assert.ok(after[1].change_seq > before[1].change_seq, 'a later write has a higher change_seq');
    assert.equal(typeof after[1].change_seq, 'number', 'BIGINT as a number');
  } finally {
    await pool.end();
  }
});

test("a page's body is compressed with lz4, PostgreSQL's faster method, where the server has it", async () => {
  const pool = openPgPool(await cluster.createDatabase());
  try {
    await migratePg(pool);
    const body = 'The recycling rule applies to vectors of different lengths. '.repeat(500);
    await pool.query(
      `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, body)
       VALUES ('https://a.org/r', 'https://a.org/r', 'https://a.org', 'a.org', 200, 1, $1)`,
      [body],
    );
    const { rows } = await pool.query<{ method: string | null; body: string }>(
      `SELECT pg_column_compression(body) AS method, body FROM pages WHERE url = 'https://a.org/r'`,
    );
    assert.equal(rows[0].method, 'lz4');
    assert.equal(rows[0].body, body, 'read back whole');
  } finally {
    await pool.end();
  }
});
