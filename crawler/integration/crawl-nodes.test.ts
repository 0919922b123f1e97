/**
 * Several crawler nodes on one PostgreSQL (issue 29), judged from the sites' own request logs: three nodes, each a
 * separate `npm run crawl-node` process with its own node id (and a User-Agent of its own, so that each request in
 * a site's log names its node), crawl loopback sites that each ask for their own delay (robots.txt Crawl-delay).
 *  1. Shared: every site is crawled politely across all nodes (never two requests in flight, never a gap below its
 *     delay, handovers between nodes included), every page is fetched once, and every node fetched something.
 *  2. A node killed with kill -9 mid-crawl: its groups move to the others once their leases expire (short leases
 *     here), with no gap below a site's delay during the handover, and nothing is lost: every page is stored once.
 *  3. A seed removed in PostgreSQL alone (the nodes poll the seeds; no server tells them) stops its site's crawl on
 *     whichever node holds it, and its URLs are dropped, while the other site is crawled whole.
 * One throwaway PostgreSQL cluster for the file (test-support/postgres.ts), a database per test. Every wait is on a
 * condition, bounded; the handover's time is reported (t.diagnostic), not asserted (benchmarks measure speed).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type pg from 'pg';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import {
  type CrawlNode,
  fileDatabases,
  NODE_TEST_DELAY_MS,
  NODE_TEST_ENV,
  startCrawlNode,
} from '../../test-support/crawl-nodes.ts';
import {
  generatedPath,
  generateSite,
  politenessReport,
  type RequestRecord,
  startTestWeb,
  type TestWeb,
} from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const CRAWL_DELAY_MS = NODE_TEST_DELAY_MS;
/** Short leases so that a dead node's groups move within seconds (lease × 2/3 − margin ≥ timeout + margin). */
const NODE_ENV = NODE_TEST_ENV;
/**
 * Where no node dies, a lease long enough that a node on a heavily loaded machine (a clean-clone CI runs the tests,
 * the browser tests and these nodes on 2 cores, load 17) never misses a renewal: a lost lease is correct behaviour
 * (its page may then be fetched again by the next owner, its result fenced), but not what these tests are about.
 */
const STEADY_ENV = { ...NODE_ENV, CRAWL_LEASE_MS: '30000' };

/** A migrated database of the file's cluster, with a pool for the test's own reads and writes. */
const database = fileDatabases();

/** `n` sites of `pages` pages, each asking for its own Crawl-delay (200, 250, ... ms) in robots.txt. */
async function sites(n: number, pages: number): Promise<{ web: TestWeb; delays: number[] }> {
  const delays = Array.from({ length: n }, (_, i) => 200 + 50 * (i % 4));
  const web = await startTestWeb(
    delays.map((d, i) =>
      generateSite({
        pages,
        prefix: `node${i}`,
        delayMs: 15,
        robots: `User-agent: *\nCrawl-delay: ${d / 1000}\nAllow: /\n`,
      }),
    ),
  );
  return { web, delays };
}

/** Starts `n` crawler nodes and waits until each has registered in crawl_nodes (so that shares count all of them). */
async function nodes(
  n: number,
  url: string,
  pool: pg.Pool,
  env: Record<string, string> = STEADY_ENV,
): Promise<CrawlNode[]> {
  const all = Array.from({ length: n }, (_, i) => startCrawlNode(`node-${i + 1}`, url, env));
  await waitFor(
    async () => {
      const r = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM crawl_nodes WHERE left_at IS NULL AND node_id = ANY ($1)',
        [all.map((x) => x.id)],
      );
      return r.rows[0]!.n === n;
    },
    {
      timeoutMs: 120_000,
      message: () => `${n} crawler nodes to register; ${all.map((x) => x.stderr().slice(-600)).join('\n')}`,
    },
  );
  return all;
}

/** Adds every site's root as a seed of depth 1, as the server does (the nodes read the seeds by themselves). */
async function seed(pool: pg.Pool, web: TestWeb): Promise<void> {
  const seeds = pgSeedStore(pool);
  for (const site of web.sites) {
    const u = new URL(site.url('/'));
    await seeds.upsertSeed({ url: u.href, origin: u.origin, depth: 1, scope: 'host' }, Date.now());
  }
}

