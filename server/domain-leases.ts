/**
 * Domains on many crawler nodes (issue 29): each host belongs to its politeness group (the row's `group.name`,
 * crawler/politeness/politeness-group.ts's key, which is the lease row's group_key), and the group's lease says
 * which node crawls it and since when. The server asks PostgreSQL for the leases of one page's groups at once
 * (db/pg/pg-cluster-view.ts groupLeases) and lays them on that page's rows here. Pure.
 */
import type { DomainInfo } from '../crawler/common/protocol.ts';
import type { GroupLease } from '../db/pg/pg-cluster-view.ts';

/** A group's lease as a Domains row carries it: the owner node, how long it has held it, when the lease ends. */
export type DomainLease = Omit<GroupLease, 'group'>;

/** A Domains row with its group's lease: null when nobody holds the group (or the database did not answer). */
export type LeasedDomain = DomainInfo & { lease: DomainLease | null };

/** The distinct politeness groups of `domains`, in order of first appearance: what one lease query asks for. */
export function groupsOf(domains: readonly DomainInfo[]): string[] {
  return [...new Set(domains.map((d) => d.group.name))];
}

/** Each row with its group's lease from `leases` (null for a group not among them: free, or unknown). */
export function withLeases(domains: readonly DomainInfo[], leases: readonly GroupLease[]): LeasedDomain[] {
  const byGroup = new Map(leases.map(({ group, ...lease }) => [group, lease]));
  return domains.map((d) => ({ ...d, lease: byGroup.get(d.group.name) ?? null }));
}
