/**
 * The politeness leases (issue 29) on a throwaway PostgreSQL cluster, with two nodes on two pools as two machines
 * would be: concurrent takes never share a group, an expired lease moves with its epoch raised and its clock kept,
 * the old owner can neither renew nor write for it, a clean leave frees its groups at once, and takes go soonest
 * due first. Expiry is the database's: a test expires a lease by setting its expires_at in the past.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import type pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { migratePg } from './migrate-pg.ts';
import { inTransaction, openPgPool } from './pool.ts';
import {
  assertLeaseHeld,
  groupsWithWork,
  heartbeat,
  leaveCleanly,
  LeaseLostError,
  liveNodes,
  noteWork,
  registerNode,
  releaseGroups,
  renewLeases,
  type StoredGroupClock,
  takeGroups,
} from './pg-leases.ts';
import { recordClock, recordHeldClocks } from './pg-lease-clocks.ts';
import { storedClock } from '../../test-support/lease-fixtures.ts';
import { waitFor } from '../../test-support/wait-for.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const LEASE_MS = 60_000;

/** A fresh database with two nodes, `a` and `b`, each on its own pool (two machines). */
async function twoNodes(): Promise<{ a: pg.Pool; b: pg.Pool; end: () => Promise<void> }> {
  const url = await cluster.createDatabase();
  const a = openPgPool(url, { max: 3 });
  const b = openPgPool(url, { max: 3 });
  await migratePg(a);
  await registerNode(a, 'a', 'starting');
  await registerNode(b, 'b', 'starting');
  return { a, b, end: async () => void (await Promise.all([a.end(), b.end()])) };
}

/** Ends every lease of `group` on the database's clock, as if its owner had stopped renewing a while ago. */
async function expire(db: pg.Pool, group: string): Promise<void> {
  await db.query("UPDATE group_leases SET expires_at = now() - interval '1 second' WHERE group_key = $1", [group]);
}

const clock = (over: Partial<StoredGroupClock> = {}): StoredGroupClock => storedClock(over);

test('two nodes taking at once never get the same group, and together take every group with work', async () => {
  const { a, b, end } = await twoNodes();
  try {
    const groups = Array.from({ length: 60 }, (_, i) => `site-${String(i).padStart(2, '0')}.test`);
    await noteWork(a, groups);
    const got = { a: [] as string[], b: [] as string[] };
    for (let round = 0; round < 20 && got.a.length + got.b.length < groups.length; round++) {
      const [ta, tb] = await Promise.all([takeGroups(a, 'a', 4, LEASE_MS), takeGroups(b, 'b', 4, LEASE_MS)]);
      got.a.push(...ta.map((t) => t.group));
      got.b.push(...tb.map((t) => t.group));
    }
    const both = got.a.filter((g) => got.b.includes(g));
    assert.deepEqual(both, [], 'no group is held by both nodes');
    assert.deepEqual([...got.a, ...got.b].sort(), groups, 'every group was taken exactly once');
    const { rows } = await a.query('SELECT owner, count(*)::int AS n FROM group_leases GROUP BY owner ORDER BY owner');
    assert.deepEqual(rows, [
      { owner: 'a', n: got.a.length },
      { owner: 'b', n: got.b.length },
    ]);
    assert.deepEqual(await takeGroups(b, 'b', 10, LEASE_MS), [], 'nothing is free while every lease runs');
  } finally {
    await end();
  }
});

