/**
 * Politeness of one politeness group (several host names of one registrable domain, or one site alone) from its
 * sites' own request logs merged: how many requests were in flight at once, and every gap below the rule of
 * docs/politeness.md: the next request of a group to host H starts no earlier than the end of the group's last
 * request plus max(the default delay, H's Crawl-delay). A host's Crawl-delay is in its robots.txt, so in a group of
 * several hosts the request that reads a host's robots.txt keeps the default delay (nothing can know that host's
 * Crawl-delay before it is read); a site alone is held to its whole delay for every request, robots.txt included.
 * Pure: it reads the records it is given.
 */
import { politenessReport } from './politeness.ts';
import type { RequestRecord } from './test-web.ts';

/** One site of a group: its log and the delay its own robots.txt asks for (with the default: the larger). */
export interface GroupMember {
  label: string;
  log: readonly RequestRecord[];
  /** max(default delay, its Crawl-delay). */
  minGapMs: number;
}

/** What `groupPoliteness` found. */
export interface GroupPoliteness {
  /** The most requests in flight at once across the group's sites (1 when polite). */
  maxInFlight: number;
  /** Every gap below the rule, as "prev → next: gap ms (needed)". */
  violations: string[];
}

/** End time of a record; one still in flight counts as never ending. */
const endOf = (r: RequestRecord) => (Number.isNaN(r.end) ? Infinity : r.end);

/** The group's politeness over its members' merged logs (see the module comment). */
export function groupPoliteness(members: readonly GroupMember[], defaultGapMs: number): GroupPoliteness {
  const all = members.flatMap((m) => m.log.map((r) => ({ r, m }))).sort((a, b) => a.r.start - b.r.start);
  const violations: string[] = [];
  let latest: (typeof all)[number] | undefined;
  for (const next of all) {
    if (latest !== undefined) {
      const gap = next.r.start - endOf(latest.r);
      const readsRobots = next.r.path === '/robots.txt' && members.length > 1;
      const need = readsRobots ? defaultGapMs : next.m.minGapMs;
      if (gap < need)
        violations.push(
          `${latest.r.userAgent} ${latest.m.label}${latest.r.path} → ${next.r.userAgent} ${next.m.label}${next.r.path}: ${gap.toFixed(1)} ms (needed ${need})`,
        );
    }
    if (latest === undefined || endOf(next.r) > endOf(latest.r)) latest = next;
  }
  return {
    maxInFlight: politenessReport(
      all.map((x) => x.r),
      0,
    ).maxInFlight,
    violations,
  };
}
