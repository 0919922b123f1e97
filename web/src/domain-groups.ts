// Pure: the Domains table's rows gathered under their politeness group (one clock per registrable domain).
import type { Domain } from './api.ts';

/** A politeness group's hosts, in the table's order. */
export interface DomainGroup {
  /** The group's clock as the crawler reported it (the same on each of its hosts' rows). */
  group: Domain['group'];
  domains: Domain[];
}

/**
 * Gathers sorted rows under their groups: each group takes the place of its first row in the sort, and its
 * other rows follow it, in sort order; so a sort by any column still reads top to bottom, and a group's
 * hosts are never apart.
 */
export function groupDomains(sorted: readonly Domain[]): DomainGroup[] {
  const groups = new Map<string, DomainGroup>();
  for (const domain of sorted) {
    const found = groups.get(domain.group.name);
    if (found) found.domains.push(domain);
    else groups.set(domain.group.name, { group: domain.group, domains: [domain] });
  }
  return [...groups.values()];
}

/** Whether a group's clock is worth its own row: it is shared by more than one known host. */
export function isSharedGroup(g: DomainGroup): boolean {
  return g.group.hosts > 1;
}