test('a take never waits for another node’s take in flight: the rows it is taking are skipped, not shared', async () => {
  const { a, b, end } = await twoNodes();
  try {
    const groups = ['p.test', 'q.test', 'r.test', 's.test'];
    await noteWork(a, groups);
    const client = await a.connect();
    try {
      await client.query('BEGIN');
      const byA = (await takeGroups(client, 'a', 2, LEASE_MS)).map((t) => t.group);
      // b takes while a's take is not committed yet: b either answers, or is seen waiting on a lock.
      let settled = false;
      const takeB = takeGroups(b, 'b', 4, LEASE_MS).finally(() => {
        settled = true;
      });
      let waited = false;
      for (let i = 0; i < 10_000 && !settled && !waited; i++) {
        const { rows } = await a.query(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
        );
        waited = rows[0].n > 0;
      }
      await client.query('COMMIT');
      const byB = (await takeB).map((t) => t.group);
      assert.deepEqual(byA, ['p.test', 'q.test']);
      assert.deepEqual(byB, ['r.test', 's.test'], 'b took the rows a was not taking, and none of a’s');
      assert.equal(waited, false, 'b did not wait for a’s rows');
    } finally {
      client.release();
    }
  } finally {
    await end();
  }
});

test('an expired lease is taken by another node with its epoch raised and its clock kept', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['example.org']);
    const [first] = await takeGroups(a, 'a', 10, LEASE_MS);
    assert.equal(first?.epoch, 1);
    assert.equal(first?.previousOwner, null, 'a free group has no previous owner');
    const stored = clock({
      nextStartInMs: 40_000,
      gapMs: 7_000,
      crawlDelayMs: 5_000,
      backoffInMs: 30_000,
      backoffMs: 20_000,
      backoffReason: 'retry-after',
      pace: { responseMs: 412.5, slowdown: 4, strained: 2 },
    });
    const sentAt = performance.now();
    assert.equal(await recordClock(a, 'a', { group: 'example.org', epoch: 1 }, stored, true), true);
    assert.deepEqual(await takeGroups(b, 'b', 10, LEASE_MS), [], 'a running lease is not taken');

    await expire(a, 'example.org');
    const [taken] = await takeGroups(b, 'b', 10, LEASE_MS);
    const elapsed = performance.now() - sentAt;
    assert.ok(taken);
    assert.equal(taken.group, 'example.org');
    assert.equal(taken.epoch, 2, 'the takeover raised the epoch');
    assert.equal(taken.previousOwner, 'a');
    assert.ok(
      taken.previousExpiryInMs !== null && taken.previousExpiryInMs <= -999,
      'the old lease ended a second ago',
    );
    // The stored times come back relative to the take's now(): what was 40 s ahead is 40 s less the time between.
    const { nextStartInMs, backoffInMs, ...rest } = taken.clock;
    assert.ok(nextStartInMs <= 40_000 && nextStartInMs >= 40_000 - elapsed - 1, `next start in ${nextStartInMs} ms`);
    assert.ok(backoffInMs !== null && backoffInMs <= 30_000 && backoffInMs >= 30_000 - elapsed - 1);
    const { nextStartInMs: _n, backoffInMs: _b, ...kept } = stored;
    assert.deepEqual(rest, kept, 'the delay, Crawl-delay, backoff and pacing moved with the group');
  } finally {
    await end();
  }
});

test('a lease lasts its length on the database’s clock, and once it has passed another node takes the group', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['short.test']);
    await takeGroups(a, 'a', 1, 250);
    const length = async () =>
      (
        await a.query(
          "SELECT extract(epoch from (expires_at - taken_at)) * 1000 AS ms FROM group_leases WHERE group_key = 'short.test'",
        )
      ).rows[0]?.ms;
    assert.equal(await length(), 250, 'expires_at = now() + the lease, on the database’s clock');
    // Wait for the database to say the lease expired: poll the take until it answers (bounded, no sleep).
    let taken: Awaited<ReturnType<typeof takeGroups>> = [];
    for (let i = 0; i < 100_000 && taken.length === 0; i++) taken = await takeGroups(b, 'b', 1, LEASE_MS);
    assert.deepEqual(
      taken.map((t) => [t.group, t.epoch, t.previousOwner]),
      [['short.test', 2, 'a']],
    );
    assert.ok((taken[0]?.previousExpiryInMs ?? 1) <= 0, 'taken only once the old lease had ended');
  } finally {
    await end();
  }
});

