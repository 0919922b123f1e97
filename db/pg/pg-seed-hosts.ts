/** The seeds' host counts on PostgreSQL: db/seed-hosts.ts's methods, each answering a Promise, on a PgRunner. */
import type { SeedHostsRow } from '../seed-hosts.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

// A seed deleted meanwhile has nothing to keep: nothing is stored, no FK error (as on SQLite).
const UPSERT = statement(
  'crawl.seed-hosts.upsert',
  `INSERT INTO seed_hosts (seed_id, hosts, refused, refused_example, refused_at)
   SELECT $1, $2, $3, $4, $5 WHERE EXISTS (SELECT 1 FROM seeds WHERE id = $1)
   ON CONFLICT (seed_id) DO UPDATE SET hosts = excluded.hosts, refused = excluded.refused,
     refused_example = excluded.refused_example, refused_at = excluded.refused_at`,
);
const ALL = statement(
  'crawl.seed-hosts.all',
  `SELECT seed_id AS "seedId", hosts, refused, refused_example AS "refusedExample", refused_at AS "refusedAt" FROM seed_hosts`,
);
const REMOVE = statement('crawl.seed-hosts.remove', 'DELETE FROM seed_hosts WHERE seed_id = $1');

/** The seeds' host count queries on `db` (each method as db/seed-hosts.ts documents it). */
export function pgSeedHostQueries(db: PgRunner) {
  return {
    /** Writes a seed's figures (whole, so writing them twice is harmless). */
    saveSeedHosts(row: SeedHostsRow): Promise<void> {
      return db.write(UPSERT, [row.seedId, row.hosts, row.refused, row.refusedExample, row.refusedAt]);
    },
    /** Every seed's stored figures. */
    allSeedHosts(): Promise<SeedHostsRow[]> {
      return db.rows<SeedHostsRow>(ALL);
    },
    /** A removed seed's figures go (its URLs went). */
    forgetSeedHosts(seedId: number): Promise<void> {
      return db.write(REMOVE, [seedId]);
    },
  };
}
