/**
 * The politeness leases of many crawler nodes on one PostgreSQL (issue 29; db/migrations-pg/0005-leases.sql has
 * the tables, docs/scaling.md the design): one short statement per function, named by what it is for. Expiry and
 * every stored time are the database's clock (now()); a node hands a time in as milliseconds from the statement
 * and reads one back as milliseconds from the statement's now(), so no two machines' clocks are ever compared.
 * The rules that decide when to call these (renew, start a request, take over a clock, release for a fair share)
 * are pure, in crawler/cluster/. Every PostgreSQL error leaves here classified (db/storage-error.ts); a lease that
 * moved is a LeaseLostError, never retried.
 */
import type pg from 'pg';
import { pgStorageError } from '../storage-error.ts';
import { inTransaction, type Queryable, row, statement } from './pool.ts';
import { classifiedChanged, classifiedRows } from './classified-query.ts';
import { QUEUED_ORIGINS } from './pg-group-work.ts';
import { CLOCK_TYPES, clockValues, HELD_IN_GROUP_ORDER, setClock } from './pg-lease-clocks.ts';

/** The tables of the leases (0005-leases.sql): PostgreSQL's alone, SQLite (one machine, one crawler) has none. */
export const LEASE_TABLES: readonly string[] = ['crawl_nodes', 'group_leases'];

/** Why a group is backed off (crawler/politeness/delay-reason.ts BackoffSource). */
export type LeaseBackoffReason = 'backoff' | 'retry-after';

/**
 * A politeness group's clock as a lease row carries it from one owner to the next, every time in milliseconds
 * from the database's now() of the statement that wrote or read it (negative: in the past).
 */
export interface StoredGroupClock {
  /** No request of the group starts before now() + this. */
  nextStartInMs: number;
  /** The delay its owner kept after each request (default delay, Crawl-delay, pacing: the longest). */
  gapMs: number;
  /** The longest robots.txt Crawl-delay of its hosts, or null if none asked for one. */
  crawlDelayMs: number | null;
  /** The group's backoff (a 429 or 503) ends at now() + this; null: no backoff. */
  backoffInMs: number | null;
  /** The length of the last backoff, which the next one doubles (crawler/politeness/backoff.ts). */
  backoffMs: number;
  backoffReason: LeaseBackoffReason | null;
  /** crawler/politeness/pacing.ts Pace: smoothed response time, slowdown multiple, strained answers in a row. */
  pace: { responseMs: number | null; slowdown: number; strained: number };
}

/** A group a take handed to this node. */
export interface TakenGroup {
  group: string;
  /** The fencing token: every write of a result for the group checks it (assertLeaseHeld). */
  epoch: number;
  /** The database's now() at the take, as Unix ms: for logs and reports, never for a node's own timing. */
  dbNowMs: number;
  /** The stored clock, relative to that now(). */
  clock: StoredGroupClock;
  /** Who held it before, when its lease had expired (null: the group was free). */
  previousOwner: string | null;
  /** When the previous owner's lease ended, relative to that now() (≤ 0); null when the group was free. */
  previousExpiryInMs: number | null;
}

/** A lease this node believes it holds. */
export interface HeldLease {
  group: string;
  epoch: number;
}

/** A group this node gives back, with its clock (relative to the release statement) and whether it has work. */
export interface ReleasedGroup extends HeldLease {
  clock: StoredGroupClock;
  hasWork: boolean;
  /**
   * The group's hosts the node knows: the group keeps has_work if any of them has a queued URL, whatever the node
   * believed (another node may have queued one since it last read). None given: the node's belief alone.
   */
  origins?: readonly string[];
}

/**
 * How a release finds every host of its groups in the frontier, not only those its node knows: the frontier does
 * not know groups, so it reads the origins that may belong to them (in 'domain' mode a superset, QUEUED_ORIGINS)
 * and keeps those `groupOf` puts in the group (crawler/politeness/politeness-group.ts).
 */
export interface GroupWorkLookup {
  mode: 'host' | 'domain';
  /** The politeness group of an origin, as the crawler groups it. */
  groupOf(origin: string): string;
}

/** A crawler node whose heartbeat is recent. */
export interface LiveNode {
  node: string;
  /** When it registered, as Unix ms on the database's clock. */
  startedAtMs: number;
  /** How long ago its last heartbeat was, on the database's clock. */
  heartbeatAgoMs: number;
  /** What it said it is doing. */
  doing: string;
  /** How many unexpired leases it holds. */
  groups: number;
}

