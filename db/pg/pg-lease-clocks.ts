/**
 * A held politeness group's clock written to its lease row while the node holds it (issue 29, docs/scaling.md): the
 * clock otherwise reaches the row only when the group is released, so a node killed with kill -9 took a backoff it
 * had started (a 429, a 503, a Retry-After) with it, and the next owner asked again as soon as the lease expired.
 * The lease loop writes the clocks of groups whose backoff moved at its next round (crawler/cluster/lease-loop.ts).
 * Also the clock's columns as the other lease statements set them (db/pg/pg-leases.ts RELEASE). Every time is in
 * milliseconds from the statement's now(), as everywhere in the lease rows.
 */
import { classifiedChanged, classifiedRows } from './classified-query.ts';
import { type Queryable, statement } from './pool.ts';
import type { HeldLease, StoredGroupClock } from './pg-leases.ts';

/**
 * The clock's columns set from parameters $first.. in StoredGroupClock's order (see clockValues), or from the
 * columns c0..c9 of an unnest (`arrays`).
 */
export const setClock = (first: number, arrays: boolean): string => {
  const p = (i: number, type: string) => (arrays ? `r.c${i}` : `$${first + i}::${type}`);
  return `next_start_at = now() + ${p(0, 'float8')} * interval '1 millisecond', gap_ms = ${p(1, 'bigint')},
    crawl_delay_ms = ${p(2, 'bigint')}, backoff_until = now() + ${p(3, 'float8')} * interval '1 millisecond',
    backoff_ms = ${p(4, 'bigint')}, backoff_reason = ${p(5, 'text')}, pace_response_ms = ${p(6, 'float8')},
    pace_slowdown = ${p(7, 'int')}, pace_strained = ${p(8, 'int')},
    has_work = ${p(9, 'boolean')}`;
};
/** The PostgreSQL types of the clock's parameters, in clockValues' order. */
export const CLOCK_TYPES = [
  'float8',
  'bigint',
  'bigint',
  'float8',
  'bigint',
  'text',
  'float8',
  'int',
  'int',
  'boolean',
];

/** A clock as the parameters setClock reads, in its order; BIGINT parts rounded up (never a shorter wait). */
export function clockValues(c: StoredGroupClock, hasWork: boolean): unknown[] {
  return [
    c.nextStartInMs,
    Math.ceil(c.gapMs),
    c.crawlDelayMs === null ? null : Math.ceil(c.crawlDelayMs),
    c.backoffInMs,
    Math.ceil(c.backoffMs),
    c.backoffReason,
    c.pace.responseMs,
    c.pace.slowdown,
    c.pace.strained,
    hasWork,
  ];
}

const RECORD = statement(
  'cluster.leases.record-clock',
  `UPDATE group_leases SET ${setClock(4, false)} WHERE group_key = $2 AND epoch = $3 AND owner = $1`,
);
/**
 * The lease rows of groups ($2, epochs $3) that node $1 holds unexpired, locked in group order: a CTE's body for
 * every statement that writes many held rows (RENEW in pg-leases.ts, RECORD_HELD here). A batch's fence locks them
 * in that order too (pg-group-work.ts STILL_HELD): two statements locking many of the same rows in different
 * orders deadlock (seen at 10,000 groups renewed at once).
 */
export const HELD_IN_GROUP_ORDER = `SELECT l.group_key FROM group_leases l
     JOIN unnest($2::text[], $3::bigint[]) AS r(group_key, epoch) ON l.group_key = r.group_key AND l.epoch = r.epoch
     WHERE l.owner = $1 AND l.expires_at > now() ORDER BY l.group_key FOR UPDATE OF l`;

const RECORD_HELD = statement(
  'cluster.leases.record-held-clocks',
  `WITH held AS (${HELD_IN_GROUP_ORDER})
   UPDATE group_leases SET ${setClock(0, true)}
   FROM held JOIN unnest($2::text[], ${CLOCK_TYPES.map((t, i) => `$${i + 4}::${t}[]`).join(', ')})
     AS r(group_key, ${CLOCK_TYPES.map((_, i) => `c${i}`).join(', ')}) ON r.group_key = held.group_key
   WHERE group_leases.group_key = held.group_key
   RETURNING group_leases.group_key AS "group"`,
);

/** Writes a held group's clock (relative to this statement); false when the node no longer holds it at `epoch`. */
export async function recordClock(
  db: Queryable,
  node: string,
  lease: HeldLease,
  clock: StoredGroupClock,
  hasWork: boolean,
): Promise<boolean> {
  const values = [node, lease.group, lease.epoch, ...clockValues(clock, hasWork)];
  return (await classifiedChanged(db, RECORD, values)) === 1;
}

/** A held group's clock to write (recordHeldClocks). */
export interface HeldClock extends HeldLease {
  clock: StoredGroupClock;
}

/**
 * Writes the clocks of groups the node holds, in one statement (relative to its now()), each marked as having work
 * (a group backed off has a URL to try again; a mark never hides work another node noted); a group the node no
 * longer holds at its epoch, or whose lease expired, is left alone. Answers the groups written.
 */
export async function recordHeldClocks(db: Queryable, node: string, held: readonly HeldClock[]): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const values = held.map((h) => clockValues(h.clock, true));
  const written = await classifiedRows<{ group: string }>(db, RECORD_HELD, [
    node,
    held.map((h) => h.group),
    held.map((h) => h.epoch),
    ...CLOCK_TYPES.map((_, i) => values.map((v) => v[i])),
  ]);
  return new Set(written.map((r) => r.group));
}
