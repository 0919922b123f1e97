/**
 * A held group's delays written to its lease row between releases (issue 29, docs/scaling.md "A taken group keeps
 * its Crawl-delay"): a node killed with kill -9 releases nothing, so the node that takes its groups continues them
 * with what their rows say. Which groups and when: crawler/cluster/gap-records.ts. One statement; its errors leave
 * here classified (db/storage-error.ts).
 */
import { pgStorageError } from '../storage-error.ts';
import type { HeldLease } from './pg-leases.ts';
import { type Queryable, rows, statement } from './pool.ts';

const RECORD_GAPS = statement(
  'cluster.leases.record-gaps',
  `UPDATE group_leases l SET gap_ms = r.gap_ms, crawl_delay_ms = r.crawl_delay_ms
   FROM unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[]) AS r(group_key, epoch, gap_ms, crawl_delay_ms)
   WHERE l.group_key = r.group_key AND l.epoch = r.epoch AND l.owner = $1
   RETURNING l.group_key AS "group"`,
);

/**
 * Writes held groups' delays (gap_ms, crawl_delay_ms, rounded up), only under the node's own owner and epoch.
 * Answers the groups written.
 */
export async function recordGaps(
  db: Queryable,
  node: string,
  gaps: ReadonlyArray<HeldLease & { gapMs: number; crawlDelayMs: number | null }>,
): Promise<Set<string>> {
  if (gaps.length === 0) return new Set();
  try {
    const written = await rows<{ group: string }>(db, RECORD_GAPS, [
      node,
      gaps.map((g) => g.group),
      gaps.map((g) => g.epoch),
      gaps.map((g) => Math.ceil(g.gapMs)),
      gaps.map((g) => (g.crawlDelayMs === null ? null : Math.ceil(g.crawlDelayMs))),
    ]);
    return new Set(written.map((r) => r.group));
  } catch (err) {
    throw pgStorageError(err, RECORD_GAPS.name);
  }
}
