/**
 * Many crawler nodes as the person sees them in a real browser (issue 29): a real app on a throwaway PostgreSQL
 * cluster, its web build in Chromium, the nodes' rows written through db/pg/pg-leases.ts as crawler nodes write
 * them (crawling sites on several machines is the chaos test's business, not this one's). The Domains header
 * counts the nodes alive and silent and lists each; a node whose heartbeat stopped reads "silent since …", and
 * reads alive again once it beats; each host shows the node that holds its politeness group. The hosts are set on
 * the crawler link as a crawler snapshot sets them.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { DomainInfo } from '../crawler/common/protocol.ts';
import { openPgPool } from '../db/pg/pool.ts';
import { heartbeat, noteWork, registerNode, takeGroups } from '../db/pg/pg-leases.ts';
import { createTestApp } from '../server/test-app.ts';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres.ts';
import { syntheticHosts } from '../test-support/many-hosts.ts';
import { expect, freePort, test as base } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';

/** A real app on PostgreSQL serving the web build, and a pool of its database to write the nodes' rows with. */
interface OnPostgres {
  baseURL: string;
  db: pg.Pool;
}

/** docs. and www.python.org share python.org; free.test is a group of its own that nobody holds. */
function hosts(): DomainInfo[] {
  const names: Array<[string, string]> = [
    ['docs.python.org', 'python.org'],
    ['www.python.org', 'python.org'],
    ['free.test', 'free.test'],
  ];
  return syntheticHosts(names.length).map((row, i) => {
    const [host, group] = names[i]!;
    const shared = group === 'python.org' ? 2 : 1;
    return { ...row, host, origin: `https://${host}`, group: { ...row.group, name: group, hosts: shared } };
  });
}

const test = base.extend<{ onPostgres: OnPostgres }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring; this one has none
  onPostgres: async ({}, use) => {
    let cluster: TestPostgres | undefined;
    let t: Awaited<ReturnType<typeof createTestApp>> | undefined;
    let db: pg.Pool | undefined;
    try {
      cluster = await startTestPostgres();
      const url = await cluster.createDatabase();
      const port = await freePort();
      const webRoot = path.resolve(fileURLToPath(new URL('../web/dist', import.meta.url)));
      t = await createTestApp({ DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1' }, { webRoot });
      t.app.crawler.domains = hosts();
      t.app.crawler.state = 'running';
      await t.app.listen({ port, host: '127.0.0.1' });
      db = openPgPool(url, { max: 2 });
      await use({ baseURL: `http://127.0.0.1:${port}`, db });
    } finally {
      await db?.end();
      await t?.close();
      cluster?.stop();
    }
  },
  baseURL: async ({ onPostgres }, use) => {
    await use(onPostgres.baseURL);
  },
});

test('Domains on PostgreSQL: the nodes alive and silent, and the node that holds each host', async ({
  page,
  onPostgres: { db },
}) => {
  await registerNode(db, 'node-a', 'starting');
  await noteWork(db, ['python.org']);
  await takeGroups(db, 'node-a', 1, 60_000);
  await heartbeat(db, 'node-a', 'crawling');
  await registerNode(db, 'node-b', 'starting');
  await registerNode(db, 'node-lost', 'crawling');
  // Its last heartbeat three minutes ago on the database's clock: past the lease length, so silent.
  await db.query("UPDATE crawl_nodes SET heartbeat_at = now() - interval '3 minutes' WHERE node_id = 'node-lost'");

  const domains = new DomainsPage(page);
  await domains.open();
  await expect(domains.stat('Crawler nodes')).toHaveText('2 alive, 1 silent');
  await expect(domains.nodeLines()).toHaveText([
    /^alive node-a · crawling · 1 group · heartbeat (a moment|\d+ s|\d+ min) ago$/,
    /^alive node-b · starting · 0 groups · heartbeat (a moment|\d+ s|\d+ min) ago$/,
    /^silent node-lost · last said crawling · 0 groups · silent since \d+ min ago$/,
  ]);

  await expect(domains.table.getByRole('columnheader', { name: 'Owner' })).toBeVisible();
  await expect(domains.cell('docs.python.org', 'Owner')).toHaveText(/^node-a\s*since (a moment|\d+ s|\d+ min) ago$/);
  await expect(domains.cell('www.python.org', 'Owner')).toHaveText(/^node-a/);
  await expect(domains.cell('free.test', 'Owner')).toHaveText('—');
  await expect(domains.groupRow('python.org')).toContainText('held by node-a');

  // The lost node beats again: the next poll shows it alive, without a reload.
  await heartbeat(db, 'node-lost', 'crawling again');
  await expect(domains.stat('Crawler nodes')).toHaveText('3 alive');
  await expect(domains.nodeLines().filter({ hasText: 'node-lost' })).toHaveText(/^alive node-lost · crawling again/);
});
