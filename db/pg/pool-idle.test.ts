/**
 * A crawler node stopped (SIGSTOP, a long pause, a machine frozen) inside a transaction must not hold up the
 * other nodes: its fenced write keeps its group's lease row locked FOR SHARE until the transaction ends, and
 * another node's note of new work for that group, or its take of the expired lease, would wait on that lock
 * for as long as the pause lasts. PostgreSQL ends a session idle in a transaction past the pool's
 * `idleInTransactionMs`, which frees the locks; the paused node's transaction is then lost whole, never
 * committed. Found by the nodes' chaos test: a node starting while another was paused mid-write waited 120 s.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { migratePg } from './migrate-pg.ts';
import { inTransaction, openPgPool, PG_IDLE_IN_TRANSACTION_MS } from './pool.ts';
import { assertLeaseHeld, noteWork, registerNode, takeGroups } from './pg-leases.ts';
import { waitFor } from '../../test-support/wait-for.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** The pause the test's idle node takes; the other node's statements must end well within it. */
const PAUSE_BOUND_MS = 60_000;

/** Answers `work`'s result, or throws if it has not ended within `ms` (a statement blocked on a lock). */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still waiting after ${ms} ms: blocked by the idle node`)), ms);
  });
  try {
    return await Promise.race([work, limit]);
  } finally {
    clearTimeout(timer);
  }
}

test('every pool ends a session idle in a transaction, by default after 10 s', () => {
  assert.equal(PG_IDLE_IN_TRANSACTION_MS, 10_000);
});

test('a node idle inside a fenced write holds up no other node: its session ends, its locks go, nothing of it commits', async () => {
  const url = await cluster.createDatabase();
  const paused = openPgPool(url, { max: 2, idleInTransactionMs: 500, warn: () => undefined });
  const other = openPgPool(url, { max: 2 });
  try {
    await migratePg(other);
    await registerNode(paused, 'paused', 'crawling');
    await registerNode(other, 'other', 'crawling');
    await noteWork(other, ['site.test']);
    const [lease] = await takeGroups(paused, 'paused', 10, 60_000);
    assert.equal(lease?.group, 'site.test');

    // The paused node opens its fenced write, writes one row, and then stops before its commit.
    const client = await paused.connect();
    client.on('error', () => undefined); // the server ending the session: what this test waits for
    try {
      await client.query('BEGIN');
      await assertLeaseHeld(client, 'paused', 'site.test', lease!.epoch);
      await client.query("UPDATE crawl_nodes SET doing = 'written by the paused node' WHERE node_id = 'paused'");

      // Another node queues more work for the group, and then takes it once the lease has expired.
      await within(PAUSE_BOUND_MS, 'the other node noting work', noteWork(other, ['site.test']));
      await other.query(
        "UPDATE group_leases SET expires_at = now() - interval '1 second' WHERE group_key = 'site.test'",
      );
      const taken = await within(
        PAUSE_BOUND_MS,
        'the other node taking the group',
        takeGroups(other, 'other', 10, 60_000),
      );
      assert.deepEqual(
        taken.map((t) => [t.group, t.epoch]),
        [['site.test', lease!.epoch + 1]],
        'the other node took the group at a new epoch',
      );

      // Resumed, the paused node finds its transaction gone: its commit fails and its write was never stored.
      await assert.rejects(client.query('COMMIT'));
    } finally {
      client.release(true); // closed, not pooled again: a failing run's lock goes with it
    }
    const doing = await other.query<{ doing: string }>("SELECT doing FROM crawl_nodes WHERE node_id = 'paused'");
    assert.equal(doing.rows[0]?.doing, 'crawling');
  } finally {
    await Promise.all([paused.end(), other.end()]);
  }
});

test('a transaction whose session the server ended fails with its error, the process lives on, and the pool serves the next', async () => {
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 1, idleInTransactionMs: 300, warn: () => undefined });
  const watcher = openPgPool(url, { max: 1 });
  try {
    await assert.rejects(
      inTransaction(pool, async (client) => {
        const pid = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
        // Idle in the transaction until the server has ended the session (pg then reports it on the client).
        await waitFor(
          async () => (await watcher.query('SELECT 1 FROM pg_stat_activity WHERE pid = $1', [pid])).rowCount === 0,
          { timeoutMs: PAUSE_BOUND_MS, message: () => `the server to end session ${pid}` },
        );
        await client.query('SELECT 1');
      }),
    );
    const again = await inTransaction(
      pool,
      async (client) => (await client.query<{ n: number }>('SELECT 2 AS n')).rows,
    );
    assert.deepEqual(again, [{ n: 2 }]);
  } finally {
    await Promise.all([pool.end(), watcher.end()]);
  }
});
