import type { Database } from 'better-sqlite3';

/** A seed's hosts as stored (migration 0012): how many, and the links to further hosts it did not follow. */
export interface SeedHostsRow {
  seedId: number;
  hosts: number;
  /** Links to hosts past CRAWL_MAX_HOSTS_PER_SEED that were not followed. */
  refused: number;
  /** The last host such a link led to, and when (null until one was refused). */
  refusedExample: string | null;
  refusedAt: number | null;
}

/** Prepared statements for the seeds' host counts, created once per connection (the crawler primary's). */
export function seedHostQueries(db: Database) {
  const upsert = db.prepare(
    // A seed deleted meanwhile (its removal just finished) has nothing to keep: nothing is stored, no FK error.
    `INSERT INTO seed_hosts (seed_id, hosts, refused, refused_example, refused_at)
     SELECT @seedId, @hosts, @refused, @refusedExample, @refusedAt WHERE EXISTS (SELECT 1 FROM seeds WHERE id = @seedId)
     ON CONFLICT (seed_id) DO UPDATE SET hosts = excluded.hosts, refused = excluded.refused,
       refused_example = excluded.refused_example, refused_at = excluded.refused_at`,
  );
  const all = db.prepare(
    `SELECT seed_id AS seedId, hosts, refused, refused_example AS refusedExample, refused_at AS refusedAt FROM seed_hosts`,
  );
  const remove = db.prepare(`DELETE FROM seed_hosts WHERE seed_id = ?`);
  return {
    /** Writes a seed's figures (whole, so writing them twice is harmless). */
    saveSeedHosts(row: SeedHostsRow): void {
      upsert.run(row);
    },
    /** Every seed's stored figures (at start: the refusals; the host counts are read again from the frontier). */
    allSeedHosts(): SeedHostsRow[] {
      return all.all() as SeedHostsRow[];
    },
    /** A removed seed's figures go (its URLs went). */
    forgetSeedHosts(seedId: number): void {
      remove.run(seedId);
    },
  };
}
