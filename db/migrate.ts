import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { projectPath } from '../shared/project-root.ts';

/** Where the numbered plain-SQL migrations live (`NNNN-name.sql`). */
export const MIGRATIONS_DIR = projectPath('db/migrations');

/** A migration that could not be applied; the database is left at the previous version. */
export class MigrationError extends Error {
  override name = 'MigrationError';
}

interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Reads the migrations in order and checks their numbering has no gaps or duplicates. */
export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  return files.map((name, i) => {
    const match = /^(\d{4})-[\w-]+\.sql$/.exec(name);
    if (!match) throw new MigrationError(`migrate: ${name} is not named NNNN-name.sql`);
    const version = Number(match[1]);
    if (version !== i + 1) throw new MigrationError(`migrate: expected migration ${i + 1}, found ${name}`);
    return { version, name, sql: readFileSync(path.join(dir, name), 'utf8') };
  });
}

/**
 * Applies every migration newer than `PRAGMA user_version`, each in its own transaction together with
 * the version bump, so a failing migration leaves the database exactly at the version before it.
 */
export function migrate(db: Database, migrations = readMigrations()): number {
  const current = db.pragma('user_version', { simple: true }) as number;
  const latest = migrations.length;
  if (current > latest) {
    throw new MigrationError(
      `migrate: the database is at version ${current} but this Lantern knows only ${latest}; use a newer Lantern or another DATA_DIR`,
    );
  }
  for (const m of migrations.slice(current)) {
    const apply = db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    });
    try {
      apply();
    } catch (err) {
      throw new MigrationError(`migrate: ${m.name} failed: ${(err as Error).message}`, { cause: err });
    }
  }
  return latest;
}