/** Waits until every page is stored and nothing is queued or leased; the crawl may be slow but must move. */
async function crawled(pool: pg.Pool, total: number, crawlers: readonly CrawlNode[]): Promise<void> {
  let reading = '';
  await waitFor(
    async () => {
      const states = await pool.query<{ state: string; n: number }>(
        'SELECT state, count(*)::int AS n FROM frontier GROUP BY state ORDER BY state',
      );
      const pages = await pool.query<{ n: number }>('SELECT count(DISTINCT url)::int AS n FROM pages');
      reading = `${JSON.stringify(states.rows)} pages ${pages.rows[0]!.n}`;
      const busy = states.rows.some((r) => (r.state === 'queued' || r.state === 'leased') && r.n > 0);
      return !busy && pages.rows[0]!.n === total;
    },
    {
      timeoutMs: 60_000,
      limitMs: 300_000,
      progress: () => reading,
      message: () =>
        `every page stored (last: ${reading}); nodes said: ${crawlers.map((c) => `${c.id}: ${c.stderr().slice(-800)}`).join('\n')}`,
    },
  );
}

/** Each site's politeness over every node's requests: no overlap, no gap below its own delay (robots.txt too). */
function assertPolite(web: TestWeb, delays: readonly number[]): void {
  for (const [i, site] of web.sites.entries()) {
    const minGap = Math.max(CRAWL_DELAY_MS, delays[i]!);
    const report = politenessReport(site.log, minGap);
    assert.equal(report.maxInFlight, 1, `${site.host}: never two requests in flight, whichever node sent them`);
    assert.deepEqual(
      report.violations.map(
        (v) => `${v.prev.userAgent} ${v.prev.path} → ${v.next.userAgent} ${v.next.path}: ${v.gapMs.toFixed(1)} ms`,
      ),
      [],
      `${site.host}: no gap below its ${minGap} ms delay across nodes`,
    );
  }
}

/** The pages' requests of a site (robots.txt left out: a node that takes a group may read it again). */
const pageRequests = (log: readonly RequestRecord[]) => log.filter((r) => r.path !== '/robots.txt');

/** The stored pages: rows and distinct URLs (equal when no page is stored twice). */
async function stored(pool: pg.Pool): Promise<{ n: number; d: number }> {
  const r = await pool.query<{ n: number; d: number }>(
    'SELECT count(*)::int AS n, count(DISTINCT url)::int AS d FROM pages',
  );
  return r.rows[0]!;
}

test('three crawler nodes share the sites: polite across nodes, every page fetched once, every node crawls', async () => {
  const SITES = 9;
  const PAGES = 16;
  const { url, pool } = await database();
  const { web, delays } = await sites(SITES, PAGES);
  const crawlers = await nodes(3, url, pool);
  try {
    await seed(pool, web);
    await crawled(pool, SITES * PAGES, crawlers);
    assertPolite(web, delays);
    for (const site of web.sites) {
      const paths = pageRequests(site.log).map((r) => r.path);
      const want = Array.from({ length: PAGES }, (_, i) => generatedPath(i)).sort();
      assert.deepEqual([...paths].sort(), want, `${site.host}: every page requested exactly once`);
    }
    assert.deepEqual(await stored(pool), { n: SITES * PAGES, d: SITES * PAGES }, 'every page stored once');
    const byNode = new Map(crawlers.map((c) => [c.userAgent, 0]));
    for (const site of web.sites)
      for (const r of pageRequests(site.log)) byNode.set(r.userAgent, (byNode.get(r.userAgent) ?? 0) + 1);
    for (const c of crawlers)
      assert.ok((byNode.get(c.userAgent) ?? 0) > 0, `${c.id} fetched pages: ${JSON.stringify([...byNode])}`);
    const exits = await Promise.all(crawlers.map((c) => c.stop()));
    assert.deepEqual(exits, [0, 0, 0], 'each node stops cleanly on SIGTERM');
    const held = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM group_leases WHERE owner IS NOT NULL');
    assert.equal(held.rows[0]!.n, 0, 'a node that stopped holds no group');
  } finally {
    for (const c of crawlers) c.cleanUp();
    await web.close();
    await pool.end();
  }
});

