/**
 * A Lantern server's search copy (DATA_DIR/search-copy, db/search-copy.ts) seen from a test, beside the running
 * server: its state read from the file (read-only, as a second reader of a WAL database), and whether it has caught
 * up with PostgreSQL (nothing finished past its cursor, seeds and labels as the record holds them). Tests wait on
 * that condition, never on time, before they compare what two servers answer.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { type FeedCursor, readPageChanges } from '../db/pg/pg-change-feed.ts';
import type { Queryable } from '../db/pg/pool.ts';
import { readSeedsForCopy } from '../db/pg/pg-seed-copy.ts';
import { SEARCH_COPY_DIR } from '../db/search-copy.ts';

/** What a copy's file holds about itself. */
export interface CopyState {
  /** The feed's cursor: the last change applied. */
  cursor: FeedCursor;
  /** Whether its first build has ended once. */
  caughtUp: boolean;
  /** Rows of its pages table (searchable or not). */
  pages: number;
  /** Pages in search (indexed). */
  indexed: number;
}

/** Opens the copy of `dataDir` read-only for `read`; undefined when there is no copy (or no state row) yet. */
function withCopy<T>(dataDir: string, read: (db: Database.Database) => T): T | undefined {
  const file = path.join(dataDir, SEARCH_COPY_DIR, 'lantern.db');
  if (!existsSync(file)) return undefined;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'search_copy_state'").get();
    return table === undefined ? undefined : read(db);
  } finally {
    db.close();
  }
}

/** The state of the copy in `dataDir` (see CopyState), or undefined while it has none. */
export function readCopyState(dataDir: string): CopyState | undefined {
  return withCopy(dataDir, (db) => {
    const s = db
      .prepare<[], { cursor_xid: string; cursor_seq: number; caught_up: number }>(
        'SELECT cursor_xid, cursor_seq, caught_up FROM search_copy_state WHERE id = 1',
      )
      .get();
    if (s === undefined) return undefined;
    return {
      cursor: { xid: s.cursor_xid, seq: s.cursor_seq },
      caughtUp: s.caught_up === 1,
      pages: db.prepare<[], number>('SELECT count(*) FROM pages').pluck().get() ?? 0,
      indexed: db.prepare<[], number>('SELECT count(*) FROM pages WHERE indexed = 1').pluck().get() ?? 0,
    };
  });
}

/** Runs `sql` on the copy of `dataDir` (read-only) and answers its rows; [] while there is no copy. */
export function queryCopy<T>(dataDir: string, sql: string): T[] {
  return withCopy(dataDir, (db) => db.prepare<[], T>(sql).all()) ?? [];
}

/**
 * Whether the copy in `dataDir` has caught up with the database behind `pg`: its first build ended, no finished
 * change lies past its cursor, and its seeds and labels are the record's. Undefined (not yet) otherwise, so it
 * reads as a waitFor condition.
 */
export async function copyCaughtUp(dataDir: string, pg: Queryable): Promise<true | undefined> {
  const state = readCopyState(dataDir);
  if (state === undefined || !state.caughtUp) return undefined;
  if ((await readPageChanges(pg, state.cursor, 1)).length > 0) return undefined;
  const record = await readSeedsForCopy(pg);
  const seeds = queryCopy<{ id: number; removed_at: number | null; updated_at: number }>(
    dataDir,
    'SELECT id, removed_at, updated_at FROM seeds ORDER BY id',
  );
  const labels = queryCopy<{ seed_id: number; label: string }>(
    dataDir,
    'SELECT seed_id, label FROM seed_labels ORDER BY seed_id, label',
  );
  const same =
    JSON.stringify(seeds) ===
      JSON.stringify(record.seeds.map((s) => ({ id: s.id, removed_at: s.removed_at, updated_at: s.updated_at }))) &&
    JSON.stringify(labels) === JSON.stringify(record.labels);
  return same ? true : undefined;
}

/**
 * Runs FTS5's own integrity check on each full-text index of the copy in `dataDir` (the index's structure; rows
 * out of search have no entries, so the external content is not compared); throws SQLITE_CORRUPT_VTAB when one is
 * not sound. Opens the file for writing (the check is written as an INSERT), beside the server's connection.
 */
export function checkCopyIndexes(dataDir: string): void {
  const db = new Database(path.join(dataDir, SEARCH_COPY_DIR, 'lantern.db'), { fileMustExist: true, timeout: 10_000 });
  try {
    for (const table of ['pages_fts', 'pages_idents', 'anchors_fts']) {
      db.prepare(`INSERT INTO ${table} (${table}, rank) VALUES ('integrity-check', 0)`).run();
    }
  } finally {
    db.close();
  }
}

/** A probe of the copy's write lock (see copyWriteProbe). */
export interface CopyWriteProbe {
  /** True while another connection has a write transaction open on the copy (a chunk being applied). */
  writing(): boolean;
  /**
   * Probes every 0.2 ms, without yielding to the event loop, for up to `ms`: true once two probes in a row find a
   * write in progress (a long one, such as a chunk, not a single short statement; the caller acts within a fraction
   * of a millisecond of the second), false if none came.
   */
  writingWithin(ms: number): boolean;
  close(): void;
}

/**
 * Watches the copy in `dataDir` for a write transaction in progress: each `writing()` tries to take the write lock
 * without waiting (BEGIN IMMEDIATE, busy timeout 0) and gives it back at once. The server is the copy's only
 * writer, and its longest write by far is applying a chunk of the feed, so a busy lock means it is in one.
 */
export function copyWriteProbe(dataDir: string): CopyWriteProbe {
  const db = new Database(path.join(dataDir, SEARCH_COPY_DIR, 'lantern.db'), { fileMustExist: true, timeout: 0 });
  const writing = (): boolean => {
    try {
      db.exec('BEGIN IMMEDIATE');
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
      throw err;
    }
    db.exec('ROLLBACK');
    return false;
  };
  const pause = new Int32Array(new SharedArrayBuffer(4));
  return {
    writing,
    writingWithin(ms) {
      const end = performance.now() + ms;
      let before = false;
      while (performance.now() < end) {
        const now = writing();
        if (now && before) return true;
        before = now;
        Atomics.wait(pause, 0, 0, 0.2); // the probe's interval, so the server's own BEGIN seldom meets it
      }
      return false;
    },
    close: () => db.close(),
  };
}
