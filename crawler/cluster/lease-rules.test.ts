/**
 * The lease rules of issue 29 with an injected clock: the deadline counted from the send, the start rule, expiry,
 * renewal (held, not held, failed, late), the timing check, and a paused node against a simulated database.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  afterRenewal,
  checkLeaseTiming,
  grantLease,
  LEASE,
  LeaseRuleError,
  leaseAt,
  mayStart,
  renewalDue,
  renewalDueAt,
} from './lease-rules.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';

const T = { leaseMs: 90_000, marginMs: 5_000, renewFraction: 1 / 3 };
const TIMEOUT = 30_000;

test('the deadline counts from before the take was sent, whenever its answer arrives', () => {
  // Sent at 1 000, answered 40 s later: the answer's arrival buys nothing.
  const lease = grantLease('example.org', 3, 1_000, T);
  assert.deepEqual(lease, { group: 'example.org', epoch: 3, sentAt: 1_000, deadline: 86_000, lost: false });
});

test('a request starts only if its timeout and the margin fit before the local deadline', () => {
  const lease = grantLease('example.org', 1, 0, T); // deadline 85 000
  assert.equal(mayStart(lease, 41_000, TIMEOUT, T.marginMs), true);
  assert.equal(mayStart(lease, 50_000, TIMEOUT, T.marginMs), true, 'ends at 80 000, 5 000 before the deadline');
  assert.equal(mayStart(lease, 50_001, TIMEOUT, T.marginMs), false, 'would end inside the margin');
  assert.equal(mayStart(lease, 54_000, 1_000, T.marginMs), true, 'a shorter timeout fits later');
  assert.equal(mayStart({ ...lease, lost: true }, 0, TIMEOUT, T.marginMs), false, 'never under a lost lease');
});

test('a lease expires at its local deadline, and stays lost', () => {
  const lease = grantLease('example.org', 1, 0, T);
  assert.equal(leaseAt(lease, 84_999).lost, false);
  const lost = leaseAt(lease, 85_000);
  assert.equal(lost.lost, true);
  assert.equal(leaseAt(lost, 0).lost, true, 'an earlier reading of the clock does not bring it back');
  assert.equal(mayStart(lost, 0, 1, 1), false);
  assert.equal(renewalDue(lost, 85_000, T), false, 'a lost lease is never renewed');
});

test('renewal falls due a third into the lease; a held renewal moves the deadline, counted from its send', () => {
  const lease = grantLease('example.org', 1, 0, T);
  assert.equal(renewalDueAt(lease, T), 30_000);
  assert.equal(renewalDue(lease, 29_999, T), false);
  assert.equal(renewalDue(lease, 30_000, T), true);
  // Sent at 30 000, answered at 44 000: the new deadline is 30 000 + 85 000, not 44 000 + 85 000.
  const renewed = afterRenewal(lease, 30_000, 'held', 44_000, T);
  assert.deepEqual(renewed, { ...lease, sentAt: 30_000, deadline: 115_000 });
  assert.equal(renewalDueAt(renewed, T), 60_000);
  assert.equal(mayStart(renewed, 80_000, TIMEOUT, T.marginMs), true);
  // An answer to an older renewal, arriving later, never moves the deadline back.
  assert.deepEqual(afterRenewal(renewed, 10_000, 'held', 45_000, T), renewed);
});

test('a failed renewal holds the lease only to its old deadline; past it the group is lost', () => {
  const lease = grantLease('example.org', 1, 0, T);
  const failed = afterRenewal(lease, 30_000, 'failed', 31_000, T);
  assert.deepEqual(failed, lease, 'nothing extended');
  assert.equal(mayStart(failed, 50_000, TIMEOUT, T.marginMs), true, 'the old deadline still holds');
  assert.equal(mayStart(failed, 50_001, TIMEOUT, T.marginMs), false);
  const retried = afterRenewal(failed, 60_000, 'failed', 85_000, T);
  assert.equal(retried.lost, true, 'the deadline came with no renewal held');
});

test('a renewal answered after the old deadline revives nothing, even if the database held it', () => {
  const lease = grantLease('example.org', 1, 0, T);
  const late = afterRenewal(lease, 80_000, 'held', 85_000, T);
  assert.equal(late.lost, true);
  assert.equal(late.deadline, 85_000);
  assert.equal(afterRenewal(lease, 80_000, 'held', 84_999, T).deadline, 165_000, 'just in time, it holds');
});

test("a renewal answered 'not held' loses the lease at once", () => {
  const lease = grantLease('example.org', 1, 0, T);
  const gone = afterRenewal(lease, 30_000, 'not-held', 30_010, T);
  assert.equal(gone.lost, true);
  assert.equal(mayStart(gone, 30_010, 1, 1), false);
});

test('lease timing must leave room for a whole request when the renewal falls due', () => {
  assert.deepEqual(checkLeaseTiming(LEASE, TIMEOUT), LEASE);
  assert.doesNotThrow(() => checkLeaseTiming({ ...T, leaseMs: 60_000 }, TIMEOUT), '40 s - 5 s leaves 35 s: just fits');
  assert.throws(
    () => checkLeaseTiming({ ...T, leaseMs: 59_999 }, TIMEOUT),
    (e: Error) =>
      e instanceof LeaseRuleError && /^lease-rules: a lease of 59999 ms .*lengthen the lease/.test(e.message),
  );
  assert.throws(() => checkLeaseTiming({ ...T, renewFraction: 1 }, TIMEOUT), LeaseRuleError);
  assert.throws(() => checkLeaseTiming({ ...T, marginMs: 0 }, TIMEOUT), /^LeaseRuleError: lease-rules: marginMs 0/);
});

test('a node paused longer than its lease sends nothing once it resumes: every request it started ended before the database let another node take the group', () => {
  for (let seed = 1; seed <= 200; seed++) {
    const r = seededRandom(seed);
    // True time = the database's clock; node A's monotonic clock is offset from it by any amount.
    const offset = (r() - 0.5) * 1e9;
    const local = (t: number) => t + offset;
    const sendAt = r() * 1000;
    const reachesDb = sendAt + r() * 3_000; // the take's statement runs at the database a little later
    const expiresAt = reachesDb + T.leaseMs;
    const lease = grantLease('g', 1, local(sendAt), T);
    // A starts requests while the rule lets it, each running to its timeout, then pauses for longer than the lease.
    const ends: number[] = [];
    let t = reachesDb + r() * 1_000;
    const pauseAt = sendAt + r() * T.leaseMs;
    while (t < pauseAt) {
      if (mayStart(leaseAt(lease, local(t)), local(t), TIMEOUT, T.marginMs)) {
        ends.push(t + TIMEOUT);
        t += TIMEOUT;
      } else t += 100;
    }
    const resumeAt = pauseAt + T.leaseMs + r() * 10_000;
    // Resumed, A finds its lease lost: no request starts, no renewal is sent.
    const resumed = leaseAt(lease, local(resumeAt));
    assert.equal(resumed.lost, true, `seed ${seed}`);
    assert.equal(mayStart(resumed, local(resumeAt), 1, T.marginMs), false, `seed ${seed}`);
    assert.equal(renewalDue(resumed, local(resumeAt), T), false, `seed ${seed}`);
    // Every request A started was over, with the margin to spare, before the database's expiry.
    for (const end of ends) assert.ok(end + T.marginMs <= expiresAt, `seed ${seed}: a request ended at ${end}`);
  }
});
