/**
 * Copies a Lantern SQLite database into an empty PostgreSQL one (issue 28, "a way to move"): every table the
 * PostgreSQL schema has (db/migrations-pg/), in foreign-key order, by column name, ids kept, then each identity
 * and sequence moved past the highest value copied, then the counts compared table by table.
 *
 * All of it runs in ONE PostgreSQL transaction: a copy that fails half way (a full disk, a dropped connection, a
 * row PostgreSQL refuses) leaves the target exactly as empty as it was, so the person can fix the cause and run
 * the same command again, rather than find a half-filled database the next run refuses as non-empty. SQLite is
 * read inside one read transaction, so a crawler still writing it does not make the copy inconsistent: the copy
 * is the database as it was when the copy began.
 */
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { readMigrations } from '../migrate.ts';
import { FEED_ONLY_TABLES } from './pg-change-feed.ts';
import { LEASE_TABLES } from './pg-leases.ts';
import { inTransaction } from './pool.ts';

/** The tables copied, parents before the tables that reference them. */
export const COPIED_TABLES = [
  'seeds',
  'seed_labels',
  'seed_hosts',
  'frontier',
  'pages',
  'hosts',
  'link_targets',
  'revisits',
  'sitemap_jobs',
  'sitemap_validators',
  'sessions',
  'crawler_stop',
] as const;

/** PostgreSQL columns whose SQLite source has another name (see the comments of 0001-init.sql). */
const RENAMED: Readonly<Record<string, Readonly<Record<string, string>>>> = { pages: { change_seq: 'seq' } };

/** The one row PostgreSQL's migration itself writes (crawler_stop's), which an empty target still holds. */
const MIGRATION_ROWS: Readonly<Record<string, number>> = { crawler_stop: 1 };

/** Rows per multi-row INSERT, at most; fewer for wide tables, under PostgreSQL's 65,535 parameters. */
export const DEFAULT_BATCH_ROWS = 1000;
const MAX_PARAMETERS = 65_535;

/** The copy cannot be done as asked; the message says what was wrong and what to do. */
export class CopyError extends Error {
  override name = 'CopyError';
}

/** How far one table's copy is, reported after every batch. */
export interface CopyProgress {
  readonly table: string;
  readonly copied: number;
  readonly total: number;
}

/** The rows of one table on each side after the copy. */
export interface TableCount {
  readonly table: string;
  readonly sqlite: number;
  readonly postgres: number;
}

/** What the copy did: the counts per table, and SQLite columns PostgreSQL has no place for (left behind). */
export interface CopySummary {
  readonly counts: readonly TableCount[];
  readonly leftColumns: readonly string[];
  /** True when every table has as many rows on PostgreSQL as on SQLite. */
  readonly verified: boolean;
}

interface PgColumn {
  name: string;
  hasDefault: boolean;
}

interface TablePlan {
  table: string;
  /** PostgreSQL's column names, and the SQLite column each is read from (same order). */
  pgColumns: string[];
  sqliteColumns: string[];
  /** SQLite's ORDER BY: the primary key, so batches follow the key. */
  order: string;
  total: number;
}

/** Double quotes an identifier read from a catalog (both engines quote alike). */
function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Refuses a SQLite database from another Lantern version (its user_version is its migration count). */
function checkSqliteVersion(db: Database, known: number): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== known) {
    throw new CopyError(
      `copy-from-sqlite: the SQLite database is at schema version ${version} but this Lantern knows version ${known}; ${
        version < known
          ? 'start this Lantern once on it (it migrates at start), then copy'
          : 'copy it with the Lantern version that wrote it'
      }`,
    );
  }
}

