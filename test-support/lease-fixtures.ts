/**
 * What the lease tests share: a group's clock as a lease row stores it (db/pg/pg-leases.ts StoredGroupClock), due at
 * once, no Crawl-delay, no backoff, no pacing, a 1 s gap, with `over` on top; and the lease loop tests' groups and
 * settings.
 */
import type { StoredGroupClock } from '../db/pg/pg-leases.ts';
import type { KeeperSettings } from '../crawler/cluster/lease-keeper.ts';

/** A stored group clock with the fields a test does not care about at their neutral values. */
export function storedClock(over: Partial<StoredGroupClock> = {}): StoredGroupClock {
  return {
    nextStartInMs: 0,
    gapMs: 1_000,
    crawlDelayMs: null,
    backoffInMs: null,
    backoffMs: 0,
    backoffReason: null,
    pace: { responseMs: null, slowdown: 1, strained: 0 },
    ...over,
  };
}

/** 2,000 politeness groups (site-0000.test ...): enough that a lease round's cost per held group would show. */
export const MANY_GROUPS: readonly string[] = Array.from(
  { length: 2000 },
  (_, i) => `site-${String(i).padStart(4, '0')}.test`,
);

/** A lease loop's settings in the loop tests: 60 s leases, a 1 s margin and request timeout, `maxTake` a take. */
export function loopSettings(maxTake: number): KeeperSettings {
  return {
    timing: { leaseMs: 60_000, marginMs: 1000, renewFraction: 1 / 3 },
    requestTimeoutMs: 1000,
    maxTake,
  };
}
