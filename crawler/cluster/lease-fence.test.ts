/**
 * A crawler node's results are written only under the lease they were fetched under (issue 29), on a throwaway
 * PostgreSQL: a Coordinator holding two groups sends a page request of each; another node then takes one group
 * (its epoch raised). The batch with both results commits the other group's page and drops the lost group's writes
 * (reported with group and epoch, never retried): its URL is not finished, left for the node that holds it now.
 * A group no longer held starts nothing more here. Times are the test's own (the Coordinator takes them as arguments).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { leaseKey, type GroupLeaseRef } from '../../db/crawl-store.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgCrawlStore } from '../../db/pg/pg-crawl-store.ts';
import { registerNode, takeGroups } from '../../db/pg/pg-leases.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { loadConfig } from '../../shared/config.ts';
import { fetchResult, parsedPage } from '../../test-support/coordinator-fixtures.ts';
import { startTestPostgres } from '../../test-support/postgres.ts';
import { takeoverClock } from './lease-clock.ts';
import { Coordinator } from '../coordination/coordinator.ts';

const A = 'https://a.example';
const B = 'https://b.example';
const T = 10_000;
/** Until when the leases let a worker write a request (the Coordinator's clock), and that clock's machine offset. */
const SENDS_UNTIL = T + 50_000;
const MACHINE_OFFSET = 7;

const cluster = startTestPostgres();
after(async () => (await cluster).stop());

test("a batch drops the writes of a lease lost since the request was sent; the other group's result commits", async () => {
  const url = await (await cluster).createDatabase();
  const pool = openPgPool(url, { max: 3 });
  try {
    await migratePg(pool);
    for (const origin of [A, B])
      await pgSeedStore(pool).upsertSeed({ url: `${origin}/`, origin, depth: 0, scope: 'host' }, Date.now());
    const store = pgCrawlStore(pool);
    const dropped: Array<{ lease: GroupLeaseRef; writes: number }> = [];
    const config = loadConfig({ CRAWL_DELAY_MS: '100', CRAWL_POLITENESS_GROUP: 'host' });
    const c = new Coordinator(store, config, 'run-1', {
      lease: {
        node: 'n1',
        dropped: (lease, writes) => dropped.push({ lease, writes }),
        noted: () => undefined,
        machineTime: (t) => t + MACHINE_OFFSET,
        unsent: () => undefined,
      },
    });
    await c.start(T);
    assert.equal(c.dispatch(T), undefined, 'no lease yet: nothing starts');

    // Take both groups as the lease loop would, and load them (node-leases.ts).
    for (const node of ['n1', 'n2']) await registerNode(pool, node, 'crawling');
    const rows = await takeGroups(pool, 'n1', 10, 60_000);
    assert.deepEqual(rows.map((r) => r.group).sort(), [A, B], 'both groups have work after the start');
    const taken = c.leases!.apply(
      rows.map((r) => ({
        group: r.group,
        epoch: r.epoch,
        startsUntil: Infinity,
        sendsUntil: SENDS_UNTIL,
        clock: takeoverClock(r, T),
      })),
    );
    for (const lease of taken) {
      const origins = await store.leases!.originsOf([lease.group], 'host');
      c.leases!.loaded(
        lease,
        origins.map((o) => ({ origin: o.origin, n: o.queued + o.leased })),
      );
    }
    await c.flush(T);

    const robots = [c.dispatch(T)!, c.dispatch(T)!];
    assert.deepEqual(
      robots.map((j) => j.kind),
      ['robots', 'robots'],
    );
    for (const j of robots) c.onResult(fetchResult(j.jobId, { status: 404 }), T + 10);
    const pages = [c.dispatch(T + 200)!, c.dispatch(T + 200)!];
    assert.deepEqual(pages.map((j) => j.origin).sort(), [A, B]);
    assert.deepEqual(
      [...robots, ...pages].map((j) => j.sendBy),
      Array(4).fill(SENDS_UNTIL + MACHINE_OFFSET),
      "each job carries its lease's send limit, on the machine's clock (FetchJob.sendBy)",
    );
    await c.flush(T + 201); // the requests' starts (their URLs leased) are written under both leases

    // Another node takes B: its epoch moves on.
    const bEpoch = rows.find((r) => r.group === B)!.epoch;
    await pool.query("UPDATE group_leases SET owner = 'n2', epoch = epoch + 1 WHERE group_key = $1", [B]);
    for (const j of pages)
      c.onResult(
        fetchResult(j.jobId, {
          status: 200,
          page: parsedPage(`${j.origin}/`, []),
          startedAt: T + 200,
          endedAt: T + 210,
        }),
        T + 220,
      );
    await c.flush(T + 230);

    const stored = await pool.query<{ url: string }>('SELECT url FROM pages ORDER BY url');
    assert.deepEqual(
      stored.rows.map((r) => r.url),
      [`${A}/`],
      "A's page stored, B's not",
    );
    const states = await pool.query<{ url: string; state: string }>('SELECT url, state FROM frontier ORDER BY url');
    assert.deepEqual(
      states.rows.map((r) => `${r.url} ${r.state}`),
      [`${A}/ done`, `${B}/ leased`],
      "B's URL is not finished: the node holding B returns it to the queue when it takes it",
    );
    assert.deepEqual(
      dropped.map((d) => leaseKey(d.lease)),
      [leaseKey({ group: B, epoch: bEpoch })],
      'the drop is reported once, with the lost lease',
    );
    assert.ok(dropped[0]!.writes > 0);

    await c.flush(T + 240);
    assert.equal(dropped.length, 1, 'never retried: a later batch has nothing of it');
    assert.equal((await pool.query('SELECT 1 FROM pages')).rowCount, 1);

    // The loop says B is gone: nothing of B starts here again.
    c.leases!.apply([
      {
        group: A,
        epoch: rows.find((r) => r.group === A)!.epoch,
        startsUntil: Infinity,
        sendsUntil: Infinity,
        clock: takeoverClock(rows[0]!, T),
      },
    ]);
    assert.equal(c.leases!.holds(B), false);
    assert.equal(c.dispatch(T + 10_000), undefined, 'B starts nothing, A has nothing left');
  } finally {
    await pool.end();
  }
});