/** PostgreSQL's columns per copied table; refuses a schema missing a table or holding one this copy skips. */
async function pgColumns(client: pg.PoolClient): Promise<Map<string, PgColumn[]>> {
  const { rows } = await client.query<{ table_name: string; column_name: string; has_default: boolean }>(
    `SELECT table_name, column_name, (column_default IS NOT NULL OR is_identity = 'YES') AS has_default
       FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
  );
  const byTable = new Map<string, PgColumn[]>();
  for (const r of rows) {
    if (r.table_name === 'lantern_schema' || FEED_ONLY_TABLES.includes(r.table_name)) continue;
    if (LEASE_TABLES.includes(r.table_name)) continue; // the crawler nodes' own, nothing of SQLite's
    const list = byTable.get(r.table_name) ?? [];
    list.push({ name: r.column_name, hasDefault: r.has_default });
    byTable.set(r.table_name, list);
  }
  const unknown = [...byTable.keys()].filter((t) => !(COPIED_TABLES as readonly string[]).includes(t));
  const missing = COPIED_TABLES.filter((t) => !byTable.has(t));
  if (unknown.length > 0 || missing.length > 0) {
    throw new CopyError(
      `copy-from-sqlite: the PostgreSQL schema does not match this copy (${[
        ...missing.map((t) => `no table ${t}`),
        ...unknown.map((t) => `table ${t} not copied`),
      ].join(', ')}); use a database created by this Lantern's migrations, or add the table to COPIED_TABLES`,
    );
  }
  return byTable;
}

/** Refuses a target holding any row beyond what its migration wrote, and says what to do. */
async function checkEmpty(client: pg.PoolClient): Promise<void> {
  const full: string[] = [];
  for (const table of COPIED_TABLES) {
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table)}`);
    const n = rows[0]?.n ?? 0;
    if (n > (MIGRATION_ROWS[table] ?? 0)) full.push(`${table}: ${n} rows`);
  }
  if (full.length > 0) {
    throw new CopyError(
      `copy-from-sqlite: the PostgreSQL database is not empty (${full.join(', ')}); copy into a new empty database (createdb), nothing was changed`,
    );
  }
}

/** Which SQLite column feeds each PostgreSQL column, refusing a column with neither source nor default. */
function planTable(db: Database, table: string, columns: PgColumn[], left: string[]): TablePlan {
  const info = db.prepare(`PRAGMA table_info(${quote(table)})`).all() as { name: string; pk: number }[];
  if (info.length === 0) {
    throw new CopyError(
      `copy-from-sqlite: the SQLite database has no table ${table}; is DATA_DIR a Lantern data folder?`,
    );
  }
  const have = new Set(info.map((c) => c.name));
  const renamed = RENAMED[table] ?? {};
  const pgNames: string[] = [];
  const sqliteNames: string[] = [];
  for (const c of columns) {
    const source = renamed[c.name] ?? c.name;
    if (have.has(source)) {
      pgNames.push(c.name);
      sqliteNames.push(source);
    } else if (!c.hasDefault) {
      throw new CopyError(
        `copy-from-sqlite: PostgreSQL's ${table}.${c.name} has no SQLite column to copy from and no default; add it to RENAMED in db/pg/copy-from-sqlite.ts or give it a default`,
      );
    }
  }
  const used = new Set(sqliteNames);
  for (const c of info) if (!used.has(c.name)) left.push(`${table}.${c.name}`);
  const pk = info
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => quote(c.name));
  const total = (db.prepare(`SELECT count(*) AS n FROM ${quote(table)}`).get() as { n: number }).n;
  return { table, pgColumns: pgNames, sqliteColumns: sqliteNames, order: pk.join(', ') || 'rowid', total };
}

/** Inserts one batch of rows (arrays in pgColumns order) in one multi-row INSERT. */
async function insertBatch(client: pg.PoolClient, plan: TablePlan, batch: unknown[][]): Promise<void> {
  const width = plan.pgColumns.length;
  const values: unknown[] = [];
  const tuples = batch.map((row, r) => {
    values.push(...row);
    return `(${row.map((_, c) => `$${r * width + c + 1}`).join(', ')})`;
  });
  await client.query(
    `INSERT INTO ${quote(plan.table)} (${plan.pgColumns.map(quote).join(', ')}) VALUES ${tuples.join(', ')}`,
    values,
  );
}