test('kill -9 of a node mid-crawl: its groups move to the others after the lease, politely, and nothing is lost', async (t) => {
  const SITES = 9;
  const PAGES = 30;
  const { url, pool } = await database();
  const { web, delays } = await sites(SITES, PAGES);
  const crawlers = await nodes(3, url, pool, NODE_ENV);
  const [victim, ...rest] = crawlers as [CrawlNode, CrawlNode, CrawlNode];
  try {
    await seed(pool, web);
    // Mid-crawl: the victim holds groups and has fetched pages of them, and the crawl is far from over.
    const victimsSites = () =>
      web.sites.filter((s) => pageRequests(s.log).some((r) => r.userAgent === victim.userAgent));
    await waitFor(() => victimsSites().length > 0 && victimsSites().every((s) => pageRequests(s.log).length >= 3), {
      timeoutMs: 120_000,
      message: () => `the victim to crawl some sites; it said: ${victim.stderr().slice(-1500)}`,
    });
    const held = await pool.query<{ group_key: string }>('SELECT group_key FROM group_leases WHERE owner = $1', [
      victim.id,
    ]);
    assert.ok(held.rows.length > 0, 'the victim holds groups when it dies');
    const killedAt = performance.timeOrigin + performance.now();
    await victim.killHard();
    await crawled(pool, SITES * PAGES, rest);
    assertPolite(web, delays);
    assert.deepEqual(await stored(pool), { n: SITES * PAGES, d: SITES * PAGES }, 'every page stored exactly once');
    // Its groups moved: each site it crawled was crawled on by another node after the kill.
    const moved: number[] = [];
    for (const site of web.sites) {
      const log = [...site.log].sort((a, b) => a.start - b.start);
      const before = log.filter((r) => r.start < killedAt);
      if (before.at(-1)?.userAgent !== victim.userAgent) continue;
      const next = log.find((r) => r.start >= killedAt);
      assert.ok(next !== undefined && next.userAgent !== victim.userAgent, `${site.host}: another node continued it`);
      moved.push(next.start - killedAt);
      // A page fetched twice was in the victim's hands when it died (its result never written), never otherwise.
      const seen = new Map<string, RequestRecord[]>();
      for (const r of pageRequests(log)) seen.set(r.path, [...(seen.get(r.path) ?? []), r]);
      for (const [p, rs] of seen)
        for (const r of rs.slice(0, -1))
          assert.equal(
            r.userAgent,
            victim.userAgent,
            `${site.host}${p}: fetched again only after the victim's request`,
          );
    }
    assert.ok(moved.length > 0, 'some of its groups moved');
    moved.sort((a, b) => a - b);
    t.diagnostic(
      `handover after kill -9 (lease ${NODE_ENV.CRAWL_LEASE_MS} ms): ${moved.length} groups, p50 ${Math.round(moved[Math.floor(moved.length / 2)]!)} ms, max ${Math.round(moved.at(-1)!)} ms`,
    );
    for (const c of rest) await c.stop();
  } finally {
    for (const c of crawlers) c.cleanUp();
    await web.close();
    await pool.end();
  }
});

test("a seed removed in PostgreSQL alone (no server tells the nodes) stops its site's crawl on whichever node holds it", async () => {
  const PAGES = 40;
  const { url, pool } = await database();
  const { web, delays } = await sites(2, PAGES);
  await seed(pool, web); // read by the nodes at their start: the removal is what they must hear of by themselves
  const crawlers = await nodes(2, url, pool);
  const [gone, kept] = web.sites as [TestWeb['sites'][number], TestWeb['sites'][number]];
  try {
    await waitFor(() => pageRequests(gone.log).length >= 3, {
      timeoutMs: 120_000,
      message: () => `the site to be crawled; nodes said: ${crawlers.map((c) => c.stderr().slice(-600)).join('\n')}`,
    });
    const [row] = (
      await pool.query<{ id: number }>('SELECT id FROM seeds WHERE url = $1', [new URL(gone.url('/')).href])
    ).rows;
    assert.ok(
      (await pgSeedStore(pool).markSeedRemoved(row!.id, Date.now())) !== undefined,
      'the seed is marked removed',
    );
    // Its URLs are dropped by the node that read the removal, the other site is crawled to its end.
    await waitFor(
      async () =>
        (await pool.query('SELECT 1 FROM frontier WHERE seed_id = $1', [row!.id])).rowCount === 0 &&
        (await pool.query("SELECT 1 FROM frontier WHERE state IN ('queued', 'leased')")).rowCount === 0,
      { timeoutMs: 120_000, message: () => 'the removed seed dropped and the other site crawled' },
    );
    const fetched = pageRequests(gone.log).length;
    assert.ok(fetched < PAGES, `the removed site's crawl stopped: ${fetched} of its ${PAGES} pages requested`);
    assert.equal(pageRequests(kept.log).length, PAGES, 'the other site was crawled whole');
    assertPolite(web, delays);
    for (const c of crawlers) await c.stop();
  } finally {
    for (const c of crawlers) c.cleanUp();
    await web.close();
    await pool.end();
  }
});