test("a renewal by the old owner after a takeover answers 'not held'; the new owner's renewal holds", async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['one.test', 'two.test']);
    const mine = (await takeGroups(a, 'a', 10, LEASE_MS)).map((t) => ({ group: t.group, epoch: t.epoch }));
    assert.deepEqual([...(await renewLeases(a, 'a', mine, LEASE_MS))].sort(), ['one.test', 'two.test']);

    await expire(a, 'one.test');
    const [taken] = await takeGroups(b, 'b', 10, LEASE_MS);
    assert.equal(taken?.group, 'one.test');
    assert.deepEqual([...(await renewLeases(a, 'a', mine, LEASE_MS))], ['two.test'], 'one.test is no longer a’s');
    assert.deepEqual([...(await renewLeases(b, 'b', [{ group: 'one.test', epoch: 2 }], LEASE_MS))], ['one.test']);

    await expire(a, 'two.test');
    assert.deepEqual(
      [...(await renewLeases(a, 'a', [{ group: 'two.test', epoch: 1 }], LEASE_MS))],
      [],
      'a lease past its expiry is not renewed, even with nobody else holding it',
    );
  } finally {
    await end();
  }
});

/** Writes a result for `group` under the fence, as a result-writing transaction would. */
function fencedWrite(db: pg.Pool, node: string, group: string, epoch: number): Promise<void> {
  return inTransaction(db, async (client) => {
    await assertLeaseHeld(client, node, group, epoch);
    await client.query(
      `INSERT INTO hosts (origin, host, updated_at, last_error) VALUES ($1, $2, 0, $3)
       ON CONFLICT (origin) DO UPDATE SET last_error = excluded.last_error`,
      [`https://${group}`, group, `by ${node}`],
    );
  });
}

test('a write fenced by the old epoch is refused with LeaseLostError; the new owner’s is accepted', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['fenced.test']);
    await takeGroups(a, 'a', 1, LEASE_MS);
    await fencedWrite(a, 'a', 'fenced.test', 1);
    await expire(a, 'fenced.test');
    await takeGroups(b, 'b', 1, LEASE_MS);

    await assert.rejects(fencedWrite(a, 'a', 'fenced.test', 1), (err: unknown) => {
      assert.ok(err instanceof LeaseLostError);
      assert.deepEqual([err.node, err.group, err.epoch, err.retryable], ['a', 'fenced.test', 1, false]);
      assert.match(err.message, /^pg-leases: node a lost group fenced\.test .*held by b at epoch 2/);
      return true;
    });
    const lastError = async () =>
      (await a.query("SELECT last_error FROM hosts WHERE origin = 'https://fenced.test'")).rows[0]?.last_error;
    assert.equal(await lastError(), 'by a', 'the refused write left nothing');
    await fencedWrite(b, 'b', 'fenced.test', 2);
    assert.equal(await lastError(), 'by b');
  } finally {
    await end();
  }
});

test('while a fenced write is open its lease cannot be taken, even expired; after it commits it can', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['busy.test']);
    await takeGroups(a, 'a', 1, LEASE_MS);
    await expire(a, 'busy.test');
    const client = await a.connect();
    try {
      await client.query('BEGIN');
      await assertLeaseHeld(client, 'a', 'busy.test', 1);
      assert.deepEqual(await takeGroups(b, 'b', 1, LEASE_MS), [], 'the fence holds the row until the write ends');
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    assert.deepEqual(
      (await takeGroups(b, 'b', 1, LEASE_MS)).map((t) => [t.group, t.epoch]),
      [['busy.test', 2]],
    );
  } finally {
    await end();
  }
});

