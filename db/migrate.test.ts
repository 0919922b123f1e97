import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { migrate, readMigrations, MigrationError } from './migrate.ts';
import { openDatabase, DB_FILE } from './open.ts';

test('a new DATA_DIR is created with the database at the latest version, WAL and foreign keys on', () => {
  const dir = path.join(mkdtempSync(path.join(os.tmpdir(), 'lantern-db-')), 'nested', 'data');
  try {
    const db = openDatabase(dir);
    assert.equal(db.pragma('user_version', { simple: true }), readMigrations().length);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.ok((db.pragma('busy_timeout', { simple: true }) as number) >= 1000);
    const tables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>
    ).map((t) => t.name);
    for (const t of ['seeds', 'frontier', 'hosts', 'pages']) assert.ok(tables.includes(t), t);
    db.close();
    const again = openDatabase(dir);
    assert.equal(again.pragma('user_version', { simple: true }), readMigrations().length, 'opening twice is a no-op');
    again.close();
  } finally {
    rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true });
  }
});

test('a failing migration leaves the database at the version before it, and says which file failed', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-mig-'));
  try {
    mkdirSync(path.join(dir, 'm'));
    writeFileSync(path.join(dir, 'm', '0001-a.sql'), 'CREATE TABLE a (x INTEGER);');
    writeFileSync(path.join(dir, 'm', '0002-b.sql'), 'CREATE TABLE b (y INTEGER); INSERT INTO nope VALUES (1);');
    const db = new BetterSqlite3(path.join(dir, DB_FILE));
    assert.throws(
      () => migrate(db, readMigrations(path.join(dir, 'm'))),
      (e: Error) => e instanceof MigrationError && /0002-b\.sql failed/.test(e.message),
    );
    assert.equal(db.pragma('user_version', { simple: true }), 1);
    const tables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as Array<{ name: string }>
    ).map((t) => t.name);
    assert.deepEqual(tables, ['a'], 'table b was rolled back with its migration');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('gaps in the numbering are refused', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-mig-'));
  try {
    writeFileSync(path.join(dir, '0001-a.sql'), 'SELECT 1;');
    writeFileSync(path.join(dir, '0003-c.sql'), 'SELECT 1;');
    assert.throws(() => readMigrations(dir), /expected migration 2, found 0003-c\.sql/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a database newer than this Lantern is refused, untouched, with what to do', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-mig-'));
  try {
    const db = new BetterSqlite3(path.join(dir, DB_FILE));
    db.pragma('user_version = 99');
    assert.throws(
      () => migrate(db, readMigrations()),
      (e: Error) =>
        e instanceof MigrationError &&
        e.message ===
          `migrate: the database is at version 99 but this Lantern knows only ${readMigrations().length}; use a newer Lantern or another DATA_DIR`,
    );
    assert.equal(db.pragma('user_version', { simple: true }), 99);
    assert.deepEqual(db.prepare(`SELECT name FROM sqlite_master`).all(), [], 'no migration ran');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
