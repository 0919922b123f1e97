/**
 * LeaseBook's clocks to record (pure, with the test's own times): a held group whose backoff moved (a 429, a 503, a
 * Retry-After) is handed to the loop once, to be written to its lease row (db/pg/pg-lease-clocks.ts), so a node killed
 * with kill -9 hands its backoffs on; a failed write asks again; a group lost or being released is not asked for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TakenGroup } from '../../db/pg/pg-leases.ts';
import { storedClock } from '../../test-support/lease-fixtures.ts';
import { LeaseBook } from './lease-book.ts';

const SETTINGS = {
  timing: { leaseMs: 90_000, marginMs: 5_000, renewFraction: 1 / 3 },
  requestTimeoutMs: 30_000,
  maxTake: 10,
};

const row = (group: string, epoch = 1): TakenGroup => ({
  group,
  epoch,
  dbNowMs: 1_800_000_000_000,
  clock: storedClock(),
  previousOwner: null,
  previousExpiryInMs: null,
});

/** A book holding `groups`, taken at 0 and answered at 50. */
function holding(groups: readonly string[]): LeaseBook {
  const book = new LeaseBook(SETTINGS);
  book.plan(0, { liveNodes: 1, groupsWithWork: groups.length });
  book.took(
    0,
    50,
    groups.map((g) => row(g)),
  );
  return book;
}

const backedOff = (book: LeaseBook, group: string, until: number) => {
  const clock = book.leases.get(group)!.clock;
  book.note(group, { clock: { ...clock, backoffUntil: until, backoffReason: 'retry-after' } });
};

test('a backoff that moved is asked for once; an unchanged note asks nothing', () => {
  const book = holding(['a.test', 'b.test']);
  assert.deepEqual(book.clocksToRecord(), [], 'nothing moved since the take');
  backedOff(book, 'a.test', 20_000);
  const first = book.clocksToRecord();
  assert.deepEqual(
    first.map((c) => [c.group, c.epoch, c.clock.backoffUntil]),
    [['a.test', 1, 20_000]],
  );
  assert.deepEqual(book.clocksToRecord(), [], 'asked for once');
  backedOff(book, 'a.test', 20_000);
  assert.deepEqual(book.clocksToRecord(), [], 'the same backoff noted again: nothing new');
  backedOff(book, 'a.test', 60_000);
  assert.deepEqual(
    book.clocksToRecord().map((c) => c.clock.backoffUntil),
    [60_000],
    'a longer backoff (a second 429) is written again',
  );
});

test('a failed write is asked for again; a group lost or being released is not', () => {
  const book = holding(['a.test', 'b.test']);
  backedOff(book, 'a.test', 20_000);
  backedOff(book, 'b.test', 20_000);
  const sent = book.clocksToRecord();
  assert.equal(sent.length, 2);
  book.recordFailed(sent);
  // b is released (no work, idle): a release writes its clock anyway.
  book.note('b.test', { hasWork: false });
  const round = book.plan(1_000, { liveNodes: 1, groupsWithWork: 1 });
  assert.deepEqual(
    round.release.map((r) => r.group),
    ['b.test'],
  );
  assert.deepEqual(
    book.clocksToRecord().map((c) => c.group),
    ['a.test'],
    'a asked again after the failed write; b not, being released',
  );
  backedOff(book, 'a.test', 30_000);
  book.renewed([{ group: 'a.test', epoch: 1 }], 30_000, 30_010, new Set()); // "not held": lost
  assert.deepEqual(book.clocksToRecord(), [], 'a lost group is not written');
});
