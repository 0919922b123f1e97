/**
 * What a crawler node's batches and takes ask of the politeness leases besides the lease statements themselves
 * (db/pg/pg-leases.ts; issue 29, docs/scaling.md "Many crawler nodes"), on a PgRunner so that they run inside the
 * batch's transaction: groups noted as having work when URLs are admitted, the fence of a batch's results (which of
 * its leases the node still holds, locked until the batch commits), and what a node reads and resets when it takes
 * groups (their hosts' queued URLs; the URLs a previous owner left leased).
 */
import { type GroupLeaseRef, type GroupOrigin, leaseKey } from '../crawl-store.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const NOTE_WORK = statement(
  'crawl.groups.note-work',
  `INSERT INTO group_leases (group_key) SELECT DISTINCT unnest($1::text[])
   ON CONFLICT (group_key) DO UPDATE SET has_work = true WHERE NOT group_leases.has_work`,
);
// FOR SHARE OF l: until the batch's transaction ends, no take, renewal or release moves these leases. Locked in group
// order, as a renewal locks them (pg-leases.ts RENEW): in different orders the two deadlock.
const STILL_HELD = statement(
  'crawl.groups.still-held',
  `SELECT l.group_key AS "group", l.epoch FROM group_leases l
   JOIN unnest($2::text[], $3::bigint[]) AS r (group_key, epoch) ON l.group_key = r.group_key AND l.epoch = r.epoch
   WHERE l.owner = $1 ORDER BY l.group_key FOR SHARE OF l`,
);
const RETURN_LEASES = statement(
  'crawl.groups.return-leases',
  `UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL
   WHERE state = 'leased' AND origin = ANY ($1::text[])`,
);
/** An origin's host name (IPv6 in brackets), without scheme or port. */
const HOST = `substring(origin from '^[a-z][a-z0-9+.-]*://(\\[[^]]*\\]|[^:/]*)')`;
// The origins of these groups with queued or leased URLs, with how many of each: in 'host' mode a group is its origin; in 'domain' mode the hosts
// named by the group or ending in "."+group (a superset: the crawler keeps those of the group, politeness-group.ts).
/** Also read in a release's transaction (pg-leases.ts releaseGroups), so that a group's has_work counts every host of it. */
export const QUEUED_ORIGINS = statement(
  'crawl.groups.queued-origins',
  `SELECT origin, count(*) FILTER (WHERE state = 'queued')::int AS queued,
     count(*) FILTER (WHERE state = 'leased')::int AS leased FROM frontier
   WHERE state IN ('queued', 'leased') AND CASE WHEN $2 = 'host' THEN origin = ANY ($1::text[])
     ELSE ${HOST} = ANY ($1::text[]) OR ${HOST} LIKE ANY (SELECT '%.' || g FROM unnest($1::text[]) AS g) END
   GROUP BY origin ORDER BY origin`,
);

/** The group-work queries on `db` (a transaction's runner, or the pool's). */
const CRAWL_DELAYS = statement(
  'crawl.groups.crawl-delays',
  `SELECT origin, crawl_delay_ms AS "crawlDelayMs" FROM hosts
   WHERE origin = ANY ($1::text[]) AND crawl_delay_ms IS NOT NULL`,
);

export function pgGroupWorkQueries(db: PgRunner) {
  return {
    /** Marks these groups as having queued work (a new group gets a free lease row, due at once). */
    noteWork(groups: readonly string[]): Promise<void> {
      if (groups.length === 0) return Promise.resolve();
      return db.write(NOTE_WORK, [groups]);
    },
    /**
     * Of `leases`, those `node` still holds at their epoch (by leaseKey); each row is locked for share until the
     * transaction ends, so that the writes made under them commit only while they hold.
     */
    async stillHeld(node: string, leases: readonly GroupLeaseRef[]): Promise<Set<string>> {
      if (leases.length === 0) return new Set();
      const held = await db.rows<{ group: string; epoch: number }>(STILL_HELD, [
        node,
        leases.map((l) => l.group),
        leases.map((l) => l.epoch),
      ]);
      return new Set(held.map((r) => leaseKey({ group: r.group, epoch: Number(r.epoch) })));
    },
    /** Puts the leased URLs of these origins back in the queue (their groups were just taken); answers how many. */
    returnLeasesOf(origins: readonly string[]): Promise<number> {
      if (origins.length === 0) return Promise.resolve(0);
      return db.changed(RETURN_LEASES, [origins]);
    },
    /** The origins with queued or leased URLs that may belong to these groups, with both counts (QUEUED_ORIGINS). */
    originsOf(groups: readonly string[], mode: 'host' | 'domain'): Promise<GroupOrigin[]> {
      if (groups.length === 0) return Promise.resolve([]);
      return db.rows<GroupOrigin>(QUEUED_ORIGINS, [groups, mode]);
    },
    /** The Crawl-delay recorded for these origins by any node (`hosts.crawl_delay_ms`), by origin. */
    async crawlDelaysOf(origins: readonly string[]): Promise<Map<string, number>> {
      if (origins.length === 0) return new Map();
      const rows = await db.rows<{ origin: string; crawlDelayMs: number }>(CRAWL_DELAYS, [origins]);
      return new Map(rows.map((r) => [r.origin, Number(r.crawlDelayMs)]));
    },
  };
}
