/**
 * What a person sees of many crawler nodes on one PostgreSQL (issue 29, docs/scaling.md "Many crawler nodes"):
 * read-only queries of the rows db/pg/pg-leases.ts writes (crawl_nodes, group_leases), one named statement each.
 * Every time comes back as an age or a wait in milliseconds from the database's now() of the statement, never as
 * an instant: the server that shows them compares no clock of its own with the database's or a node's.
 */
import { classifiedRows } from './classified-query.ts';
import { type Queryable, statement } from './pool.ts';

/** Alive: its heartbeat is within the window; silent: it is not, and it never left cleanly; left: it did. */
export const NODE_STATES = ['alive', 'silent', 'left'] as const;
/** One of NODE_STATES. */
export type NodeState = (typeof NODE_STATES)[number];

/** One crawler node as the status lists it. */
export interface ClusterNode {
  node: string;
  state: NodeState;
  /** What its last heartbeat said it is doing ('left' once it left). */
  doing: string;
  /** How many unexpired leases it holds. */
  groups: number;
  /** How long ago it registered (started or restarted). */
  startedAgoMs: number;
  /** How long ago its last heartbeat was: for a silent node, how long it has been silent. */
  heartbeatAgoMs: number;
  /** How long ago it left cleanly; null unless it left. */
  leftAgoMs: number | null;
}

/** The nodes heard from recently: how many in each state, and the first `limit` of them (see clusterNodes). */
export interface ClusterNodes {
  counts: Record<NodeState, number>;
  nodes: ClusterNode[];
}

/** A politeness group's lease as Domains shows it. */
export interface GroupLease {
  group: string;
  /** The node that holds it. */
  node: string;
  /** How long that node has held it (now() − taken_at); null if the row has no take time. */
  heldForMs: number | null;
  /** Until its lease expires; ≤ 0: expired, and no other node has taken the group yet. */
  expiresInMs: number;
}

/** How clusterNodes chooses the nodes. */
export interface NodeWindow {
  /** A node not left is alive if its last heartbeat is within this (the lease loop's liveWithinMs). */
  aliveWithinMs: number;
  /** Nodes whose last heartbeat, or leaving, is older than this are not listed nor counted (their rows stay). */
  recentMs: number;
  /** At most this many nodes listed: the alive ones by id, then the silent, then the left, latest first. */
  limit: number;
}

/** The read-only view the server's routes use (db/server-store.ts ClusterViewStore on PostgreSQL). */
export interface ClusterView {
  /** The nodes heard from within `window.recentMs`, counted by state. */
  nodes(window: NodeWindow): Promise<ClusterNodes>;
  /** The leases of `groups` that have an owner (a group not answered is free or unknown). */
  leases(groups: readonly string[]): Promise<GroupLease[]>;
}

/** Milliseconds as an interval parameter. */
const ms = (n: number) => `($${n}::float8 * interval '1 millisecond')`;
/** An instant as milliseconds before now() (an age), rounded up. */
const agoMs = (expr: string) => `ceil(extract(epoch from (now() - ${expr})) * 1000)::bigint`;

const NODE_STATE = `CASE WHEN left_at IS NOT NULL THEN 'left' WHEN heartbeat_at > now() - ${ms(1)} THEN 'alive'
  ELSE 'silent' END`;
const NODE_ORDER = `CASE state WHEN 'alive' THEN 0 WHEN 'silent' THEN 1 ELSE 2 END,
  CASE WHEN state = 'alive' THEN node_id END, coalesce(left_at, heartbeat_at) DESC, node_id`;
// One row per listed node, each carrying the counts; one row of counts alone when none is listed.
const NODES = statement(
  'cluster.view.nodes',
  `WITH n AS (
     SELECT node_id, doing, started_at, heartbeat_at, left_at, ${NODE_STATE} AS state
     FROM crawl_nodes WHERE coalesce(left_at, heartbeat_at) > now() - ${ms(2)}
   ), totals AS (
     SELECT count(*) FILTER (WHERE state = 'alive')::int AS alive, count(*) FILTER (WHERE state = 'silent')::int AS silent,
       count(*) FILTER (WHERE state = 'left')::int AS "left"
     FROM n
   ), listed AS (
     SELECT n.*, row_number() OVER (ORDER BY ${NODE_ORDER}) AS place FROM n ORDER BY ${NODE_ORDER} LIMIT $3
   )
   SELECT t.alive, t.silent, t."left", l.node_id AS node, l.state, l.doing,
     (SELECT count(*) FROM group_leases g WHERE g.owner = l.node_id AND g.expires_at > now())::int AS groups,
     ${agoMs('l.started_at')} AS "startedAgoMs", ${agoMs('l.heartbeat_at')} AS "heartbeatAgoMs",
     ${agoMs('l.left_at')} AS "leftAgoMs"
   FROM totals t LEFT JOIN listed l ON true
   ORDER BY l.place`,
);
const LEASE_COLUMNS = `group_key AS "group", owner AS node, ${agoMs('taken_at')} AS "heldForMs",
  ceil(extract(epoch from (expires_at - now())) * 1000)::bigint AS "expiresInMs"`;
const LEASES_OF = statement(
  'cluster.view.leases-of',
  `SELECT ${LEASE_COLUMNS} FROM group_leases
   WHERE group_key = ANY($1::text[]) AND owner IS NOT NULL ORDER BY group_key`,
);
const HELD = statement(
  'cluster.view.held',
  `SELECT ${LEASE_COLUMNS} FROM group_leases WHERE owner IS NOT NULL ORDER BY group_key LIMIT $1`,
);

type NodeRow = Record<NodeState, number> & { [K in keyof ClusterNode]: ClusterNode[K] | null };

/**
 * The crawler nodes heard from within `window.recentMs` (heartbeat, or a clean leave), each alive, silent or
 * left as of the database's now(), with what it said it does, how many unexpired leases it holds, and its
 * ages; the counts cover every such node, the list only the first `window.limit`. One statement.
 */
export async function clusterNodes(db: Queryable, window: NodeWindow): Promise<ClusterNodes> {
  const found = await classifiedRows<NodeRow>(db, NODES, [window.aliveWithinMs, window.recentMs, window.limit]);
  const first = found[0];
  const counts = { alive: first?.alive ?? 0, silent: first?.silent ?? 0, left: first?.left ?? 0 };
  const nodes: ClusterNode[] = [];
  for (const r of found) {
    if (r.node === null) continue; // the row of counts alone: nobody listed
    nodes.push({
      node: r.node,
      state: r.state ?? 'silent',
      doing: r.doing ?? '',
      groups: r.groups ?? 0,
      startedAgoMs: r.startedAgoMs ?? 0,
      heartbeatAgoMs: r.heartbeatAgoMs ?? 0,
      leftAgoMs: r.leftAgoMs,
    });
  }
  return { counts, nodes };
}

/** The owner, hold time and expiry of each of `groups` that has an owner, by group key. One statement. */
export async function groupLeases(db: Queryable, groups: readonly string[]): Promise<GroupLease[]> {
  if (groups.length === 0) return [];
  return classifiedRows<GroupLease>(db, LEASES_OF, [[...new Set(groups)]]);
}

/** Every group with an owner (expired or not), by group key, at most `limit`. One statement. */
export async function heldLeases(db: Queryable, limit: number): Promise<GroupLease[]> {
  return classifiedRows<GroupLease>(db, HELD, [limit]);
}

/** The view on one pool (the server's). */
export function pgClusterView(db: Queryable): ClusterView {
  return {
    nodes: (window) => clusterNodes(db, window),
    leases: (groups) => groupLeases(db, groups),
  };
}