/**
 * The node no longer holds the group at that epoch (another node took it, or it released it): fatal for that
 * group's result, never retried; the node drops the group from its scheduler.
 */
export class LeaseLostError extends Error {
  override readonly name = 'LeaseLostError';
  /** Never worth trying again: the epoch only moves forward. */
  readonly retryable = false;
  constructor(
    message: string,
    readonly node: string,
    readonly group: string,
    readonly epoch: number,
  ) {
    super(message);
  }
}

/** Milliseconds as an interval parameter ($n::float8 * 1 ms). */
const ms = (n: number) => `($${n}::float8 * interval '1 millisecond')`;
/** A time column as milliseconds from now(), rounded up (a wait read back is never shorter than stored). */
const inMs = (expr: string) => `ceil(extract(epoch from (${expr} - now())) * 1000)::bigint`;

const CLOCK_COLUMNS = `${inMs('l.next_start_at')} AS "nextStartInMs", l.gap_ms AS "gapMs",
  l.crawl_delay_ms AS "crawlDelayMs", ${inMs('l.backoff_until')} AS "backoffInMs", l.backoff_ms AS "backoffMs",
  l.backoff_reason AS "backoffReason", l.pace_response_ms AS "paceResponseMs", l.pace_slowdown AS "paceSlowdown",
  l.pace_strained AS "paceStrained"`;

const REGISTER = statement(
  'cluster.nodes.register',
  `INSERT INTO crawl_nodes (node_id, doing) VALUES ($1, $2)
   ON CONFLICT (node_id) DO UPDATE SET started_at = now(), heartbeat_at = now(), doing = excluded.doing, left_at = NULL`,
);
const HEARTBEAT = statement(
  'cluster.nodes.heartbeat',
  'UPDATE crawl_nodes SET heartbeat_at = now(), doing = $2 WHERE node_id = $1 AND left_at IS NULL',
);
// A group freed by a leaving node waits a full gap from now: a request of its last moments is over by then.
const LEAVE = statement(
  'cluster.nodes.leave',
  `WITH left_node AS (UPDATE crawl_nodes SET left_at = now(), doing = 'left' WHERE node_id = $1)
   UPDATE group_leases SET owner = NULL, expires_at = NULL, taken_at = NULL,
     next_start_at = greatest(next_start_at, now() + gap_ms * interval '1 millisecond')
   WHERE owner = $1`,
);
const LIVE = statement(
  'cluster.nodes.live',
  `SELECT n.node_id AS node, (extract(epoch from n.started_at) * 1000)::bigint AS "startedAtMs",
     ceil(extract(epoch from (now() - n.heartbeat_at)) * 1000)::bigint AS "heartbeatAgoMs", n.doing,
     (SELECT count(*) FROM group_leases g WHERE g.owner = n.node_id AND g.expires_at > now())::int AS groups
   FROM crawl_nodes n
   WHERE n.left_at IS NULL AND n.heartbeat_at > now() - ${ms(1)}
   ORDER BY n.node_id`,
);
const NOTE_WORK = statement(
  'cluster.groups.note-work',
  `INSERT INTO group_leases (group_key) SELECT DISTINCT unnest($1::text[])
   ON CONFLICT (group_key) DO UPDATE SET has_work = true WHERE NOT group_leases.has_work`,
);
const WITH_WORK = statement('cluster.groups.with-work', 'SELECT count(*)::int AS n FROM group_leases WHERE has_work');
// Free groups soonest due first, and expired ones; each locked or skipped, so two takers never share a row.
const TAKE = statement(
  'cluster.leases.take',
  `WITH free AS (
     SELECT group_key, next_start_at, owner, expires_at FROM group_leases
     WHERE owner IS NULL AND has_work ORDER BY next_start_at, group_key LIMIT $2 FOR UPDATE SKIP LOCKED
   ), expired AS (
     SELECT group_key, next_start_at, owner, expires_at FROM group_leases
     WHERE owner IS NOT NULL AND expires_at <= now() AND has_work ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED
   ), picked AS (
     SELECT * FROM (SELECT * FROM free UNION ALL SELECT * FROM expired) c ORDER BY next_start_at, group_key LIMIT $2
   )
   UPDATE group_leases l SET owner = $1, epoch = l.epoch + 1, expires_at = now() + ${ms(3)}, taken_at = now()
   FROM picked p WHERE l.group_key = p.group_key
   RETURNING l.group_key AS "group", l.epoch, (extract(epoch from now()) * 1000)::bigint AS "dbNowMs",
     p.owner AS "previousOwner", ${inMs('p.expires_at')} AS "previousExpiryInMs", ${CLOCK_COLUMNS}`,
);
// The rows are locked in group order first (HELD_IN_GROUP_ORDER, pg-lease-clocks.ts).
const RENEW = statement(
  'cluster.leases.renew',
  `WITH held AS (${HELD_IN_GROUP_ORDER})
   UPDATE group_leases l SET expires_at = now() + ${ms(4)} FROM held WHERE l.group_key = held.group_key
   RETURNING l.group_key AS "group"`,
);
// has_work: as the node says, or kept if one of the hosts it names (space-separated) has a queued URL.
const RELEASE = statement(
  'cluster.leases.release',
  `UPDATE group_leases l SET owner = NULL, expires_at = NULL, taken_at = NULL, ${setClock(0, true)}
     OR EXISTS (SELECT 1 FROM frontier f WHERE f.state = 'queued' AND f.origin = ANY (string_to_array(r.origins, ' ')))
   FROM unnest($2::text[], $3::bigint[], ${CLOCK_TYPES.map((t, i) => `$${i + 4}::${t}[]`).join(', ')},
     $${CLOCK_TYPES.length + 4}::text[])
     AS r(group_key, epoch, ${CLOCK_TYPES.map((_, i) => `c${i}`).join(', ')}, origins)
   WHERE l.group_key = r.group_key AND l.epoch = r.epoch AND l.owner = $1
   RETURNING l.group_key AS "group"`,
);
// Taken first, in the release's transaction: a batch that queued a URL of one of these groups and noted it (NOTE_WORK
// locks the row, ON CONFLICT DO UPDATE) has committed before RELEASE reads the frontier in a snapshot of its own, and
// one that notes after waits for the release to commit, then sets has_work again.
const LOCK_RELEASED = statement(
  'cluster.leases.lock-released',
  'SELECT group_key FROM group_leases WHERE group_key = ANY ($1) AND owner = $2 ORDER BY group_key FOR UPDATE',
);
// FOR SHARE: until the writing transaction ends, no take, renewal or release can move the lease.
const FENCE = statement('cluster.leases.fence', 'SELECT owner, epoch FROM group_leases WHERE group_key = $1 FOR SHARE');