/** Copies one table's rows in batches, in its primary key's order, reporting progress after each batch. */
async function copyTable(
  db: Database,
  client: pg.PoolClient,
  plan: TablePlan,
  batchRows: number,
  onProgress: (p: CopyProgress) => void,
): Promise<void> {
  if (MIGRATION_ROWS[plan.table] !== undefined) await client.query(`DELETE FROM ${quote(plan.table)}`);
  const perBatch = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / plan.pgColumns.length)));
  const select = db
    .prepare(`SELECT ${plan.sqliteColumns.map(quote).join(', ')} FROM ${quote(plan.table)} ORDER BY ${plan.order}`)
    .raw(true);
  const rows = select.iterate() as IterableIterator<unknown[]>;
  let copied = 0;
  onProgress({ table: plan.table, copied, total: plan.total });
  try {
    for (;;) {
      const batch: unknown[][] = [];
      for (let next = rows.next(); !next.done; next = rows.next()) {
        batch.push(next.value);
        if (batch.length === perBatch) break;
      }
      if (batch.length === 0) break;
      await insertBatch(client, plan, batch);
      copied += batch.length;
      onProgress({ table: plan.table, copied, total: plan.total });
    }
  } finally {
    rows.return?.();
  }
}

/** Moves each identity column's sequence, and pages' change feed, past the highest value copied. */
async function advanceSequences(client: pg.PoolClient): Promise<void> {
  const { rows } = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND is_identity = 'YES' AND table_name <> 'lantern_schema'`,
  );
  const targets = rows.map((r) => ({
    sequence: `pg_get_serial_sequence('${quote(r.table_name)}', '${r.column_name}')`,
    table: r.table_name,
    column: r.column_name,
  }));
  targets.push({ sequence: "'pages_change_seq'", table: 'pages', column: 'change_seq' });
  for (const t of targets) {
    // setval(seq, v, true): the next value drawn is v + 1; an empty table leaves the sequence at its start.
    await client.query(
      `SELECT setval(${t.sequence}, max(${quote(t.column)})) FROM ${quote(t.table)} HAVING max(${quote(t.column)}) IS NOT NULL`,
    );
  }
}

/** Counts each copied table on both sides (on PostgreSQL inside the copy's transaction, before it commits). */
async function countBoth(db: Database, client: pg.PoolClient): Promise<TableCount[]> {
  const counts: TableCount[] = [];
  for (const table of COPIED_TABLES) {
    const sqlite = (db.prepare(`SELECT count(*) AS n FROM ${quote(table)}`).get() as { n: number }).n;
    const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${quote(table)}`);
    counts.push({ table, sqlite, postgres: rows[0]?.n ?? 0 });
  }
  return counts;
}

/**
 * Copies the Lantern SQLite database `db` (open it read-only: the copy never writes it) into the PostgreSQL
 * database behind `pool`, which must already carry Lantern's schema (migratePg) and no rows. Reports each
 * table's progress to `onProgress` after every batch, and answers the counts of both sides. Throws CopyError
 * for a SQLite schema of another version, a non-empty target or a schema it cannot map; the target is then
 * left as it was, as it is for any error during the copy (one transaction).
 */
export async function copyFromSqlite(
  db: Database,
  pool: pg.Pool,
  opts: { onProgress?: (p: CopyProgress) => void; batchRows?: number; knownVersion?: number } = {},
): Promise<CopySummary> {
  checkSqliteVersion(db, opts.knownVersion ?? readMigrations().length);
  const onProgress = opts.onProgress ?? (() => {});
  const left: string[] = [];
  db.exec('BEGIN'); // one read snapshot for every table, whatever another process writes meanwhile
  try {
    const counts = await inTransaction(pool, async (client) => {
      const columns = await pgColumns(client);
      await checkEmpty(client);
      const plans = COPIED_TABLES.map((t) => planTable(db, t, columns.get(t) ?? [], left));
      for (const plan of plans) await copyTable(db, client, plan, opts.batchRows ?? DEFAULT_BATCH_ROWS, onProgress);
      await advanceSequences(client);
      return countBoth(db, client);
    });
    return { counts, leftColumns: left, verified: counts.every((c) => c.sqlite === c.postgres) };
  } finally {
    db.exec('COMMIT');
  }
}