test('leaveCleanly frees every group of the node at once, each due a full gap later, and the node is no longer live', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['x.test', 'y.test', 'z.test']);
    const mine = await takeGroups(a, 'a', 10, LEASE_MS);
    assert.equal(mine.length, 3);
    await recordClock(a, 'a', { group: 'x.test', epoch: 1 }, clock({ gapMs: 9_000 }), true);
    assert.deepEqual(
      (await liveNodes(b, 60_000)).map((n) => [n.node, n.groups]),
      [
        ['a', 3],
        ['b', 0],
      ],
    );

    // Timed from before the leave: its statement reads the database's clock after this, so the gap it starts
    // has passed by at most `elapsed` when the take reads it.
    const leftAt = performance.now();
    assert.equal(await leaveCleanly(a, 'a'), 3);
    const taken = await takeGroups(b, 'b', 10, LEASE_MS);
    const elapsed = performance.now() - leftAt;
    assert.deepEqual(taken.map((t) => [t.group, t.epoch, t.previousOwner]).sort(), [
      ['x.test', 2, null],
      ['y.test', 2, null],
      ['z.test', 2, null],
    ]);
    const x = taken.find((t) => t.group === 'x.test');
    assert.ok(x && x.clock.nextStartInMs > 9_000 - elapsed - 1, 'a freed group waits its gap from the leave');
    assert.deepEqual(
      (await liveNodes(b, 60_000)).map((n) => n.node),
      ['b'],
    );
    assert.equal(await heartbeat(a, 'a', 'crawling'), false, 'a node that left must register again');
  } finally {
    await end();
  }
});

test('takes go soonest due first, over free and expired groups alike, and only groups with work', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['late.test', 'soon.test', 'idle.test', 'soonest.test', 'held.test']);
    const all = await takeGroups(a, 'a', 10, LEASE_MS);
    const back = (group: string, nextStartInMs: number, hasWork = true) => ({
      group,
      epoch: all.find((t) => t.group === group)?.epoch ?? 0,
      clock: clock({ nextStartInMs }),
      hasWork,
    });
    const released = await releaseGroups(a, 'a', [
      back('late.test', 50_000),
      back('soon.test', 10_000),
      back('idle.test', -5_000, false),
    ]);
    assert.deepEqual([...released].sort(), ['idle.test', 'late.test', 'soon.test']);
    await recordClock(a, 'a', { group: 'soonest.test', epoch: 1 }, clock({ nextStartInMs: 1_000 }), true);
    await recordClock(a, 'a', { group: 'held.test', epoch: 1 }, clock({ nextStartInMs: -9_000 }), true);
    await expire(a, 'soonest.test');
    assert.equal(await groupsWithWork(b), 4);

    const firstTwo = await takeGroups(b, 'b', 2, LEASE_MS);
    assert.deepEqual(
      firstTwo.map((t) => t.group),
      ['soonest.test', 'soon.test'],
      'the expired group due in 1 s, then the free one due in 10 s; not the held one, not the idle one',
    );
    assert.deepEqual(
      (await takeGroups(b, 'b', 10, LEASE_MS)).map((t) => t.group),
      ['late.test'],
    );
  } finally {
    await end();
  }
});

test('a clock is recorded and released only under the current owner and epoch', async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['kept.test']);
    await takeGroups(a, 'a', 1, LEASE_MS);
    await expire(a, 'kept.test');
    await takeGroups(b, 'b', 1, LEASE_MS);
    const stale = clock({ nextStartInMs: -60_000, gapMs: 0 });
    assert.equal(await recordClock(a, 'a', { group: 'kept.test', epoch: 1 }, stale, false), false);
    assert.deepEqual(
      [...(await releaseGroups(a, 'a', [{ group: 'kept.test', epoch: 1, clock: stale, hasWork: false }]))],
      [],
    );
    assert.equal(await recordClock(b, 'b', { group: 'kept.test', epoch: 2 }, clock({ gapMs: 3_000 }), true), true);
    const { rows } = await a.query("SELECT owner, gap_ms, has_work FROM group_leases WHERE group_key = 'kept.test'");
    assert.deepEqual(rows, [{ owner: 'b', gap_ms: 3_000, has_work: true }]);
  } finally {
    await end();
  }
});

