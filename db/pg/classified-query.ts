/**
 * A named statement run with its error classified (db/storage-error.ts: unreachable, out of room, or fatal), so
 * that a caller branches on the error's type, never on PostgreSQL's message. The lease and cluster-view modules
 * answer every failure this way; pool.ts's rows/changed leave errors as pg throws them.
 */
import type pg from 'pg';
import { pgStorageError } from '../storage-error.ts';
import { changed, type Queryable, rows, type Statement } from './pool.ts';

/** Runs `s` and answers its rows, classifying any error. */
export async function classifiedRows<T extends pg.QueryResultRow>(
  db: Queryable,
  s: Statement,
  values: readonly unknown[],
): Promise<T[]> {
  try {
    return await rows<T>(db, s, values);
  } catch (err) {
    throw pgStorageError(err, s.name);
  }
}

/** Runs `s` and answers how many rows it changed, classifying any error. */
export async function classifiedChanged(db: Queryable, s: Statement, values: readonly unknown[]): Promise<number> {
  try {
    return await changed(db, s, values);
  } catch (err) {
    throw pgStorageError(err, s.name);
  }
}
