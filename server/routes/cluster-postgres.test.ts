/**
 * Many crawler nodes as the person sees them (issue 29), through the whole app (app.inject) on a throwaway
 * PostgreSQL cluster: /api/status counts the nodes alive and lists each with what it does, the groups it holds and
 * its last heartbeat, a node whose heartbeat stopped as silent; /api/domains gives each host its politeness group's
 * owner node, how long it has held it and when its lease ends, with one lease statement per page. On SQLite neither
 * appears. The nodes' rows are written through db/pg/pg-leases.ts, as crawler nodes write them.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import type { DomainInfo } from '../../crawler/common/protocol.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { heartbeat, noteWork, registerNode, takeGroups } from '../../db/pg/pg-leases.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { syntheticHosts } from '../../test-support/many-hosts.ts';
import { createTestApp } from '../test-app.ts';
import type { DomainsResponse, Status } from './crawl.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const LEASE_MS = 60_000;

/** Hosts as the crawler reports them: two of python.org's sharing its group, and two groups of their own. */
function hosts(): DomainInfo[] {
  const names: Array<[string, string]> = [
    ['docs.python.org', 'python.org'],
    ['www.python.org', 'python.org'],
    ['example.org', 'example.org'],
    ['free.test', 'free.test'],
  ];
  return syntheticHosts(names.length).map((row, i) => {
    const [host, group] = names[i]!;
    return { ...row, host, origin: `https://${host}`, group: { ...row.group, name: group, hosts: 1 } };
  });
}

describe('crawler nodes on PostgreSQL', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  let db: pg.Pool;
  before(async () => {
    const url = await cluster.createDatabase();
    t = await createTestApp({ DATABASE_URL: url }); // migrates the database
    db = openPgPool(url, { max: 2 });
    t.app.crawler.domains = hosts();
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });
  const get = async <T>(url: string): Promise<T> => {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as T;
  };

  test('status: how many nodes are alive, each with what it does and its groups; a stopped heartbeat is silent', async () => {
    await registerNode(db, 'node-a', 'starting');
    await registerNode(db, 'node-b', 'starting');
    await noteWork(db, ['python.org', 'example.org']);
    assert.equal((await takeGroups(db, 'node-a', 2, LEASE_MS)).length, 2);
    assert.equal(await heartbeat(db, 'node-a', 'crawling 2 groups'), true);
    await registerNode(db, 'node-lost', 'crawling');
    // Its last heartbeat three minutes ago on the database's clock: past the lease length, so no longer alive.
    await db.query("UPDATE crawl_nodes SET heartbeat_at = now() - interval '3 minutes' WHERE node_id = 'node-lost'");

    const { cluster: nodes } = await get<Status>('/api/status');
    assert.ok(nodes !== null, 'on PostgreSQL the status has the nodes');
    assert.deepEqual(
      [nodes.answered, nodes.alive, nodes.silent, nodes.left, nodes.aliveWithinMs],
      [true, 2, 1, 0, 90_000],
    );
    assert.deepEqual(
      nodes.nodes.map((n) => [n.node, n.state, n.doing, n.groups]),
      [
        ['node-a', 'alive', 'crawling 2 groups', 2],
        ['node-b', 'alive', 'starting', 0],
        ['node-lost', 'silent', 'crawling', 0],
      ],
    );
    const lost = nodes.nodes[2]!;
    assert.ok(lost.heartbeatAgoMs >= 180_000, `silent for ${lost.heartbeatAgoMs} ms`);
    assert.ok(nodes.nodes[0]!.heartbeatAgoMs < 180_000);
  });

  test("domains: each host carries its group's owner, since when and its lease's end; a free group none", async () => {
    await db.query("UPDATE group_leases SET taken_at = now() - interval '5 minutes' WHERE group_key = 'python.org'");
    const view = t.app.clusterView!;
    const asked: string[][] = [];
    const leases = view.leases;
    t.app.clusterView = {
      ...view,
      leases: (groups) => {
        asked.push([...groups]);
        return leases(groups);
      },
    };
    try {
      const page = await get<DomainsResponse>('/api/domains');
      assert.equal(page.owners, 'known');
      const lease = (host: string) => page.domains.find((d) => d.host === host)?.lease;
      assert.equal(lease('docs.python.org')?.node, 'node-a');
      assert.deepEqual(lease('www.python.org'), lease('docs.python.org'), 'one group, one owner');
      assert.equal(lease('example.org')?.node, 'node-a');
      assert.equal(lease('free.test'), null, 'nobody holds free.test');
      const held = lease('docs.python.org')!;
      assert.ok((held.heldForMs ?? 0) >= 300_000, `held for ${held.heldForMs} ms`);
      assert.ok(held.expiresInMs > 0 && held.expiresInMs <= LEASE_MS, `ends in ${held.expiresInMs} ms`);
      assert.ok((lease('example.org')!.heldForMs ?? LEASE_MS) < 300_000);
      assert.deepEqual(asked, [['python.org', 'example.org', 'free.test']], "one statement for the page's groups");
    } finally {
      t.app.clusterView = view;
    }
  });
});

test('alive means a heartbeat within CRAWL_LEASE_MS, the lease length the nodes themselves run with', async () => {
  const url = await cluster.createDatabase();
  const t = await createTestApp({ DATABASE_URL: url, CRAWL_LEASE_MS: '20000' });
  const db = openPgPool(url, { max: 1 });
  try {
    await registerNode(db, 'node-recent', 'crawling');
    await registerNode(db, 'node-late', 'crawling');
    // 30 s ago: alive under the default 90 s lease, silent under these nodes' 20 s one.
    await db.query("UPDATE crawl_nodes SET heartbeat_at = now() - interval '30 seconds' WHERE node_id = 'node-late'");
    const { cluster: nodes } = (await t.app.inject({ method: 'GET', url: '/api/status' })).json() as Status;
    assert.ok(nodes !== null);
    assert.deepEqual([nodes.aliveWithinMs, nodes.alive, nodes.silent], [20_000, 1, 1]);
    assert.deepEqual(nodes.nodes.map((n) => [n.node, n.state]).sort(), [
      ['node-late', 'silent'],
      ['node-recent', 'alive'],
    ]);
  } finally {
    await db.end();
    await t.close();
  }
});

describe('on SQLite', () => {
  test('no nodes in the status and no lease on a host: one machine, one crawler', async () => {
    const t = await createTestApp();
    try {
      t.app.crawler.domains = hosts();
      const status = (await t.app.inject({ method: 'GET', url: '/api/status' })).json() as Status;
      assert.equal(status.cluster, null);
      const page = (await t.app.inject({ method: 'GET', url: '/api/domains' })).json() as DomainsResponse;
      assert.equal(page.owners, undefined);
      assert.ok(
        page.domains.every((d) => !('lease' in d)),
        'no lease field',
      );
    } finally {
      await t.close();
    }
  });
});
