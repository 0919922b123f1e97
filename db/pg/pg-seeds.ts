/**
 * Seeds on PostgreSQL: the seed rows with their crawl counts and state, as db/seeds.ts selects them on SQLite
 * (same columns, same state rule, same row shape, so `fromSql` maps both), and the server's writes of one
 * seed. PostgreSQL wants camel-case aliases quoted, a name for each subquery, and cannot filter on an output
 * alias in the same query, hence one more level than SQLite's `seedSelect`. Text orders and labels compare
 * bytewise (COLLATE "C"), as SQLite's BINARY does, whatever the database's own collation.
 */
import type pg from 'pg';
import { fromSql, type SeedRow, type SeedSqlRow } from '../seeds.ts';
import type { SeedStore } from '../server-store.ts';
import { inTransaction, row, statement } from './pool.ts';

/** Every column of a seed row but its state (see SEED_COLUMNS in db/seeds.ts). */
const PG_SEED_COLUMNS = `s.id, s.url, s.origin, s.depth, CASE WHEN s.path_only = 1 THEN 'path' ELSE s.scope END AS scope,
  s.created_at AS "createdAt", s.updated_at AS "updatedAt",
  (SELECT count(*) FROM frontier f WHERE f.seed_id = s.id) AS found,
  (SELECT count(*) FROM frontier f WHERE f.seed_id = s.id AND f.state = 'done') AS fetched,
  (SELECT count(*) FROM frontier f WHERE f.seed_id = s.id AND f.state IN ('queued', 'leased')) AS queued,
  (SELECT count(*) FROM frontier f WHERE f.seed_id = s.id AND f.state = 'failed') AS failed,
  (SELECT f.finished_at FROM frontier f WHERE f.url = s.url) AS "lastCrawledAt",
  (SELECT max(f.finished_at) FROM frontier f WHERE f.seed_id = s.id) AS "lastFinishedAt", s.title, s.folder,
  (SELECT string_agg(l.label, E'\\n' ORDER BY l.label COLLATE "C") FROM seed_labels l WHERE l.seed_id = s.id) AS "labelText",
  coalesce((SELECT h.hosts FROM seed_hosts h WHERE h.seed_id = s.id), 0) AS hosts,
  coalesce((SELECT h.refused FROM seed_hosts h WHERE h.seed_id = s.id), 0) AS "hostsRefused",
  (SELECT h.refused_example FROM seed_hosts h WHERE h.seed_id = s.id) AS "lastRefusedHost",
  s.removed_at AS "removedAt",
  (SELECT f.state FROM frontier f WHERE f.url = s.url) AS "ownState",
  (SELECT f.last_error FROM frontier f WHERE f.url = s.url) AS "ownError"`;

/** A seed's state from PG_SEED_COLUMNS (see SEED_STATE in db/seeds.ts; SQLite's LIKE ignores ASCII case). */
const PG_SEED_STATE = `CASE WHEN "removedAt" IS NOT NULL THEN 'removed'
  WHEN "ownState" IN ('failed', 'skipped') OR ("ownState" = 'done' AND "ownError" COLLATE "C" ILIKE 'HTTP %') THEN 'failed'
  WHEN queued = 0 AND found > 0 THEN 'done' ELSE 'crawling' END`;

/**
 * Seed rows with their state: PG_SEED_COLUMNS of the seeds `inner` selects (a WHERE, ORDER BY and LIMIT on
 * `seeds s`), then `outer` on those rows, which may filter on `state`.
 */
export function pgSeedSelect(inner: string, outer = ''): string {
  return `SELECT * FROM (SELECT *, ${PG_SEED_STATE} AS state FROM (SELECT ${PG_SEED_COLUMNS} FROM seeds s ${inner}) AS seed) AS seeded ${outer}`;
}

/**
 * A seed added, or submitted again (a removed one comes back as new): $1-$5 url, origin, depth, scope, path_only,
 * $6 now; answers its id and whether it was created. The server's store and the crawler's share it.
 */
export const PG_SEED_UPSERT = `INSERT INTO seeds (url, origin, depth, scope, path_only, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)
   ON CONFLICT (url) DO UPDATE SET depth = excluded.depth, scope = excluded.scope, path_only = excluded.path_only,
     updated_at = excluded.updated_at,
     created_at = CASE WHEN seeds.removed_at IS NULL THEN seeds.created_at ELSE excluded.created_at END,
     removed_at = NULL
   RETURNING id, created_at = updated_at AS created`;

const INSERT = statement('seeds.upsert', PG_SEED_UPSERT);
const SET_TITLE = statement('seeds.set-title', 'UPDATE seeds SET title = $1 WHERE id = $2');
const BY_ID = statement('seeds.by-id', pgSeedSelect('WHERE s.id = $1'));
const MARK_REMOVED = statement(
  'seeds.mark-removed',
  'UPDATE seeds SET removed_at = $1, updated_at = $1 WHERE id = $2 AND removed_at IS NULL RETURNING id, url',
);

/** One seed row by id, mapped as SQLite's (undefined if there is none). */
export async function pgSeedById(db: pg.Pool | pg.PoolClient, id: number): Promise<SeedRow | undefined> {
  const found = await row<SeedSqlRow>(db, BY_ID, [id]);
  return found === undefined ? undefined : fromSql(found);
}

/** The seed port on PostgreSQL (see SeedStore); a submission's writes and its read back in one transaction. */
export function pgSeedStore(pool: pg.Pool): SeedStore {
  return {
    upsertSeed(seed, now) {
      return inTransaction(pool, async (client) => {
        const stored = seed.scope === 'path' ? 'host' : seed.scope;
        const pathOnly = seed.scope === 'path' ? 1 : 0;
        const made = await row<{ id: number; created: boolean }>(client, INSERT, [
          seed.url,
          seed.origin,
          seed.depth,
          stored,
          pathOnly,
          now,
        ]);
        if (made === undefined) throw new Error(`pg-seeds: the upsert of ${seed.url} returned no row`);
        if (seed.title !== undefined) await client.query({ ...SET_TITLE, values: [seed.title, made.id] });
        const read = await pgSeedById(client, made.id);
        if (read === undefined) throw new Error(`pg-seeds: seed ${made.id} is gone right after its upsert`);
        return { seed: read, created: made.created };
      });
    },
    getSeed: (id) => pgSeedById(pool, id),
    markSeedRemoved: (id, now) => row<{ id: number; url: string }>(pool, MARK_REMOVED, [now, id]),
  };
}
