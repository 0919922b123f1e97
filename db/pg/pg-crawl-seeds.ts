/**
 * Seeds as the crawler primary reads and writes them on PostgreSQL: db/seeds.ts's methods (the crawler's
 * reads of what people submitted and removed, its last step of a removal, and the upsert tests and tools
 * use), each answering a Promise, on a PgRunner. The seed row and its state are selected as the server's
 * store selects them (pgSeedSelect), mapped by the same fromSql.
 */
import type { Scope } from '../../shared/enumerations.ts';
import { fromSql, type SeedChange, type SeedRow, type SeedSqlRow } from '../seeds.ts';
import type { PgRunner } from './pg-runner.ts';
import { PG_SEED_UPSERT, pgSeedSelect } from './pg-seeds.ts';
import { statement } from './pool.ts';

const UPSERT = statement('crawl.seeds.upsert', PG_SEED_UPSERT);
const SET_TITLE = statement('crawl.seeds.set-title', 'UPDATE seeds SET title = $1 WHERE id = $2');
const BY_ID = statement('crawl.seeds.by-id', pgSeedSelect('WHERE s.id = $1'));
const SINCE = statement(
  'crawl.seeds.since',
  `SELECT id, url, origin, depth, CASE WHEN s.path_only = 1 THEN 'path' ELSE s.scope END AS scope,
     updated_at AS "updatedAt", removed_at AS "removedAt"
   FROM seeds s WHERE updated_at >= $1 ORDER BY updated_at, id`,
);
const MARK_REMOVED = statement(
  'crawl.seeds.mark-removed',
  'UPDATE seeds SET removed_at = $1, updated_at = $1 WHERE id = $2 AND removed_at IS NULL RETURNING id, url',
);
const STILL_REMOVED = statement(
  'crawl.seeds.still-removed',
  'SELECT 1 AS removed FROM seeds WHERE id = $1 AND removed_at IS NOT NULL',
);
// Only once its URLs and its pages are gone (see db/seeds.ts).
const DELETE_REMOVED = statement(
  'crawl.seeds.delete-removed',
  `DELETE FROM seeds WHERE id = $1 AND removed_at IS NOT NULL
     AND NOT EXISTS (SELECT 1 FROM frontier WHERE seed_id = seeds.id) AND NOT EXISTS (SELECT 1 FROM pages WHERE seed_id = seeds.id)`,
);

/** The seeds' queries the crawler runs, on `db` (each method as db/seeds.ts documents it). */
export function pgCrawlSeedQueries(db: PgRunner) {
  const getSeed = async (id: number): Promise<SeedRow | undefined> => {
    const found = (await db.rows<SeedSqlRow>(BY_ID, [id]))[0];
    return found === undefined ? undefined : fromSql(found);
  };
  return {
    /** Stores a seed, or updates depth and scope of the same URL; says whether it is new. */
    async upsertSeed(
      seed: { url: string; origin: string; depth: number; scope: Scope; title?: string },
      now: number,
    ): Promise<{ seed: SeedRow; created: boolean }> {
      const stored = seed.scope === 'path' ? 'host' : seed.scope;
      const made = (
        await db.rows<{ id: number; created: boolean }>(UPSERT, [
          seed.url,
          seed.origin,
          seed.depth,
          stored,
          seed.scope === 'path' ? 1 : 0,
          now,
        ])
      )[0];
      if (made === undefined)
        throw new Error(`pg-crawl-seeds: the upsert of ${seed.url} returned no row; check the seeds table`);
      if (seed.title !== undefined) await db.write(SET_TITLE, [seed.title, made.id]);
      const read = await getSeed(made.id);
      if (read === undefined)
        throw new Error(
          `pg-crawl-seeds: seed ${made.id} is gone right after its upsert; check for a concurrent removal`,
        );
      return { seed: read, created: made.created };
    },
    /** One live or removed seed by id, with its crawl counts, or undefined. */
    getSeed,
    /** Seeds added, changed or removed at or after `updatedAt`, in that order (the crawler's cursor). */
    seedsChangedSince(updatedAt: number): Promise<SeedChange[]> {
      return db.rows<SeedChange>(SINCE, [updatedAt]);
    },
    /** The server's half of removing a seed: marks it removed (undefined if there is no such seed). */
    async markSeedRemoved(id: number, now: number): Promise<{ id: number; url: string } | undefined> {
      return (await db.rows<{ id: number; url: string }>(MARK_REMOVED, [now, id]))[0];
    },
    /** Whether a seed is marked removed (false once it is deleted, or submitted again). */
    async isRemoved(id: number): Promise<boolean> {
      return (await db.rows(STILL_REMOVED, [id])).length > 0;
    },
    /** The crawler's last step of removing a seed: deletes its row once none of its URLs and pages is left. */
    deleteRemovedSeed(id: number): Promise<void> {
      return db.write(DELETE_REMOVED, [id]);
    },
  };
}
