/**
 * One node's lease keeper (issue 29) with an injected clock: renewals sent at a third and counted from their send,
 * a late answer kept only if it came before the deadline, a failed renewal holding to the old deadline, takes
 * bounded by the fair share, releases of idle groups only, and the time of the next round.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { StoredGroupClock, TakenGroup } from '../../db/pg/pg-leases.ts';
import {
  afterRelease,
  afterRenew,
  afterTake,
  type KeeperState,
  LeaseKeeperError,
  mayDispatch,
  heldAt,
  newKeeper,
  nextActAt,
  noteGroup,
  planLeases,
  startWindows,
} from './lease-keeper.ts';
import { storedClock } from '../../test-support/lease-fixtures.ts';
import { renewalDueAt } from './lease-rules.ts';

// Lease 90 s, margin 5 s, renewal due 30 s after a send, deadline 85 s after it; requests of 30 s.
const SETTINGS = {
  timing: { leaseMs: 90_000, marginMs: 5_000, renewFraction: 1 / 3 },
  requestTimeoutMs: 30_000,
  maxTake: 10,
};

const stored = (over: Partial<StoredGroupClock> = {}): StoredGroupClock => storedClock(over);

const row = (group: string, epoch = 1, over: Partial<StoredGroupClock> = {}): TakenGroup => ({
  group,
  epoch,
  dbNowMs: 1_800_000_000_000,
  clock: stored(over),
  previousOwner: null,
  previousExpiryInMs: null,
});

/** A keeper that took `groups` with a take sent at `sentAt` and answered 50 ms later. */
function holding(groups: readonly string[], sentAt = 0, nextStartInMs: (g: string) => number = () => 0): KeeperState {
  const planned = planLeases(newKeeper(SETTINGS), sentAt, { liveNodes: 1, groupsWithWork: groups.length });
  assert.equal(planned.plan.take, groups.length);
  return afterTake(
    planned.state,
    sentAt,
    sentAt + 50,
    groups.map((g) => row(g, 1, { nextStartInMs: nextStartInMs(g) })),
  );
}

const names = (leases: readonly { group: string }[]) => leases.map((l) => l.group);

test('a renewal is sent a third into the lease, and an answer that came late but before the deadline keeps it', () => {
  let s = holding(['a.test']);
  assert.equal(nextActAt(s), 30_000, 'the next round is the renewal due at a third');
  const early = planLeases(s, 10_000, null);
  assert.deepEqual(early.plan.renew, [], 'nothing is renewed at a ninth of the lease');
  const due = planLeases(s, 30_000, null);
  assert.deepEqual(due.plan.renew, [{ group: 'a.test', epoch: 1 }]);
  s = due.state;
  assert.deepEqual(planLeases(s, 31_000, null).plan.renew, [], 'a renewal on its way is not sent twice');
  // Answered 50 s after the send, at 80 s, before the 85 s deadline: the deadline moves from the SEND (30 s).
  const kept = afterRenew(s, due.plan.renew, 30_000, 80_000, new Set(['a.test']));
  assert.deepEqual(kept.lost, []);
  assert.deepEqual(names(heldAt(kept.state, 100_000)), ['a.test'], 'held past the old deadline');
  assert.equal(kept.state.leases.get('a.test')?.lease.deadline, 115_000, 'deadline = send 30 s + 90 s - 5 s');
  assert.deepEqual(names(mayDispatch(kept.state, 80_000)), ['a.test'], '80 + 30 + 5 <= 115');
  assert.deepEqual(names(mayDispatch(kept.state, 80_001)), [], 'a request that could end past the margin waits');
  assert.equal(nextActAt(kept.state), 60_000, 'the next renewal is due a third after that send');
});

test('a renewal answered after the deadline loses the lease for good: reported, and never revived', () => {
  const due = planLeases(holding(['a.test']), 30_000, null);
  const late = afterRenew(due.state, due.plan.renew, 30_000, 85_000, new Set(['a.test']));
  assert.deepEqual(late.lost, [{ group: 'a.test', epoch: 1 }], 'the caller is told to drop its jobs');
  assert.deepEqual(heldAt(late.state, 85_000), []);
  assert.deepEqual(mayDispatch(late.state, 85_000), []);
  assert.deepEqual(planLeases(late.state, 86_000, null).plan.renew, [], 'nothing more is sent for it');
  assert.equal(nextActAt(late.state), null);
});

