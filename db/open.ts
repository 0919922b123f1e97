import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { migrate } from './migrate.ts';
import { errorCode, storageErrorAdvice, storageErrorDetail } from './storage-error.ts';

/** The database file's name inside DATA_DIR. */
export const DB_FILE = 'lantern.db';

/**
 * Opens (creating if missing) Lantern's SQLite file in `dataDir`, set up for one writer and many readers.
 * Two processes write it (the server: seeds, labels, sessions; the crawler primary: everything else), so a
 * transaction that reads before it writes must begin IMMEDIATE (`fn.immediate(...)`): a deferred one whose
 * read snapshot turns into a write after the other process committed fails at once with SQLITE_BUSY,
 * whatever busy_timeout says; an immediate one waits for the lock.
 */
export function openDatabase(dataDir: string, opts: { readonly?: boolean; migrate?: boolean } = {}): Database {
  mkdirSync(dataDir, { recursive: true });
  const db = new BetterSqlite3(path.join(dataDir, DB_FILE), { readonly: opts.readonly ?? false });
  db.pragma('busy_timeout = 5000');
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  if (opts.migrate ?? !opts.readonly) migrate(db);
  if (!opts.readonly) assertWritable(db, dataDir);
  return db;
}

/** The database can be opened but not written: a read-only file or file system, or a full disk. */
export class DatabaseNotWritableError extends Error {
  override name = 'DatabaseNotWritableError';
}

/**
 * SQLite opens a file it may not write as read-only without a word (and a full disk shows only at the
 * first write), so the first page stored would be the first to fail; a no-op write at open says it at
 * once, in words. A database merely busy (another writer) is not this: that error passes through.
 */
export function assertWritable(db: Database, dataDir: string): void {
  try {
    db.pragma(`user_version = ${db.pragma('user_version', { simple: true }) as number}`);
  } catch (err) {
    const detail = storageErrorDetail(err);
    if (detail === null || /^SQLITE_(BUSY|LOCKED)/.test(errorCode(err))) throw err;
    throw new DatabaseNotWritableError(
      `open: ${storageErrorAdvice(dataDir, detail)} Make DATA_DIR and its files writable by the user running Lantern, or free some space`,
      { cause: err },
    );
  }
}

export type { Database };
