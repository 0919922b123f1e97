/**
 * A renewal and a batch's fence each lock many lease rows in one statement; locked in different orders the two
 * deadlock (PostgreSQL 40P01: seen by `npm run bench:cluster -- --only leases` at every renewal of 10,000 groups while
 * batches ran, each time the crawl paused for a retry). Both lock in group order. Asserted on a throwaway cluster:
 * given the groups in the other order and blocked by another transaction on the later group, each statement already
 * holds the earlier one (a NOWAIT lock of it is refused).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { migratePg } from './migrate-pg.ts';
import { pgCrawlStore } from './pg-crawl-store.ts';
import { noteWork, registerNode, renewLeases, takeGroups } from './pg-leases.ts';
import { openPgPool } from './pool.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** A fresh database where node `n` holds a.test and b.test; answers its pool and their leases, b.test first. */
async function holdingTwo(): Promise<{ pool: pg.Pool; leases: Array<{ group: string; epoch: number }> }> {
  const pool = openPgPool(await cluster.createDatabase(), { max: 4 });
  await migratePg(pool);
  await registerNode(pool, 'n', 'crawling');
  // b.test's row first in the table and in the arguments: any order but the groups' own would lock it first.
  await noteWork(pool, ['b.test']);
  await noteWork(pool, ['a.test']);
  const taken = await takeGroups(pool, 'n', 2, 60_000);
  assert.equal(taken.length, 2);
  const leases = taken
    .map((t) => ({ group: t.group, epoch: Number(t.epoch) }))
    .sort((x, y) => (x.group < y.group ? 1 : -1));
  return { pool, leases };
}

/**
 * Runs `statement` while another transaction holds b.test FOR UPDATE; once it waits for that lock, answers whether
 * a.test could be locked FOR UPDATE NOWAIT (false: the statement holds it), then lets it finish.
 */
async function earlierGroupFreeWhileBlocked(pool: pg.Pool, statement: () => Promise<unknown>): Promise<boolean> {
  const blocker = await pool.connect();
  const probe = await pool.connect();
  try {
    await blocker.query('BEGIN');
    await blocker.query(`SELECT 1 FROM group_leases WHERE group_key = 'b.test' FOR UPDATE`);
    const running = statement();
    await waitFor(
      async () =>
        (
          await probe.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        ).rows[0].n === 1,
      { timeoutMs: 30_000, message: 'lease-lock-order: the statement to wait for the lock on b.test' },
    );
    let free = true;
    await probe.query('BEGIN');
    try {
      await probe.query(`SELECT 1 FROM group_leases WHERE group_key = 'a.test' FOR UPDATE NOWAIT`);
    } catch (err) {
      if ((err as { code?: string }).code !== '55P03') throw err; // lock_not_available: the statement holds it
      free = false;
    } finally {
      await probe.query('ROLLBACK');
    }
    await blocker.query('ROLLBACK');
    await running;
    return free;
  } finally {
    blocker.release();
    probe.release();
  }
}

test('a renewal locks its rows in group order', async () => {
  const { pool, leases } = await holdingTwo();
  try {
    let renewed: Set<string> | undefined;
    const free = await earlierGroupFreeWhileBlocked(pool, async () => {
      renewed = await renewLeases(pool, 'n', leases, 60_000);
    });
    assert.equal(free, false, 'a.test is locked by the renewal while it waits for b.test');
    assert.deepEqual([...(renewed ?? [])].sort(), ['a.test', 'b.test']);
  } finally {
    await pool.end();
  }
});

test("a batch's fence locks its rows in group order", async () => {
  const { pool, leases } = await holdingTwo();
  try {
    const store = pgCrawlStore(pool);
    let held: Set<string> | undefined;
    // The fence waits on b.test's FOR UPDATE only while that transaction is open; its own transaction then commits.
    const free = await earlierGroupFreeWhileBlocked(pool, async () => {
      await store.transaction(async (tx) => {
        held = await tx.leases?.stillHeld('n', leases);
      });
    });
    assert.equal(free, false, 'a.test is locked by the fence while it waits for b.test');
    assert.equal(held?.size, 2);
  } finally {
    await pool.end();
  }
});
