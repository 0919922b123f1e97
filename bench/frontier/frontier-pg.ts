/**
 * The frontier benchmark's database on PostgreSQL: the same crawl as frontier-db.ts writes into SQLite
 * (`hosts` × `urlsPerHost` queued URLs, `seeds` seeds, every host's robots.txt known for a year; the same
 * rows, ids and order), generated in a database of a throwaway cluster (test-support/postgres.ts) by three
 * set-based INSERT ... SELECT over generate_series: seconds, where copying the SQLite file with the copy
 * command (db/pg/copy-from-sqlite.ts, about 10,000 rows/s) would take minutes. The frontier's secondary
 * indexes are built after the rows, then VACUUM ANALYZE leaves the tables as autovacuum leaves a database
 * that has been running (statistics for the planner, the visibility map for index-only scans). Each part
 * works on a copy of its own: CREATE DATABASE ... TEMPLATE, a copy of the files.
 */
import pg from 'pg';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import type { FrontierShape } from './frontier-db.ts';

/** The name of the generated database every part copies. */
export const PG_TEMPLATE = 'lantern_frontier_template';

/** A database's URL on the same cluster as `url` (same server, user and options, another database). */
export function databaseUrl(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Runs `work` on one connection to `url` (a cluster's maintenance database: CREATE and DROP DATABASE). */
async function onAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/**
 * Generates the crawl of `shape` in a new database PG_TEMPLATE of the cluster whose maintenance database is
 * `adminUrl`, every migration applied as Lantern applies them; `now` is the time written in the rows.
 * Answers its URL and how long generating took.
 */
export async function frontierPgDatabase(
  adminUrl: string,
  shape: FrontierShape,
  now = Date.now(),
): Promise<{ url: string; generatedMs: number }> {
  const t0 = performance.now();
  await onAdmin(adminUrl, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${PG_TEMPLATE}`);
    await c.query(`CREATE DATABASE ${PG_TEMPLATE}`);
  });
  const url = databaseUrl(adminUrl, PG_TEMPLATE);
  const pool = openPgPool(url, { max: 1 });
  try {
    await migratePg(pool);
    await generate(pool, shape, now);
  } finally {
    await pool.end();
  }
  return { url, generatedMs: performance.now() - t0 };
}

async function generate(pool: pg.Pool, shape: FrontierShape, now: number): Promise<void> {
  const perSeed = shape.hosts / shape.seeds;
  const origin = (h: string) => `'http://host-' || ${h} || '.test'`;
  // Secondary indexes only: those behind a constraint (the primary key, url UNIQUE) stay.
  const { rows: indexes } = await pool.query<{ name: string; sql: string }>(
    `SELECT indexname AS name, indexdef AS sql FROM pg_indexes
     WHERE tablename = 'frontier' AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
  );
  for (const { name } of indexes) await pool.query(`DROP INDEX ${name}`);
  await pool.query(
    `INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at)
     SELECT s + 1, ${origin('s * $1')} || '/', ${origin('s * $1')}, 3, 'any', $2, $2 FROM generate_series(0, $3 - 1) AS s`,
    [perSeed, now, shape.seeds],
  );
  await pool.query(
    `INSERT INTO hosts (origin, host, robots_status, robots_http_status, robots_fetched_at, robots_expires_at, updated_at)
     SELECT ${origin('h')}, 'host-' || h || '.test', 'allow-all', 404, $1, $2, $1 FROM generate_series(0, $3 - 1) AS h`,
    [now, now + 365 * 86_400_000, shape.hosts],
  );
  // Round after round, host after host, as frontier-db.ts writes them: row i of host h is id i * hosts + h + 1.
  await pool.query(
    `INSERT INTO frontier (id, url, origin, seed_id, depth, discovered_at)
     SELECT i * $1 + h + 1,
       CASE WHEN i = 0 AND h % $2 = 0 THEN ${origin('h')} || '/'
            ELSE ${origin('h')} || '/section-' || (i % 7) || '/page-' || i || '.html' END,
       ${origin('h')}, 1 + h / $2, CASE WHEN i = 0 THEN 0 ELSE 1 END, $3
     FROM generate_series(0, $4 - 1) AS i, generate_series(0, $1 - 1) AS h
     ORDER BY i, h`,
    [shape.hosts, perSeed, now, shape.urlsPerHost],
  );
  // Ids were given: the identities go on after them, as SQLite's rowids do.
  for (const table of ['seeds', 'frontier'])
    await pool.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), max(id)) FROM ${table}`);
  for (const { sql } of indexes) await pool.query(sql);
  await pool.query('VACUUM ANALYZE');
}

/**
 * A copy of the generated database for one part (CREATE DATABASE ... TEMPLATE, copying its files), on the
 * cluster of `templateUrl`; `dispose` drops it (its connections must be closed by then).
 */
export async function copyOfPgDatabase(
  templateUrl: string,
  name: string,
): Promise<{ url: string; dispose(): Promise<void> }> {
  const admin = databaseUrl(templateUrl, 'postgres');
  await onAdmin(admin, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${name}`);
    await c.query(`CREATE DATABASE ${name} TEMPLATE ${PG_TEMPLATE} STRATEGY FILE_COPY`);
  });
  return {
    url: databaseUrl(templateUrl, name),
    dispose: () =>
      onAdmin(admin, async (c) => {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }),
  };
}