/** Registers a crawler node (again, after a restart: its start and heartbeat are now, and it is no longer left). */
export async function registerNode(db: Queryable, node: string, doing: string): Promise<void> {
  await classifiedChanged(db, REGISTER, [node, doing]);
}

/** Says the node is alive and what it is doing; false if it is unknown or left (register it again). */
export async function heartbeat(db: Queryable, node: string, doing: string): Promise<boolean> {
  return (await classifiedChanged(db, HEARTBEAT, [node, doing])) === 1;
}

/**
 * The node leaves cleanly: every group it holds is free at once (each due no earlier than a full gap from now,
 * so a request of its last moments is followed by the group's delay), and it is no longer live. Release the
 * groups whose clocks it knows with releaseGroups first. Answers how many groups were freed.
 */
export async function leaveCleanly(db: Queryable, node: string): Promise<number> {
  return classifiedChanged(db, LEAVE, [node]);
}

/** The nodes not left whose heartbeat is within `withinMs` of the database's now(), by id. */
export async function liveNodes(db: Queryable, withinMs: number): Promise<LiveNode[]> {
  return classifiedRows<LiveNode>(db, LIVE, [withinMs]);
}

/** Notes that these groups have queued work (a new group gets a free lease row, due at once). */
export async function noteWork(db: Queryable, groups: readonly string[]): Promise<void> {
  await classifiedChanged(db, NOTE_WORK, [groups]);
}

/** How many groups have queued work, held or not: what fair shares are counted over. */
export async function groupsWithWork(db: Queryable): Promise<number> {
  return (await classifiedRows<{ n: number }>(db, WITH_WORK, []))[0]?.n ?? 0;
}

/** A take's row as PostgreSQL answers it: the stored clock's fields flat, its pacing in three columns. */
type TakenRow = Omit<StoredGroupClock, 'pace'> & {
  group: string;
  epoch: number;
  dbNowMs: number;
  previousOwner: string | null;
  previousExpiryInMs: number | null;
  paceResponseMs: number | null;
  paceSlowdown: number;
  paceStrained: number;
};

/**
 * Takes up to `max` groups with work that are free or whose lease expired on the database's clock, soonest due
 * first, for `leaseMs`: each one's epoch is raised, and it comes with its stored clock and the database's now().
 * Concurrent takers never get the same group (FOR UPDATE SKIP LOCKED). Count the lease from before this call.
 */
