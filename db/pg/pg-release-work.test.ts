/**
 * A release's has_work in 'domain' mode (issue 29, docs/scaling.md "A release keeps others' work"), on a throwaway
 * PostgreSQL cluster: a host of the group that another node found and queued while this node held the group (this
 * node never read it, so it cannot name it) keeps the group wanted; a host that only looks like one of the group
 * (a name under a public suffix the crawler groups apart) does not; a URL left leased by a dead owner counts as work.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { storedClock } from '../../test-support/lease-fixtures.ts';
import { migratePg } from './migrate-pg.ts';
import { openPgPool } from './pool.ts';
import { type GroupWorkLookup, noteWork, registerNode, releaseGroups, takeGroups } from './pg-leases.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const LEASE_MS = 60_000;

/** Groups as the crawler's 'domain' mode would for these tests: the last two labels, but `*.pages.test` apart. */
const DOMAIN: GroupWorkLookup = {
  mode: 'domain',
  groupOf: (origin) => {
    const host = new URL(origin).hostname;
    const labels = host.split('.');
    return host.endsWith('.pages.test') ? labels.slice(-3).join('.') : labels.slice(-2).join('.');
  },
};

/** A fresh database with node `a` registered, and a URL queued (or in `state`) on `origin` under a seed of its own. */
async function database(): Promise<{ db: pg.Pool; queue: (origin: string, state?: string) => Promise<void> }> {
  const db = openPgPool(await cluster.createDatabase(), { max: 2 });
  await migratePg(db);
  await registerNode(db, 'a', 'crawling');
  const queue = async (origin: string, state = 'queued') => {
    const seed = await db.query<{ id: number }>(
      "INSERT INTO seeds (url, origin, depth, scope, created_at, updated_at) VALUES ($1, $2, 1, 'any', 0, 0) RETURNING id",
      [`${origin}/`, origin],
    );
    await db.query(
      'INSERT INTO frontier (url, origin, seed_id, depth, discovered_at, state) VALUES ($1, $2, $3, 1, 0, $4)',
      [`${origin}/new`, origin, seed.rows[0]!.id, state],
    );
  };
  return { db, queue };
}

/** Takes `group` as node a and releases it believing it has no work, naming only `known` as its hosts. */
async function takeAndRelease(db: pg.Pool, group: string, known: string[], work?: GroupWorkLookup) {
  await noteWork(db, [group]);
  const taken = (await takeGroups(db, 'a', 10, LEASE_MS)).find((t) => t.group === group);
  assert.ok(taken !== undefined, `a takes ${group}`);
  const released = await releaseGroups(
    db,
    'a',
    [{ group, epoch: taken.epoch, clock: storedClock(), hasWork: false, origins: known }],
    work,
  );
  assert.deepEqual([...released], [group]);
  const { rows } = await db.query<{ has_work: boolean }>('SELECT has_work FROM group_leases WHERE group_key = $1', [
    group,
  ]);
  return rows[0]!.has_work;
}

test('a release keeps has_work for a host of the group another node queued, which the releasing node never knew', async () => {
  const { db, queue } = await database();
  try {
    await queue('http://z.strand.test:8080'); // queued by another node while a held strand.test
    assert.equal(
      await takeAndRelease(db, 'strand.test', ['http://a.strand.test:8080'], DOMAIN),
      true,
      'the group stays wanted: a node will take it and crawl z',
    );
    assert.equal(
      await takeAndRelease(db, 'strand.test', ['http://a.strand.test:8080']),
      false,
      'without the lookup (as before): only the hosts the node named count, and z is stranded',
    );
  } finally {
    await db.end();
  }
});

test('a release counts a URL left leased by a dead owner as work, and a look-alike host of another group not at all', async () => {
  const { db, queue } = await database();
  try {
    await queue('http://x.left.test', 'leased');
    assert.equal(await takeAndRelease(db, 'left.test', [], DOMAIN), true, 'a leased URL is work to take over');
    await queue('http://alice.pages.test'); // alice.pages.test is a group of its own, not pages.test
    assert.equal(await takeAndRelease(db, 'pages.test', [], DOMAIN), false, 'another group’s host is not work');
    await queue('http://www.plain.test');
    assert.equal(
      await takeAndRelease(db, 'http://www.plain.test', [], { mode: 'host', groupOf: (origin) => origin }),
      true,
      "'host' mode: the group is its origin",
    );
  } finally {
    await db.end();
  }
});
