/**
 * The cluster as a person sees it (issue 29), read from the rows db/pg/pg-leases.ts writes, on a throwaway
 * PostgreSQL cluster (a database per test): nodes alive, silent or left by the database's clock, with what each
 * does and how many groups it holds; each group's owner, how long it has held it and when its lease ends. Time
 * passing on the database's clock is written into the rows (a heartbeat or a take set in the past).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { migratePg } from './migrate-pg.ts';
import { openPgPool } from './pool.ts';
import { heartbeat, leaveCleanly, noteWork, registerNode, takeGroups } from './pg-leases.ts';
import { clusterNodes, groupLeases, heldLeases, pgClusterView } from './pg-cluster-view.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const LEASE_MS = 60_000;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WINDOW = { aliveWithinMs: LEASE_MS, recentMs: 24 * HOUR, limit: 50 };

/** A fresh migrated database on its own pool. */
async function database(): Promise<pg.Pool> {
  const db = openPgPool(await cluster.createDatabase(), { max: 2 });
  await migratePg(db);
  return db;
}

/** Moves a node's times back on the database's clock, as if that much time had passed since. */
async function age(db: pg.Pool, node: string, ago: { startedMs?: number; heartbeatMs?: number }): Promise<void> {
  await db.query(
    `UPDATE crawl_nodes SET started_at = now() - $2 * interval '1 millisecond',
       heartbeat_at = now() - $3 * interval '1 millisecond' WHERE node_id = $1`,
    [node, ago.startedMs ?? 0, ago.heartbeatMs ?? 0],
  );
}

/** `node` takes exactly `groups` (noted as having work first). */
async function take(db: pg.Pool, node: string, groups: string[]): Promise<void> {
  await noteWork(db, groups);
  const taken = await takeGroups(db, node, groups.length, LEASE_MS);
  assert.deepEqual(taken.map((t) => t.group).sort(), [...groups].sort(), `${node} takes ${groups.join(', ')}`);
}

test('nodes alive, silent and left by the database clock, with what each does and the groups it holds', async () => {
  const db = await database();
  try {
    await registerNode(db, 'node-b', 'starting');
    await registerNode(db, 'node-a', 'starting');
    await take(db, 'node-a', ['a1.test', 'a2.test']);
    await take(db, 'node-b', ['b1.test']);
    assert.equal(await heartbeat(db, 'node-a', 'crawling 2 groups'), true);
    await registerNode(db, 'node-silent', 'crawling');
    await take(db, 'node-silent', ['s1.test']);
    await age(db, 'node-silent', { startedMs: 2 * HOUR, heartbeatMs: 5 * MINUTE });
    await registerNode(db, 'node-left', 'crawling');
    await take(db, 'node-left', ['l1.test']);
    assert.equal(await leaveCleanly(db, 'node-left'), 1);
    await db.query("UPDATE group_leases SET expires_at = now() - interval '1 second' WHERE owner = 'node-silent'");
    await registerNode(db, 'node-gone', 'crawling');
    await age(db, 'node-gone', { startedMs: 72 * HOUR, heartbeatMs: 48 * HOUR });

    const seen = await clusterNodes(db, WINDOW);
    assert.deepEqual(seen.counts, { alive: 2, silent: 1, left: 1 }, 'a node silent for two days is forgotten');
    assert.deepEqual(
      seen.nodes.map((n) => [n.node, n.state, n.doing, n.groups, n.leftAgoMs === null]),
      [
        ['node-a', 'alive', 'crawling 2 groups', 2, true],
        ['node-b', 'alive', 'starting', 1, true],
        ['node-silent', 'silent', 'crawling', 0, true], // its lease expired: it holds nothing any more
        ['node-left', 'left', 'left', 0, false],
      ],
    );
    const silent = seen.nodes[2]!;
    assert.ok(silent.heartbeatAgoMs >= 5 * MINUTE && silent.heartbeatAgoMs < 2 * HOUR, `${silent.heartbeatAgoMs}`);
    assert.ok(silent.startedAgoMs >= 2 * HOUR, `${silent.startedAgoMs}`);
    const alive = seen.nodes[0]!;
    assert.ok(alive.heartbeatAgoMs < 5 * MINUTE && alive.heartbeatAgoMs >= 0, `${alive.heartbeatAgoMs}`);

    // The same node is silent or alive by the window alone, and a heartbeat brings it back.
    const wide = await clusterNodes(db, { ...WINDOW, aliveWithinMs: 10 * MINUTE });
    assert.deepEqual(wide.counts, { alive: 3, silent: 0, left: 1 });
    assert.equal(await heartbeat(db, 'node-silent', 'crawling again'), true);
    const back = await clusterNodes(db, WINDOW);
    assert.deepEqual(back.counts, { alive: 3, silent: 0, left: 1 });
    assert.deepEqual(
      back.nodes.map((n) => n.node),
      ['node-a', 'node-b', 'node-silent', 'node-left'],
    );
  } finally {
    await db.end();
  }
});

