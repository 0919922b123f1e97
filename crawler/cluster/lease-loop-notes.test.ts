/**
 * A node notes every group it holds before each plan (node-leases.ts beforePlan): at 10,000 groups a copy of the
 * keeper's leases per note cost 41 s of the primary's CPU a round, its event loop blocked meanwhile (measured by
 * `npm run bench:cluster -- --only leases`, docs/benchmarks.md). The loop now gives the keeper its notes in one step.
 * Asserted on one loop holding 2,000 groups on a throwaway PostgreSQL: the notes of every group copy the leases
 * about once (counted, not timed), and they still decide the next plan (the groups noted without work are released).
 * And a round that changes no lease tells the scheduler nothing: applying every window again walked every group
 * each second.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { noteWork } from '../../db/pg/pg-leases.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { loopSettings, MANY_GROUPS } from '../../test-support/lease-fixtures.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { LeaseLoop } from './lease-loop.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const GROUPS = MANY_GROUPS;

/** Runs `work` with every `new Map(aMap)` counted: answers how many entries were copied. */
function entriesCopied(work: () => void): number {
  const RealMap = globalThis.Map;
  let copied = 0;
  class CountingMap<K, V> extends RealMap<K, V> {
    constructor(entries?: Iterable<readonly [K, V]> | null) {
      super(entries);
      if (entries instanceof RealMap) copied += entries.size;
    }
  }
  globalThis.Map = CountingMap as MapConstructor;
  try {
    work();
  } finally {
    globalThis.Map = RealMap;
  }
  return copied;
}

/** A loop `a` (not started) on a fresh database, able to take all of GROUPS at once (leases of 60 s). */
async function loopHoldingAll() {
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 2 });
  const faults: Error[] = [];
  const loop = new LeaseLoop({
    db: pool,
    node: 'a',
    settings: loopSettings(GROUPS.length),
    onFault: (e) => faults.push(e),
  });
  return { pool, faults, loop };
}

test("a round's notes of every held group copy the leases once, and still decide the plan", async () => {
  const { pool, faults, loop } = await loopHoldingAll();
  try {
    await migratePg(pool);
    await noteWork(pool, GROUPS);
    await loop.start();
    await waitFor(() => loop.held().length === GROUPS.length, {
      timeoutMs: 60_000,
      message: () => `lease-loop-notes: the loop to hold all ${GROUPS.length} groups (holds ${loop.held().length})`,
    });
    // As beforePlan notes them: half still have work, half have none (and nothing in flight).
    const idle = new Set(GROUPS.slice(0, GROUPS.length / 2));
    const copied = entriesCopied(() => {
      for (const g of GROUPS) loop.note(g, { inFlight: false, hasWork: !idle.has(g) });
      loop.dispatchable();
    });
    assert.ok(
      copied <= 2 * GROUPS.length,
      `noting ${GROUPS.length} groups copied ${copied} lease entries; one copy is ${GROUPS.length}`,
    );
    loop.wake();
    // Released once the database says so (the loop stops counting a group as held as soon as its release is sent).
    const freed = async () =>
      (
        await pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM group_leases WHERE owner IS NULL AND group_key = ANY ($1)',
          [[...idle]],
        )
      ).rows[0].n;
    await waitFor(async () => (await freed()) === idle.size, {
      timeoutMs: 60_000,
      message: 'lease-loop-notes: the groups noted without work to be free in the database',
    });
    assert.deepEqual(
      loop.held().map((h) => h.group),
      GROUPS.filter((g) => !idle.has(g)),
      'the node holds the groups noted with work, and only those',
    );
    assert.deepEqual(faults, []);
  } finally {
    await loop.stop();
    await pool.end();
  }
});

test('a round that changes no lease tells the scheduler nothing', async () => {
  const { pool, faults, loop } = await loopHoldingAll();
  let told = 0;
  loop.onLeases(() => {
    told++;
  });
  const heartbeat = async () =>
    (await pool.query<{ at: string }>(`SELECT heartbeat_at::text AS at FROM crawl_nodes WHERE node_id = 'a'`)).rows[0]
      ?.at;
  /** Resolves once a round has started after this call (the heartbeat, its first statement, moved). */
  const nextRound = async () => {
    const before = await heartbeat();
    await waitFor(async () => (await heartbeat()) !== before, {
      timeoutMs: 60_000,
      message: 'lease-loop-notes: the next round to heartbeat',
    });
  };
  try {
    await migratePg(pool);
    await noteWork(pool, GROUPS);
    await loop.start();
    await waitFor(() => loop.held().length === GROUPS.length, {
      timeoutMs: 60_000,
      message: () => `lease-loop-notes: the loop to hold all ${GROUPS.length} groups (holds ${loop.held().length})`,
    });
    assert.ok(told > 0, 'the takes were told');
    await nextRound(); // the round running when the last take was applied is over once another starts
    told = 0;
    await nextRound();
    await nextRound(); // a whole round ran in between, with nothing to renew, release or take
    assert.equal(told, 0, 'no window told in rounds that changed no lease');
    assert.equal(loop.held().length, GROUPS.length);
    assert.deepEqual(faults, []);
  } finally {
    await loop.stop();
    await pool.end();
  }
});