test("a held group's backoff is written mid-lease, has_work kept; a group lost or expired is left alone; a taker reads it", async () => {
  const { a, b, end } = await twoNodes();
  try {
    await noteWork(a, ['held.test', 'lost.test']);
    await takeGroups(a, 'a', 2, LEASE_MS);
    await expire(a, 'lost.test');
    const backoff = clock({ backoffInMs: 20_000, backoffReason: 'retry-after', nextStartInMs: 20_000 });
    const written = await recordHeldClocks(a, 'a', [
      { group: 'held.test', epoch: 1, clock: backoff },
      { group: 'lost.test', epoch: 1, clock: backoff },
      { group: 'held.test', epoch: 7, clock: backoff }, // an epoch it never held: no row matches
    ]);
    assert.deepEqual([...written], ['held.test']);
    const { rows } = await a.query<{ group_key: string; left_s: number; has_work: boolean; backoff_reason: string }>(
      `SELECT group_key, round(extract(epoch from (backoff_until - now())))::int AS left_s, has_work, backoff_reason
         FROM group_leases ORDER BY group_key`,
    );
    assert.deepEqual(rows, [
      { group_key: 'held.test', left_s: 20, has_work: true, backoff_reason: 'retry-after' },
      { group_key: 'lost.test', left_s: null, has_work: true, backoff_reason: null },
    ]);
    // The holder dies (its lease expires): the taker reads the backoff with the group.
    await expire(a, 'held.test');
    const taken = await takeGroups(b, 'b', 2, LEASE_MS);
    const held = taken.find((g) => g.group === 'held.test');
    assert.ok(held !== undefined && held.clock.backoffInMs !== null && held.clock.backoffInMs > 18_000);
    assert.equal(held.clock.backoffReason, 'retry-after');
  } finally {
    await end();
  }
});

test("a release waiting on another node's open batch keeps the work that batch queued and noted", async () => {
  const { a, b, end } = await twoNodes();
  const batch = await b.connect();
  try {
    await noteWork(a, ['race.test']);
    const [taken] = await takeGroups(a, 'a', 1, LEASE_MS);
    assert.ok(taken !== undefined);
    // Node b's batch queues a URL of the group (a host a found nothing queued on) and notes it, not yet committed.
    await b.query(
      "INSERT INTO seeds (url, origin, depth, scope, created_at, updated_at) VALUES ('http://race.test/', 'http://race.test', 1, 'host', 0, 0)",
    );
    await batch.query('BEGIN');
    await batch.query(
      "INSERT INTO frontier (url, origin, seed_id, depth, discovered_at) SELECT 'http://race.test/new', 'http://race.test', id, 1, 0 FROM seeds",
    );
    await noteWork(batch, ['race.test']);
    // a releases the group believing it has no work; the release waits on b's row lock.
    const release = releaseGroups(a, 'a', [
      { group: 'race.test', epoch: taken.epoch, clock: clock(), hasWork: false, origins: ['http://race.test'] },
    ]);
    await waitFor(
      async () =>
        (
          await b.query(
            "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%group_leases%' AND pid <> pg_backend_pid()",
          )
        ).rowCount === 1,
      { message: 'the release to wait on the open batch' },
    );
    await batch.query('COMMIT');
    assert.deepEqual([...(await release)], ['race.test']);
    const { rows } = await a.query("SELECT owner, has_work FROM group_leases WHERE group_key = 'race.test'");
    assert.deepEqual(rows, [{ owner: null, has_work: true }], 'free, and still wanted: another node will take it');
  } finally {
    batch.release();
    await end();
  }
});

test('liveNodes answers the nodes whose heartbeat is recent, with what they do', async () => {
  const { a, b, end } = await twoNodes();
  try {
    assert.equal(await heartbeat(a, 'a', 'crawling 3 groups'), true);
    await b.query("UPDATE crawl_nodes SET heartbeat_at = now() - interval '2 minutes' WHERE node_id = 'b'");
    const live = await liveNodes(a, 60_000);
    assert.deepEqual(
      live.map((n) => [n.node, n.doing]),
      [['a', 'crawling 3 groups']],
    );
    assert.ok((live[0]?.heartbeatAgoMs ?? Infinity) < 60_000);
    assert.ok(
      (await liveNodes(a, 10 * 60_000)).some((n) => n.node === 'b'),
      'a longer window sees b again',
    );
  } finally {
    await end();
  }
});
