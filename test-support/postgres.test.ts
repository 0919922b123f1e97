/**
 * The throwaway PostgreSQL cluster the engine's tests run on: found from PATH or Debian's folders, a clear
 * failure (never a skip) without PostgreSQL installed, fresh databases, and nothing left once stopped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { findPostgresBin, startTestPostgres, TestPostgresError } from './postgres.ts';

/** A folder of fake executables named `names` under `dir`. */
function fakeBin(dir: string, names: string[]): string {
  mkdirSync(dir, { recursive: true });
  for (const name of names) {
    writeFileSync(path.join(dir, name), '#!/bin/sh\n');
    chmodSync(path.join(dir, name), 0o755);
  }
  return dir;
}

test('the binaries come from PATH first, else the newest /usr/lib/postgresql/<version>/bin; none is an error saying what to install', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'lantern-pgbin-'));
  try {
    const debian = path.join(root, 'lib');
    fakeBin(path.join(debian, '9', 'bin'), ['initdb', 'pg_ctl']);
    fakeBin(path.join(debian, '15', 'bin'), ['initdb', 'pg_ctl']);
    fakeBin(path.join(debian, '16', 'bin'), ['pg_ctl']); // a client-only package: no initdb
    assert.equal(findPostgresBin('', debian), path.join(debian, '15', 'bin'), 'numerically newest with initdb');
    const onPath = fakeBin(path.join(root, 'path'), ['initdb', 'pg_ctl']);
    assert.equal(findPostgresBin(`/nonexistent${path.delimiter}${onPath}`, debian), onPath);
    assert.throws(
      () => findPostgresBin('', path.join(root, 'none')),
      (err: Error) =>
        err instanceof TestPostgresError &&
        err.message.startsWith('postgres: ') &&
        err.message.includes('apt-get install -y postgresql'),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a started cluster gives fresh databases on 127.0.0.1, and once stopped nothing of it is left', async () => {
  const cluster = await startTestPostgres();
  let stopped = false;
  try {
    assert.match(cluster.adminUrl, /^postgres:\/\/lantern@127\.0\.0\.1:\d+\/postgres$/);
    const [a, b] = [await cluster.createDatabase(), await cluster.createDatabase()];
    assert.notEqual(a, b);
    const client = new pg.Client({ connectionString: b });
    await client.connect();
    const { rows } = await client.query<{ db: string; tables: string }>(
      `SELECT current_database() AS db, (SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public') AS tables`,
    );
    await client.end();
    assert.deepEqual(rows[0], { db: b.split('/').at(-1), tables: '0' });
    assert.ok(existsSync(cluster.folder));
    cluster.stop();
    stopped = true;
    assert.equal(existsSync(cluster.folder), false, 'its folder is removed');
    const late = new pg.Client({ connectionString: a });
    await assert.rejects(late.connect(), /ECONNREFUSED/, 'its server is gone');
    cluster.stop(); // a second stop is harmless
  } finally {
    if (!stopped) cluster.stop();
  }
});
