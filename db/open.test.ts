import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { readMigrations } from './migrate.ts';
import { assertWritable, DatabaseNotWritableError, DB_FILE, openDatabase } from './open.ts';

test('a database SQLite could open only for reading is refused at open, saying what is wrong and what to do', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-open-'));
  try {
    openDatabase(dir).close();
    // What SQLite does, silently, with a file or folder this user may not write: it opens it read-only.
    const readOnly = new BetterSqlite3(path.join(dir, DB_FILE), { readonly: true });
    try {
      assert.throws(
        () => assertWritable(readOnly, dir),
        (e: Error) =>
          e instanceof DatabaseNotWritableError &&
          e.message ===
            `open: cannot write to the database in ${dir} (SQLITE_READONLY: attempt to write a readonly database): is the disk full or the file read-only? ` +
              'Make DATA_DIR and its files writable by the user running Lantern, or free some space',
      );
    } finally {
      readOnly.close();
    }
    const db = openDatabase(dir);
    assert.doesNotThrow(() => assertWritable(db, dir), 'a writable database passes');
    assert.equal(db.pragma('user_version', { simple: true }), readMigrations().length, 'the probe changed nothing');
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
