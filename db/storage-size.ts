import { statfsSync } from 'node:fs';
import type { Database } from 'better-sqlite3';

/**
 * The bytes the database holds: its pages in use (the file's pages less those on its free list) times
 * the page size. In WAL mode the page count includes what is committed in the WAL, so it is the size
 * the database has now, not the main file's size as of the last checkpoint. A removed seed's pages
 * free their space (the file itself does not shrink, but SQLite reuses the free pages first).
 * Three pragmas: microseconds, whatever the size.
 */
export function databaseBytes(db: Database): number {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  const size = db.pragma('page_size', { simple: true }) as number;
  return (pages - free) * size;
}

/** The bytes an unprivileged user may still write on the file system holding `dir` (statfs: available blocks × block size). */
export function freeDiskBytes(dir: string): number {
  const s = statfsSync(dir);
  return s.bavail * s.bsize;
}
