/**
 * The frontier benchmark compares the engines on the same crawl: the PostgreSQL database frontier-pg.ts
 * generates must hold exactly the rows frontier-db.ts writes into SQLite (every column both engines have,
 * ids and order included), and new rows must get the ids SQLite would give them. A real SQLite file and a
 * throwaway PostgreSQL cluster (test-support/postgres.ts).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import { openPgPool } from '../../db/pg/pool.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { type FrontierShape, frontierDatabase } from './frontier-db.ts';
import { frontierPgDatabase } from './frontier-pg.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** The tables the generators write (and the one a migration fills), each in a total order. */
const TABLES = { seeds: 'id', hosts: 'origin', frontier: 'id', crawler_stop: 'id', seed_hosts: 'seed_id' };

async function columnsBoth(sqlite: BetterSqlite3.Database, pool: pg.Pool, table: string): Promise<string[]> {
  const inSqlite = (sqlite.prepare(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map(
    (c) => c.name,
  );
  const { rows } = await pool.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns WHERE table_name = $1`,
    [table],
  );
  const inPg = new Set(rows.map((r) => r.name));
  return inSqlite.filter((c) => inPg.has(c));
}

test('the PostgreSQL frontier holds the SQLite one’s rows, ids and order, and draws the ids that follow', async () => {
  const shape: FrontierShape = { hosts: 20, urlsPerHost: 6, seeds: 4 };
  const now = 1_765_000_000_000;
  const root = mkdtempSync(path.join(os.tmpdir(), 'lantern-frontier-pg-test-'));
  const { file } = frontierDatabase(shape, { reuse: false, root, now });
  const sqlite = new BetterSqlite3(file, { readonly: true });
  const { url } = await frontierPgDatabase(cluster.adminUrl, shape, now);
  const pool = openPgPool(url, { max: 1 });
  try {
    for (const [table, order] of Object.entries(TABLES)) {
      const columns = await columnsBoth(sqlite, pool, table);
      assert.ok(columns.length >= 3, `${table}: columns in common`);
      const select = `SELECT ${columns.join(', ')} FROM ${table} ORDER BY ${order}`;
      const { rows } = await pool.query(select);
      assert.deepEqual(rows, sqlite.prepare(select).all(), `${table}: the same rows on both engines`);
    }
    const { rows: frontier } = await pool.query<{ n: number }>('SELECT count(*) AS n FROM frontier');
    assert.equal(frontier[0].n, shape.hosts * shape.urlsPerHost);
    // The next row added gets the id SQLite's rowid would: one past the last.
    const { rows: added } = await pool.query<{ id: number }>(
      `INSERT INTO frontier (url, origin, seed_id, depth, discovered_at)
       VALUES ('http://host-0.test/new', 'http://host-0.test', 1, 1, 0) RETURNING id`,
    );
    assert.equal(added[0].id, shape.hosts * shape.urlsPerHost + 1);
  } finally {
    await pool.end();
    sqlite.close();
    rmSync(root, { recursive: true, force: true });
  }
});
