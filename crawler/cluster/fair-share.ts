/**
 * How many politeness groups a crawler node should hold, so that the groups with work spread over the live nodes
 * (issue 29 "Fair shares and joins"). Pure: counts and the node's own groups in, a plan out.
 *
 * A node's share is the groups with work divided by the live nodes, rounded up (so the shares cover every group).
 * A node below its share takes the difference (at most `maxTake` per round, to keep each take statement short);
 * a node above it releases the excess, but only groups between requests (none in flight), and of those the ones
 * due latest first: they lose the least by moving, since the new owner continues their clock anyway. A node that
 * joins is counted among the live nodes at once, so the others' shares drop and they release what it then takes.
 */

/** A group the node holds, as the plan needs it. */
export interface HeldGroup {
  group: string;
  /** A request of the group is running: it is not released until the request has ended. */
  inFlight: boolean;
  /** When its next request may start (local ms); the latest due are released first. */
  dueAt: number;
}

/** What the plan is made from. */
export interface ShareFacts {
  /** Groups with queued work over the whole cluster (db/pg/pg-leases.ts groupsWithWork). */
  groupsWithWork: number;
  /** Live nodes, this one included (liveNodes). */
  liveNodes: number;
  /** The groups with work this node holds (a group without work is released anyway). */
  held: readonly HeldGroup[];
  /** At most this many groups are taken in one round. */
  maxTake: number;
}

/** What to do this round: take this many groups, release these. */
export interface SharePlan {
  share: number;
  take: number;
  release: string[];
}

/** This node's share of the groups with work: the groups with work divided by the live nodes, rounded up. */
export function shareOf(f: Pick<ShareFacts, 'groupsWithWork' | 'liveNodes'>): number {
  return Math.ceil(Math.max(0, f.groupsWithWork) / Math.max(1, f.liveNodes));
}

/**
 * How many groups a node holding `holding` groups with work takes to reach `share` (at most `maxTake`). A node at or
 * below its share releases nothing for the share, so the keeper answers this from a count, without listing its
 * groups (lease-keeper.ts: a round at 10,000 groups visits none of them unless it must release).
 */
export function takeToShare(share: number, holding: number, maxTake: number): number {
  return Math.max(0, Math.min(maxTake, share - holding));
}

/** This node's share of the groups with work, and what to take or release to reach it (see the module comment). */
export function fairShare(f: ShareFacts): SharePlan {
  const share = shareOf(f);
  const excess = f.held.length - share;
  if (excess <= 0) return { share, take: takeToShare(share, f.held.length, f.maxTake), release: [] };
  const release = f.held
    .filter((g) => !g.inFlight)
    .sort((a, b) => b.dueAt - a.dueAt || (a.group < b.group ? -1 : a.group > b.group ? 1 : 0))
    .slice(0, excess)
    .map((g) => g.group);
  return { share, take: 0, release };
}