test('a lease whose deadline passes while its renewal is out is reported lost, and the late answer changes nothing', () => {
  const due = planLeases(holding(['a.test']), 30_000, null);
  const round = planLeases(due.state, 85_000, null);
  assert.deepEqual(round.plan.lost, [{ group: 'a.test', epoch: 1 }]);
  const late = afterRenew(round.state, due.plan.renew, 30_000, 90_000, new Set(['a.test']));
  assert.deepEqual(late.lost, [], 'already reported once');
  assert.deepEqual(heldAt(late.state, 90_000), [], 'a held answer after the deadline does not bring it back');
});

test('a failed renewal holds the lease to its old deadline only, and a "not held" answer loses it at once', () => {
  const due = planLeases(holding(['a.test', 'b.test']), 30_000, null);
  const failed = afterRenew(due.state, due.plan.renew, 30_000, 31_000, null);
  assert.deepEqual(failed.lost, []);
  assert.deepEqual(names(mayDispatch(failed.state, 50_000)), ['a.test', 'b.test'], '50 + 35 <= 85');
  assert.deepEqual(names(mayDispatch(failed.state, 50_001)), [], 'no request may run past the old deadline');
  const retry = planLeases(failed.state, 40_000, null);
  assert.deepEqual(names(retry.plan.renew), ['a.test', 'b.test'], 'a failed renewal is tried again');
  const half = afterRenew(retry.state, retry.plan.renew, 40_000, 41_000, new Set(['b.test']));
  assert.deepEqual(half.lost, [{ group: 'a.test', epoch: 1 }], 'not held: lost at once');
  assert.deepEqual(names(heldAt(half.state, 100_000)), ['b.test']);
  const end = planLeases(failed.state, 85_000, null);
  assert.deepEqual(names(end.plan.lost), ['a.test', 'b.test'], 'with no renewal held, lost at the old deadline');
});

test('a take is never beyond the fair share, and no second take is sent while one is out', () => {
  const s = holding(['a.test', 'b.test', 'c.test']);
  // 9 groups with work over 3 live nodes: a share of 3, which this node holds.
  assert.equal(planLeases(s, 1_000, { liveNodes: 3, groupsWithWork: 9 }).plan.take, 0);
  // 20 over 2: a share of 10, so 7 more, and no more than that even if the table had more to give.
  const below = planLeases(s, 1_000, { liveNodes: 2, groupsWithWork: 20 });
  assert.equal(below.plan.take, 7);
  assert.equal(planLeases(below.state, 1_100, { liveNodes: 2, groupsWithWork: 20 }).plan.take, 0, 'one take at a time');
  const fresh = planLeases(newKeeper(SETTINGS), 0, { liveNodes: 1, groupsWithWork: 500 });
  assert.equal(fresh.plan.take, 10, 'at most maxTake per take');
  assert.throws(() => afterTake(newKeeper(SETTINGS), 0, 1, []), LeaseKeeperError, 'an answer to no take is a bug');
});

test('a take counts its leases from the send and continues each group clock from the answer', () => {
  const taken = holding(['a.test', 'b.test'], 1_000, (g) => (g === 'b.test' ? 4_000 : 0));
  assert.equal(taken.leases.get('a.test')?.lease.deadline, 86_000, 'send 1 s + 90 s - 5 s');
  assert.equal(taken.leases.get('b.test')?.clock.nextStartAt, 5_050, 'arrival 1.05 s + 4 s');
  assert.equal(taken.taking, false);
});

