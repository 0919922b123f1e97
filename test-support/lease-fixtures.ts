/**
 * A group's clock as a lease row stores it (db/pg/pg-leases.ts StoredGroupClock), for the lease tests: due at once,
 * no Crawl-delay, no backoff, no pacing, a 1 s gap, with `over` on top.
 */
import type { StoredGroupClock } from '../db/pg/pg-leases.ts';

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
