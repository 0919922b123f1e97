/**
 * A politeness group's clock handed from one crawler node to the next through its lease row, so that a handover
 * is never a burst (issue 29). Pure: times in, times out.
 *
 * No node compares its clock with another's or with the database's. A node writes a time as milliseconds from the
 * moment it SENDS the statement; the database stores its now() plus that, and its now() came after the send, so
 * the stored time is never earlier than the node's. A node reads a time as milliseconds from the statement's now()
 * and adds them to the moment the answer ARRIVED, which came after that now(), so the local time is never earlier
 * than the stored one. Each conversion can only make the group wait longer, never shorter.
 *
 * A group taken from an owner whose lease expired may have had a request running until that lease's end (the
 * start rule, lease-rules.ts mayStart, ends every request before the old owner's local deadline, which falls
 * before the database's expiry). So its first request under the new owner waits for the stored clock AND for the
 * group's gap counted from the old lease's end; a group released cleanly waits for its stored clock alone.
 */
import type { LocalGroupClock } from '../politeness/scheduler-clocks.ts';
import type { StoredGroupClock, TakenGroup } from '../../db/pg/pg-leases.ts';
import { LeaseRuleError } from './lease-rules.ts';

/** A group's clock on this node's monotonic clock (ms): crawler/politeness/scheduler-clocks.ts LocalGroupClock. */
export type { LocalGroupClock };

/**
 * The clock a node continues a group it took with, its answer having arrived at `arrivedAt` (local): the first
 * request waits for the stored next start and backoff, and, after an expired owner, for the gap past the old
 * lease's end. Never earlier than the arrival itself.
 */
export function takeoverClock(taken: TakenGroup, arrivedAt: number): LocalGroupClock {
  const c = taken.clock;
  const afterOldOwner = taken.previousExpiryInMs === null ? -Infinity : taken.previousExpiryInMs + c.gapMs;
  const waitMs = Math.max(0, c.nextStartInMs, afterOldOwner);
  return {
    nextStartAt: arrivedAt + waitMs,
    gapMs: c.gapMs,
    crawlDelayMs: c.crawlDelayMs,
    backoffUntil: c.backoffInMs === null ? null : arrivedAt + c.backoffInMs,
    backoffMs: c.backoffMs,
    backoffReason: c.backoffReason,
    pace: { ...c.pace },
  };
}

/**
 * A local clock as a statement sent at `sentAt` (local, read just before sending) stores it: times as milliseconds
 * from the send. A next start already past is stored as "now" (0), a backoff already over as none.
 */
export function clockForStore(local: LocalGroupClock, sentAt: number): StoredGroupClock {
  for (const [name, v] of [
    ['next start', local.nextStartAt],
    ['backoff end', local.backoffUntil ?? 0],
  ] as const) {
    if (Number.isNaN(v) || v === Infinity)
      throw new LeaseRuleError(
        `lease-clock: ${name} ${v} cannot be stored; pass a local time (-Infinity for a group never contacted)`,
      );
  }
  const backoffLeft = local.backoffUntil === null ? 0 : local.backoffUntil - sentAt;
  return {
    nextStartInMs: Math.max(0, local.nextStartAt - sentAt),
    gapMs: local.gapMs,
    crawlDelayMs: local.crawlDelayMs,
    backoffInMs: backoffLeft > 0 ? backoffLeft : null,
    backoffMs: local.backoffMs,
    backoffReason: local.backoffReason,
    pace: { ...local.pace },
  };
}