test('a node above its share releases idle groups only, latest due first, with their clocks; never one in flight', () => {
  const groups = ['a.test', 'b.test', 'c.test', 'd.test'];
  let s = holding(groups, 0, (g) => groups.indexOf(g) * 1_000);
  s = noteGroup(s, 'd.test', { inFlight: true });
  // 4 over 2 live: share 2, two to release. d is due latest but in flight: c and b go.
  const over = planLeases(s, 1_000, { liveNodes: 2, groupsWithWork: 4 });
  assert.deepEqual(
    over.plan.release.map((r) => [r.group, r.epoch, r.clock.nextStartAt]),
    [
      ['c.test', 1, 2_050],
      ['b.test', 1, 1_050],
    ],
  );
  assert.equal(over.plan.take, 0);
  assert.deepEqual(
    names(mayDispatch(over.state, 1_000)),
    ['a.test', 'd.test'],
    'a group being released is not dispatched',
  );
  // 4 over 4 live: share 1; three would go, but d is in flight: only a, b, c.
  const all = planLeases(s, 1_000, { liveNodes: 4, groupsWithWork: 4 });
  assert.deepEqual(names(all.plan.release), ['c.test', 'b.test', 'a.test']);
  const sent = all.plan.release.map((r) => ({ group: r.group, epoch: r.epoch }));
  const done = afterRelease(all.state, sent, new Set(['c.test', 'b.test']));
  assert.deepEqual(done.lost, [{ group: 'a.test', epoch: 1 }], 'a release the database refused: another node has it');
  assert.deepEqual(names(heldAt(done.state, 1_000)), ['d.test']);
  const failed = afterRelease(all.state, sent, null);
  assert.deepEqual(names(failed.lost), ['c.test', 'b.test', 'a.test'], 'a failed release may have freed them');
  assert.deepEqual(names(heldAt(failed.state, 1_000)), ['d.test']);
});

test("a lease's start limit keeps the margin; its send limit (a job's sendBy) is the deadline less the timeout, kept while releasing", () => {
  const s = holding(['a.test', 'b.test']);
  // Sent at 0: deadline 85 s; a request of 30 s starts by 50 s (margin kept) and is written by 55 s at the latest.
  assert.deepEqual(
    startWindows(s, 1_000).map((w) => [w.group, w.startsUntil, w.sendsUntil]),
    [
      ['a.test', 50_000, 55_000],
      ['b.test', 50_000, 55_000],
    ],
  );
  const releasing = planLeases(s, 1_000, { liveNodes: 2, groupsWithWork: 2 });
  assert.equal(releasing.plan.release.length, 1);
  const [released] = releasing.plan.release;
  const w = startWindows(releasing.state, 1_000).find((x) => x.group === released!.group)!;
  assert.deepEqual([w.startsUntil, w.sendsUntil], [-Infinity, 55_000], 'no start while releasing; jobs out may go');
});

test('a group without work is released when idle, whatever the share, and kept while in flight', () => {
  let s = holding(['a.test', 'b.test']);
  s = noteGroup(s, 'a.test', { hasWork: false });
  s = noteGroup(s, 'b.test', { hasWork: false, inFlight: true });
  const round = planLeases(s, 1_000, { liveNodes: 1, groupsWithWork: 0 });
  assert.deepEqual(
    round.plan.release.map((r) => [r.group, r.hasWork]),
    [['a.test', false]],
  );
});

test('leases taken one a second over 30 s converge on one renewal, each renewed before it is due', () => {
  const facts = { liveNodes: 1, groupsWithWork: 30 };
  let s = newKeeper(SETTINGS);
  const renewals: number[] = [];
  // A round a second, each answered 50 ms after it is sent; the first 30 rounds also take one group each.
  for (let now = 0; now <= 300_000; now += 1000) {
    const { state, plan } = planLeases(s, now, facts);
    assert.deepEqual(plan.lost, [], `no lease lost at ${now} ms`);
    s = state;
    if (plan.renew.length > 0) {
      renewals.push(now);
      s = afterRenew(s, plan.renew, now, now + 50, new Set(names(plan.renew))).state;
    }
    if (plan.take > 0) {
      const i = s.leases.size;
      s = afterTake(s, now, now + 50, i < 30 ? [row(`g${String(i).padStart(2, '0')}.test`)] : []);
    }
    for (const k of s.leases.values())
      assert.ok(renewalDueAt(k.lease, SETTINGS.timing) > now, `${k.lease.group} renewed by its due time (${now} ms)`);
  }
  assert.equal(heldAt(s, 300_000).length, 30, 'every lease still held');
  assert.ok(renewals.length <= 12, `${renewals.length} renewal statements in 300 s (${renewals.join(', ')})`);
});