export async function takeGroups(db: Queryable, node: string, max: number, leaseMs: number): Promise<TakenGroup[]> {
  const taken = await classifiedRows<TakenRow>(db, TAKE, [node, max, leaseMs]);
  return taken
    .map(
      ({
        group,
        epoch,
        dbNowMs,
        previousOwner,
        previousExpiryInMs,
        paceResponseMs,
        paceSlowdown,
        paceStrained,
        ...clock
      }) => ({
        group,
        epoch,
        dbNowMs,
        previousOwner,
        previousExpiryInMs: previousOwner === null ? null : previousExpiryInMs,
        clock: { ...clock, pace: { responseMs: paceResponseMs, slowdown: paceSlowdown, strained: paceStrained } },
      }),
    )
    .sort((a, b) => a.clock.nextStartInMs - b.clock.nextStartInMs || (a.group < b.group ? -1 : 1));
}

/**
 * Extends the node's leases by `leaseMs` from the database's now(); answers the groups still held. A lease that
 * expired, or that another node took (its epoch moved), is not renewed: the node lost it.
 */
export async function renewLeases(
  db: Queryable,
  node: string,
  held: readonly HeldLease[],
  leaseMs: number,
): Promise<Set<string>> {
  if (held.length === 0) return new Set();
  const renewed = await classifiedRows<{ group: string }>(db, RENEW, [
    node,
    held.map((h) => h.group),
    held.map((h) => h.epoch),
    leaseMs,
  ]);
  return new Set(renewed.map((r) => r.group));
}

/**
 * Gives groups back, writing each one's clock (relative to this statement) and whether it still has work;
 * only those the node still holds at their epoch are released. Answers the groups released. Their rows are locked
 * first, in one transaction with the release (LOCK_RELEASED), so that work another node queues and notes meanwhile
 * is never overwritten with has_work = false. With `work`, a group keeps has_work if any host of it has a queued or
 * leased URL, read in that transaction after the lock: a host another node found and queued while this node held
 * the group (this node never read it) is not left stranded under a group marked without work.
 */
export async function releaseGroups(
  db: Queryable,
  node: string,
  released: readonly ReleasedGroup[],
  work?: GroupWorkLookup,
): Promise<Set<string>> {
  if (released.length === 0) return new Set();
  const groups = released.map((r) => r.group);
  const release = async (q: Queryable) => {
    await classifiedRows(q, LOCK_RELEASED, [groups, node]);
    const found = new Set<string>();
    if (work !== undefined)
      for (const o of await classifiedRows<{ origin: string; queued: number; leased: number }>(q, QUEUED_ORIGINS, [
        groups,
        work.mode,
      ]))
        if (o.queued + o.leased > 0) found.add(work.groupOf(o.origin));
    const values = released.map((r) => clockValues(r.clock, r.hasWork || found.has(r.group)));
    const columns = CLOCK_TYPES.map((_, i) => values.map((v) => v[i]));
    return classifiedRows<{ group: string }>(q, RELEASE, [
      node,
      groups,
      released.map((r) => r.epoch),
      ...columns,
      released.map((r) => (r.origins ?? []).join(' ')),
    ]);
  };
  // A client is the caller's: its transaction, if any, holds the lock. A pool gets a transaction of its own.
  let out: Array<{ group: string }>;
  try {
    out = 'release' in db ? await release(db) : await inTransaction(db, release);
  } catch (err) {
    throw pgStorageError(err, RELEASE.name);
  }
  return new Set(out.map((r) => r.group));
}

/**
 * The fence of a result-writing transaction (run it on that transaction's client, before its writes): the lease
 * row is locked for share until the transaction ends, and a LeaseLostError is thrown unless `node` still holds
 * `group` at `epoch`. The expiry is not checked: a lease nobody took since is still this node's to write for.
 */
export async function assertLeaseHeld(
  client: pg.PoolClient,
  node: string,
  group: string,
  epoch: number,
): Promise<void> {
  let current: { owner: string | null; epoch: number } | undefined;
  try {
    current = await row<{ owner: string | null; epoch: number }>(client, FENCE, [group]);
  } catch (err) {
    throw pgStorageError(err, FENCE.name);
  }
  if (current?.owner === node && current.epoch === epoch) return;
  const now =
    current === undefined ? 'has no lease row' : `is held by ${current.owner ?? 'nobody'} at epoch ${current.epoch}`;
  throw new LeaseLostError(
    `pg-leases: node ${node} lost group ${group} (it held epoch ${epoch}; the group ${now}); drop the group's result and stop scheduling it, never retry the write`,
    node,
    group,
    epoch,
  );
}
