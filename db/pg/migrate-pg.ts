/**
 * PostgreSQL's migrations (db/migrations-pg/NNNN-name.sql), applied as db/migrate.ts applies SQLite's: in
 * order, each in its own transaction together with its row in the version table, so a failing one leaves the
 * database at the version before it. Several Lantern processes may start on one database at once: an
 * advisory lock lets one migrate while the others wait, then find nothing left to do.
 */
import type pg from 'pg';
import { projectPath } from '../../shared/project-root.ts';
import { MigrationError, readMigrations } from '../migrate.ts';

/** Where PostgreSQL's numbered plain-SQL migrations live. */
export const PG_MIGRATIONS_DIR = projectPath('db/migrations-pg');

/** The advisory lock key migrations hold (any fixed number; "LANT" in ASCII). */
const MIGRATION_LOCK = 0x4c414e54;

/**
 * Brings the database to the newest migration and answers that version. The version table
 * (`lantern_schema`: one row per migration applied) is created on first use.
 */
export async function migratePg(pool: pg.Pool, migrations = readMigrations(PG_MIGRATIONS_DIR)): Promise<number> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS lantern_schema (
           version    INTEGER PRIMARY KEY,
           name       TEXT NOT NULL,
           applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ v: number | null }>('SELECT max(version) AS v FROM lantern_schema');
      const current = rows[0]?.v ?? 0;
      const latest = migrations.length;
      if (current > latest) {
        throw new MigrationError(
          `migrate-pg: the database is at version ${current} but this Lantern knows only ${latest}; use a newer Lantern or another DATABASE_URL`,
        );
      }
      for (const m of migrations.slice(current)) {
        try {
          await client.query('BEGIN');
          await client.query(m.sql);
          await client.query('INSERT INTO lantern_schema (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw new MigrationError(`migrate-pg: ${m.name} failed: ${(err as Error).message}`, { cause: err });
        }
      }
      return latest;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
