/**
 * A group's clock across owners (issue 29) with an injected clock: a takeover waits for the stored clock and, after
 * an expired owner, for the gap past the old lease's end; storing is relative to the send; and a clock handed from
 * one node to another through a simulated database never comes out earlier than it went in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredGroupClock, TakenGroup } from '../../db/pg/pg-leases.ts';
import { clockForStore, type LocalGroupClock, takeoverClock } from './lease-clock.ts';
import { LeaseRuleError } from './lease-rules.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { storedClock } from '../../test-support/lease-fixtures.ts';

const stored = (over: Partial<StoredGroupClock> = {}): StoredGroupClock => storedClock({ gapMs: 2_000, ...over });

const taken = (clock: StoredGroupClock, previousExpiryInMs: number | null = null): TakenGroup => ({
  group: 'example.org',
  epoch: 2,
  dbNowMs: 1_800_000_000_000,
  clock,
  previousOwner: previousExpiryInMs === null ? null : 'node-a',
  previousExpiryInMs,
});

test("a takeover's first request waits for the stored next start, counted from the answer's arrival", () => {
  const local = takeoverClock(taken(stored({ nextStartInMs: 4_000 })), 10_000);
  assert.equal(local.nextStartAt, 14_000);
});

test('a stored next start already past makes the group due at the arrival, not before it', () => {
  assert.equal(takeoverClock(taken(stored({ nextStartInMs: -60_000 })), 10_000).nextStartAt, 10_000);
});

test("after an expired owner, the first request also waits the group's gap past the old lease's end", () => {
  // The old lease ended 500 ms before the take; a request of the old owner may have run until then.
  const local = takeoverClock(taken(stored({ nextStartInMs: 0, gapMs: 3_000 }), -500), 10_000);
  assert.equal(local.nextStartAt, 12_500);
  // A stored next start later than that still wins.
  assert.equal(takeoverClock(taken(stored({ nextStartInMs: 9_000, gapMs: 3_000 }), -500), 10_000).nextStartAt, 19_000);
  // A group released cleanly (no previous owner) waits for its stored clock alone.
  assert.equal(takeoverClock(taken(stored({ nextStartInMs: 0, gapMs: 3_000 })), 10_000).nextStartAt, 10_000);
});

test('the backoff, delay and pacing move with the group', () => {
  const local = takeoverClock(
    taken(
      stored({
        backoffInMs: 20_000,
        backoffMs: 16_000,
        backoffReason: 'retry-after',
        crawlDelayMs: 5_000,
        pace: { responseMs: 300, slowdown: 2, strained: 1 },
      }),
    ),
    1_000,
  );
  assert.deepEqual(local, {
    nextStartAt: 1_000,
    gapMs: 2_000,
    crawlDelayMs: 5_000,
    backoffUntil: 21_000,
    backoffMs: 16_000,
    backoffReason: 'retry-after',
    pace: { responseMs: 300, slowdown: 2, strained: 1 },
  });
});

const local = (over: Partial<LocalGroupClock> = {}): LocalGroupClock => ({
  nextStartAt: 0,
  gapMs: 2_000,
  crawlDelayMs: null,
  backoffUntil: null,
  backoffMs: 0,
  backoffReason: null,
  pace: { responseMs: null, slowdown: 1, strained: 0 },
  ...over,
});

test('a clock is stored relative to the send of its statement; what is over is stored as over', () => {
  const s = clockForStore(local({ nextStartAt: 7_000, backoffUntil: 9_000, backoffMs: 5_000 }), 5_000);
  assert.equal(s.nextStartInMs, 2_000);
  assert.equal(s.backoffInMs, 4_000);
  const over = clockForStore(local({ nextStartAt: -Infinity, backoffUntil: 1_000 }), 5_000);
  assert.equal(over.nextStartInMs, 0, 'a group never contacted is due at once');
  assert.equal(over.backoffInMs, null, 'a backoff already over is none');
  assert.throws(
    () => clockForStore(local({ nextStartAt: Infinity }), 0),
    (e: Error) => e instanceof LeaseRuleError && /^lease-clock: next start Infinity cannot be stored/.test(e.message),
  );
  assert.throws(() => clockForStore(local({ backoffUntil: Number.NaN }), 0), LeaseRuleError);
});

test('handed from one node to another through the database, a next start and a backoff never come out earlier', () => {
  for (let seed = 1; seed <= 500; seed++) {
    const r = seededRandom(seed);
    // True time is the database's clock; each node's monotonic clock is offset from it by an unknown amount.
    const offsetA = (r() - 0.5) * 1e9;
    const offsetB = (r() - 0.5) * 1e9;
    const nextStart = r() * 60_000; // true times node A decided
    const backoffEnd = r() * 60_000;
    const sendA = r() * 30_000; // A reads its clock, then sends the release; the database runs it later
    const releasedAt = sendA + r() * 2_000;
    const storedRow = clockForStore(
      local({ nextStartAt: nextStart + offsetA, backoffUntil: backoffEnd + offsetA }),
      sendA + offsetA,
    );
    const absNext = releasedAt + storedRow.nextStartInMs; // what the database keeps: its now() + the interval
    const absBackoff = storedRow.backoffInMs === null ? null : releasedAt + storedRow.backoffInMs;
    const takenAt = releasedAt + r() * 40_000; // B's take runs at the database, its answer arrives later
    const arrivesB = takenAt + r() * 2_000;
    const answer = stored({
      nextStartInMs: Math.ceil(absNext - takenAt),
      backoffInMs: absBackoff === null ? null : Math.ceil(absBackoff - takenAt),
    });
    const atB = takeoverClock(taken(answer), arrivesB + offsetB);
    assert.ok(atB.nextStartAt - offsetB >= nextStart, `seed ${seed}: next start came out earlier`);
    if (backoffEnd > sendA) {
      assert.ok(atB.backoffUntil !== null && atB.backoffUntil - offsetB >= backoffEnd, `seed ${seed}: backoff`);
    }
  }
});
