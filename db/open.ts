import { mkdirSync } from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { migrate } from './migrate.ts';

/** The database file's name inside DATA_DIR. */
export const DB_FILE = 'lantern.db';

/** Opens (creating if missing) Lantern's SQLite file in `dataDir`, set up for one writer and many readers. */
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
  return db;
}

export type { Database };