test('a list cut to its limit still counts every node; none at all is zero of each', async () => {
  const db = await database();
  try {
    assert.deepEqual(await clusterNodes(db, WINDOW), { counts: { alive: 0, silent: 0, left: 0 }, nodes: [] });
    for (const node of ['n3', 'n1', 'n2']) await registerNode(db, node, 'crawling');
    await registerNode(db, 'quiet', 'crawling');
    await age(db, 'quiet', { heartbeatMs: 10 * MINUTE });
    const two = await clusterNodes(db, { ...WINDOW, limit: 2 });
    assert.deepEqual(two.counts, { alive: 3, silent: 1, left: 0 });
    assert.deepEqual(
      two.nodes.map((n) => n.node),
      ['n1', 'n2'],
    );
    const none = await clusterNodes(db, { ...WINDOW, limit: 0 });
    assert.deepEqual(none, { counts: { alive: 3, silent: 1, left: 0 }, nodes: [] });
  } finally {
    await db.end();
  }
});

test("each group's owner, how long it has held it and when its lease ends; a free group has none", async () => {
  const db = await database();
  try {
    await registerNode(db, 'node-a', 'crawling');
    await registerNode(db, 'node-b', 'crawling');
    await take(db, 'node-a', ['python.org', 'example.org']);
    await take(db, 'node-b', ['127.0.0.2']);
    await noteWork(db, ['free.test']);
    await db.query("UPDATE group_leases SET taken_at = now() - interval '10 minutes' WHERE group_key = 'example.org'");
    await db.query("UPDATE group_leases SET expires_at = now() - interval '3 seconds' WHERE group_key = '127.0.0.2'");

    const view = pgClusterView(db);
    const leases = await view.leases(['python.org', 'example.org', '127.0.0.2', 'free.test', 'unknown.test']);
    assert.deepEqual(
      leases.map((l) => [l.group, l.node]),
      [
        ['127.0.0.2', 'node-b'],
        ['example.org', 'node-a'],
        ['python.org', 'node-a'],
      ],
    );
    const of = (group: string) => leases.find((l) => l.group === group)!;
    assert.ok(of('python.org').expiresInMs > 0 && of('python.org').expiresInMs <= LEASE_MS, 'held, ends in the lease');
    assert.ok((of('python.org').heldForMs ?? -1) >= 0 && (of('python.org').heldForMs ?? HOUR) < 10 * MINUTE);
    assert.ok((of('example.org').heldForMs ?? 0) >= 10 * MINUTE, 'held for ten minutes on the database clock');
    assert.ok(of('127.0.0.2').expiresInMs <= -3000, 'an expired lease nobody took yet says so');

    assert.deepEqual(await groupLeases(db, []), [], 'no group asked, no statement');
    assert.deepEqual(
      (await heldLeases(db, 10)).map((l) => l.group),
      ['127.0.0.2', 'example.org', 'python.org'],
    );
    assert.equal((await heldLeases(db, 1)).length, 1);

    assert.equal(await leaveCleanly(db, 'node-a'), 2);
    assert.deepEqual(
      (await view.leases(['python.org', 'example.org', '127.0.0.2'])).map((l) => l.group),
      ['127.0.0.2'],
      "a node that left holds nothing; another's expired lease stays until taken",
    );
    const nodes = await view.nodes(WINDOW);
    assert.deepEqual(
      nodes.nodes.map((n) => [n.node, n.groups]),
      [
        ['node-b', 0],
        ['node-a', 0],
      ],
      'an expired lease is not counted as held',
    );
  } finally {
    await db.end();
  }
});
