/**
 * Which held groups' delays a crawler node writes to their lease rows between renewals (issue 29, docs/scaling.md
 * "A taken group keeps its Crawl-delay"). A lease row's clock is written at a release; a node killed with kill -9
 * releases nothing, so the node that takes its groups would continue them with the delays last released (none, for
 * a group never released): its first request waits only that gap past the old lease's end, and the robots.txt it
 * reads again keep only the default delay. So a group whose Crawl-delay changed, or whose gap grew past what its
 * row says by a quarter, is written at the next round. Pure: the keeper's leases and what was written in, rows out.
 */
import type { KeptLease } from './lease-keeper.ts';

/** A group's delays as its lease row holds them (gap_ms, crawl_delay_ms), under the epoch that wrote them. */
export interface GapRecord {
  group: string;
  epoch: number;
  gapMs: number;
  crawlDelayMs: number | null;
}

/** A gap this much longer than the one written is written again (pacing moves the gap at every answer). */
export const GAP_GROWTH = 1.25;

/**
 * The delays to write now: each held lease (not being released) whose Crawl-delay differs from what was written
 * under its epoch, or whose gap grew past GAP_GROWTH × the written one; a lease nothing was written for under its
 * epoch (just taken) is written once.
 */
export function gapsToRecord(leases: Iterable<KeptLease>, written: ReadonlyMap<string, GapRecord>): GapRecord[] {
  const out: GapRecord[] = [];
  for (const k of leases) {
    if (k.releasing) continue;
    const { group, epoch } = k.lease;
    const was = written.get(group);
    const gapMs = Math.ceil(k.clock.gapMs);
    const crawlDelayMs = k.clock.crawlDelayMs === null ? null : Math.ceil(k.clock.crawlDelayMs);
    const same = was !== undefined && was.epoch === epoch;
    if (same && was.crawlDelayMs === crawlDelayMs && gapMs <= was.gapMs * GAP_GROWTH) continue;
    out.push({ group, epoch, gapMs, crawlDelayMs });
  }
  return out;
}
