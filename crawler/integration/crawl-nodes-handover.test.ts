/**
 * Handovers between crawler nodes on one PostgreSQL (issue 29, docs/scaling.md "Many crawler nodes"), judged from
 * the sites' own request logs: each node a separate `npm run crawl-node` process with its own node id and
 * User-Agent, one throwaway PostgreSQL cluster for the file, a database per test.
 *  1. A group of several host names (one registrable domain, CRAWL_RESOLVE) whose robots.txt asks for
 *     `Crawl-delay: 3`: its holder stops (SIGTERM) mid-crawl and another node, which never saw those hosts, takes
 *     the group and reads their robots.txt again. Every request to the group, robots.txt included, starts at least
 *     the Crawl-delay after the group's last one ended, except the very first read of a host's robots.txt, when no
 *     node could know its Crawl-delay yet (docs/politeness.md: exactly the one-node rule, across nodes).
 *  2. In 'domain' mode, a host of a group that another node found and queued while the group's holder crawled its
 *     other host (the test writes that node's batch: the URL's row and its group's note of work): the holder never
 *     knew that host, and when it releases the group (no work left that it knows of), the URL must not be stranded
 *     under a group marked without work: it is fetched.
 *  3. The person's action reaches the owner within a second: a Lantern server (with its own crawler node) and two
 *     crawl-node processes on one PostgreSQL; a seed whose group another node holds is removed through the server
 *     (`DELETE /api/seeds/:id`): no request for its pages starts later than 1 s after the removal's answer (a request
 *     already in flight may finish), and its pages leave search.
 *  4. A 429 with Retry-After seen by a node that is then killed with kill -9, some lease rounds later: the node that
 *     takes the group over (once the lease expired) sends nothing before the Retry-After is over, as the killed node
 *     wrote the backoff into the lease row (db/pg/pg-lease-clocks.ts).
 * Every wait is on a condition, bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { noteWork } from '../../db/pg/pg-leases.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { startAppProcess } from '../../test-support/app-process.ts';
import { fileDatabases, NODE_TEST_DELAY_MS, NODE_TEST_ENV, startCrawlNode } from '../../test-support/crawl-nodes.ts';
import {
  generateSite,
  politenessReport,
  type RequestRecord,
  startNamedWeb,
  startTestWeb,
  type TestSite,
} from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const CRAWL_DELAY_MS = NODE_TEST_DELAY_MS;
/** Leases long enough that no node loses one on a loaded machine: these tests hand groups on by a clean stop. */
const NODE_ENV = { ...NODE_TEST_ENV, CRAWL_LEASE_MS: '30000' };

/** A migrated database of the file's cluster, with a pool for the test's own reads and writes. */
const database = fileDatabases();

/** Starts crawler nodes `ids` and waits until each has registered and started its primary. */
async function nodes(ids: readonly string[], url: string, pool: pg.Pool, env: Record<string, string>) {
  const all = ids.map((id) => startCrawlNode(id, url, env));
  await waitFor(
    async () => {
      const r = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM crawl_nodes WHERE left_at IS NULL AND node_id = ANY ($1)',
        [ids],
      );
      return r.rows[0]!.n === ids.length;
    },
    {
      timeoutMs: 120_000,
      message: () => `crawler nodes to register; ${all.map((x) => `${x.id}: ${x.stderr().slice(-600)}`).join('\n')}`,
    },
  );
  await Promise.all(all.map((c) => c.primaryPid()));
  return all;
}

/** Adds each site's root as a seed of depth 1, as the server does (the nodes read the seeds by themselves). */
async function seed(pool: pg.Pool, sites: readonly TestSite[]): Promise<void> {
  const seeds = pgSeedStore(pool);
  for (const site of sites) {
    const u = new URL(site.url('/'));
    await seeds.upsertSeed({ url: u.href, origin: u.origin, depth: 1, scope: 'host' }, Date.now());
  }
}

/**
 * Waits until every URL of the crawl is done and there are `n` of them: the crawl is over. It may take long while it
 * moves (a handover waits for a lease to expire), so it fails a minute after the frontier last changed.
 */
async function everyUrlDone(pool: pg.Pool, n: number, say: () => string): Promise<void> {
  let reading = '';
  await waitFor(
    async () => {
      const r = await pool.query<{ state: string; n: number }>(
        'SELECT state, count(*)::int AS n FROM frontier GROUP BY state ORDER BY state',
      );
      reading = JSON.stringify(r.rows);
      return r.rows.length === 1 && r.rows[0]!.state === 'done' && r.rows[0]!.n === n;
    },
    {
      timeoutMs: 60_000,
      limitMs: 240_000,
      progress: () => reading,
      message: () => `every URL done (${reading}); ${say()}`,
    },
  );
}

/** The node holding `group` now, or null. */
async function holderOf(pool: pg.Pool, group: string): Promise<string | null> {
  const r = await pool.query<{ owner: string | null }>('SELECT owner FROM group_leases WHERE group_key = $1', [group]);
  return r.rows[0]?.owner ?? null;
}

/** A request of a group's merged log, with the name it went to. */
interface GroupRequest {
  host: string;
  r: RequestRecord;
}

/** The group's sites' logs merged, by start. */
function merged(sites: readonly TestSite[]): GroupRequest[] {
  return sites
    .flatMap((s) => s.log.map((r) => ({ host: s.host.replace(/:\d+$/, ''), r })))
    .sort((a, b) => a.r.start - b.r.start);
}

/**
 * Every gap in a group's merged log below `needMs`, except before the first read of a host's robots.txt (no node
 * could know its Crawl-delay then: the one-node rule keeps the default delay there, docs/politeness.md).
 */
function gapsBelow(log: readonly GroupRequest[], needMs: number, defaultMs: number): string[] {
  const out: string[] = [];
  const read = new Set<string>();
  let latest: GroupRequest | undefined;
  const endOf = (x: GroupRequest) => (Number.isNaN(x.r.end) ? Infinity : x.r.end);
  for (const next of log) {
    const firstRead = next.r.path === '/robots.txt' && !read.has(next.host);
    if (next.r.path === '/robots.txt') read.add(next.host);
    if (latest !== undefined) {
      const gap = next.r.start - endOf(latest);
      const need = firstRead ? defaultMs : needMs;
      if (gap < need)
        out.push(
          `${latest.r.userAgent} ${latest.host}${latest.r.path} → ${next.r.userAgent} ${next.host}${next.r.path}: ${gap.toFixed(1)} ms (needed ${need})`,
        );
    }
    if (latest === undefined || endOf(next) > endOf(latest)) latest = next;
  }
  return out;
}

/** Short leases where the holder is killed, so that its group moves within seconds (lease × 2/3 − margin ≥ timeout + margin). */
const KILL_ENV = { ...NODE_ENV, CRAWL_LEASE_MS: '6000' };

for (const how of ['SIGTERM', 'kill -9'] as const)
  test(`Crawl-delay across a handover (${how}): a group of three names keeps its 3 s delay when another node takes it and reads their robots.txt again`, {
    timeout: 300_000,
  }, async (t) => {
    const DELAY_S = 3;
    const PAGES = 2;
    const names = ['a', 'b', 'c'].map((n) => `${n}.slow.test`);
    const web = await startNamedWeb([
      Object.fromEntries(
        names.map((name) => [
          name,
          generateSite({
            pages: PAGES,
            prefix: name.replaceAll('.', ''),
            delayMs: 10,
            robots: `User-agent: *\nCrawl-delay: ${DELAY_S}\nAllow: /\n`,
          }),
        ]),
      ),
    ]);
    const { url, pool } = await database();
    // Both nodes start before any host is known: whichever does not take the group has never seen its hosts.
    const env = how === 'SIGTERM' ? NODE_ENV : KILL_ENV;
    const crawlers = await nodes(['node-1', 'node-2'], url, pool, { ...env, CRAWL_RESOLVE: web.resolve });
    const say = () => crawlers.map((c) => `${c.id}: ${c.stderr().slice(-800)}`).join('\n');
    const group = 'slow.test';
    try {
      await seed(pool, web.sites);
      // Mid-crawl: the holder has read every robots.txt and fetched two pages at the site's pace.
      const pages = () => merged(web.sites).filter((x) => x.r.path !== '/robots.txt');
      await waitFor(() => pages().length >= 2, { timeoutMs: 120_000, message: () => `two pages fetched; ${say()}` });
      const holderId = await holderOf(pool, group);
      const holder = crawlers.find((c) => c.id === holderId);
      assert.ok(holder !== undefined, `a node holds ${group} (${holderId})`);
      const taker = crawlers.find((c) => c !== holder)!;
      if (how === 'SIGTERM')
        assert.equal(await holder.stop(), 0, 'the holder stops cleanly on SIGTERM, handing the group on');
      else await holder.killHard(); // it releases nothing: the other node takes the group once its lease expired
      const stoppedAt = performance.timeOrigin + performance.now();
      await everyUrlDone(pool, names.length * PAGES, say);
      const log = merged(web.sites);
      const reread = log.filter((x) => x.r.userAgent === taker.userAgent && x.r.path === '/robots.txt');
      assert.ok(
        reread.length >= 2,
        `the node that took the group read robots.txt of several of its hosts again (${reread.map((x) => x.host).join(', ')})`,
      );
      assert.ok(
        log.every((x) => x.r.userAgent !== holder.userAgent || x.r.start < stoppedAt),
        'the stopped node sent nothing after it stopped',
      );
      assert.equal(
        politenessReport(
          log.map((x) => x.r),
          0,
        ).maxInFlight,
        1,
        'never two requests in flight to the group',
      );
      assert.deepEqual(
        gapsBelow(log, DELAY_S * 1000, CRAWL_DELAY_MS),
        [],
        `no gap below the group's ${DELAY_S} s Crawl-delay across the handover, robots.txt included`,
      );
      t.diagnostic(
        `group ${group}: ${log.length} requests, ${reread.length} robots.txt read again by ${taker.id}; min gap after the handover ${Math.round(
          Math.min(
            ...log
              .map((x, i) => (i > 0 && x.r.start > stoppedAt ? x.r.start - log[i - 1]!.r.end : Infinity))
              .filter(Number.isFinite),
          ),
        )} ms`,
      );
      assert.equal(await taker.stop(), 0);
    } finally {
      for (const c of crawlers) c.cleanUp();
      await web.close();
      await pool.end();
    }
  });

test("a release in 'domain' mode keeps the work another node queued for a host of the group: the URL is fetched, not stranded", {
  timeout: 300_000,
}, async () => {
  // a.strand.test's crawl (60 pages, one each 0.5 s) outlasts the queueing of z by far, even on a loaded machine.
  const PAGES = 60;
  const web = await startNamedWeb([
    {
      'a.strand.test': generateSite({
        pages: PAGES,
        prefix: 'astrand',
        delayMs: 10,
        robots: 'User-agent: *\nCrawl-delay: 0.5\nAllow: /\n',
      }),
      'z.strand.test': {
        robots: 'User-agent: *\nAllow: /\n',
        pages: { '/': '<title>z</title><p>found by another node</p>' },
      },
    },
  ]);
  const [a, z] = web.sites as [TestSite, TestSite];
  const { url, pool } = await database();
  const crawlers = await nodes(['node-1', 'node-2'], url, pool, { ...NODE_ENV, CRAWL_RESOLVE: web.resolve });
  const say = () => crawlers.map((c) => `${c.id}: ${c.stderr().slice(-800)}`).join('\n');
  const group = 'strand.test';
  try {
    await seed(pool, [a]);
    await waitFor(() => a.log.some((r) => r.path !== '/robots.txt'), {
      timeoutMs: 120_000,
      message: () => `a.strand.test crawled; ${say()}`,
    });
    const holder = await holderOf(pool, group);
    assert.ok(holder !== null, `a node holds ${group}`);
    // Another node's batch found z (a link from a site it crawls) and queues it: its row and the note of its group's
    // work, in one transaction, as a node writes them (intent-applier.ts, pg-leases.ts noteWork). Written by the test,
    // so that it is never the holder that finds z (which node a fair share gives a third site to is not fixed).
    const zRoot = z.url('/');
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const seedOfA = await client.query<{ id: number }>('SELECT id FROM seeds WHERE origin = $1', [a.origin]);
      await client.query(
        "INSERT INTO frontier (url, origin, seed_id, depth, discovered_at, state) VALUES ($1, $2, $3, 1, $4, 'queued')",
        [zRoot, z.origin, seedOfA.rows[0]!.id, Date.now()],
      );
      await noteWork(client, [group]);
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    assert.equal(await holderOf(pool, group), holder, `z was queued while ${holder} still held ${group}`);
    assert.equal(z.log.length, 0, 'z not contacted yet');
    // The holder crawls a to its end and releases the group (it knows of no work left in it).
    await waitFor(async () => (await holderOf(pool, group)) !== holder, {
      timeoutMs: 120_000,
      message: () => `${holder} to release ${group} once a.strand.test is crawled; ${say()}`,
    });
    let row = '';
    await waitFor(
      async () => {
        row = JSON.stringify(
          (await pool.query('SELECT owner, has_work, epoch FROM group_leases WHERE group_key = $1', [group])).rows,
        );
        return z.requestsTo('/').length === 1;
      },
      {
        timeoutMs: 30_000,
        message: () => `z.strand.test's root fetched after ${holder} released ${group} (lease row ${row}); ${say()}`,
      },
    );
    for (const c of crawlers) assert.equal(await c.stop(), 0);
  } finally {
    for (const c of crawlers) c.cleanUp();
    await web.close();
    await pool.end();
  }
});

test('a seed removed through the server stops on the node that holds its group within a second, and its pages leave search', {
  timeout: 300_000,
}, async (t) => {
  const SITES = 4;
  const PAGES = 60;
  const markOf = (i: number) => `removalmark${i}`;
  const web = await startTestWeb(
    Array.from({ length: SITES }, (_, i) =>
      generateSite({
        pages: PAGES,
        prefix: `rm${i}`,
        delayMs: 10,
        words: () => markOf(i),
        robots: 'User-agent: *\nCrawl-delay: 0.2\nAllow: /\n',
      }),
    ),
  );
  const { url, pool } = await database();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-handover-server-'));
  const server = await startAppProcess({
    dataDir,
    env: {
      ...NODE_ENV,
      DATABASE_URL: url,
      CRAWL_NODE_ID: 'server-node',
      CRAWL_USER_AGENT: 'LanternTest-server-node/1.0',
    },
    healthTimeoutMs: 120_000,
  });
  const crawlers = await nodes(['node-1', 'node-2'], url, pool, NODE_ENV);
  const say = () =>
    `server: ${server.output().slice(-800)}\n${crawlers.map((c) => `${c.id}: ${c.stderr().slice(-800)}`).join('\n')}`;
  const pageLog = (site: TestSite) => site.log.filter((r) => r.path !== '/robots.txt');
  const search = async (q: string) =>
    (await server.getJson<{ total: number }>(`/api/search?q=${encodeURIComponent(q)}&correct=false`)).total;
  try {
    const ids: number[] = [];
    for (const site of web.sites) {
      const added = await server.postJson<{ seed: { id: number } }>('/api/seeds', {
        url: site.url('/'),
        depth: 1,
        scope: 'host',
      });
      assert.equal(added.status, 201, `seed ${site.url('/')} added`);
      ids.push(added.body.seed.id);
    }
    // A site mid-crawl on a crawl-node (not the server's own node), some of its pages already searchable.
    const chosen = await waitFor(
      async () => {
        for (const [i, site] of web.sites.entries()) {
          const owner = await holderOf(pool, site.address);
          const fetched = pageLog(site).length;
          if (owner === null || owner === 'server-node' || fetched < 3 || fetched > PAGES / 2) continue;
          if ((await search(markOf(i))) > 0) return { i, owner };
        }
        return undefined;
      },
      { timeoutMs: 120_000, message: () => `a site mid-crawl on a crawl-node, searchable; ${say()}` },
    );
    const gone = web.sites[chosen.i]!;
    const removal = await fetch(`${server.baseURL}/api/seeds/${ids[chosen.i]}`, { method: 'DELETE' });
    const answeredAt = performance.timeOrigin + performance.now();
    assert.equal(removal.status, 200, `DELETE /api/seeds/${ids[chosen.i]}: ${await removal.text()}`);
    // The crawl goes on past the bound elsewhere: a request to another site starts 2 s after the removal's answer.
    await waitFor(() => web.sites.some((site) => site !== gone && site.log.some((r) => r.start > answeredAt + 2000)), {
      timeoutMs: 60_000,
      message: () => `the other sites crawled on; ${say()}`,
    });
    const late = pageLog(gone).filter((r) => r.start > answeredAt + 1000);
    const lastStart = Math.max(...pageLog(gone).map((r) => r.start)) - answeredAt;
    t.diagnostic(
      `removed ${gone.host} held by ${chosen.owner}: its last page request started ${Math.round(lastStart)} ms after the removal's answer; ${pageLog(gone).length} of ${PAGES} pages requested`,
    );
    assert.deepEqual(
      late.map((r) => `${r.userAgent} ${r.path} at +${Math.round(r.start - answeredAt)} ms`),
      [],
      `no request for the removed seed's pages starts later than 1 s after the removal (held by ${chosen.owner})`,
    );
    // Its URLs dropped and its pages out of search.
    await waitFor(
      async () =>
        (await pool.query('SELECT 1 FROM frontier WHERE seed_id = $1', [ids[chosen.i]])).rowCount === 0 &&
        (await search(markOf(chosen.i))) === 0,
      { timeoutMs: 60_000, message: () => `the removed seed's URLs dropped and its pages out of search; ${say()}` },
    );
    assert.ok(pageLog(gone).length < PAGES, 'the removed site was not crawled to its end');
    await waitFor(async () => (await search(markOf((chosen.i + 1) % SITES))) > 0, {
      timeoutMs: 60_000,
      message: () => `another site searchable; ${say()}`,
    });
    for (const c of crawlers) assert.equal(await c.stop(), 0);
  } finally {
    for (const c of crawlers) c.cleanUp();
    server.killGroup();
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
    await web.close();
    await pool.end();
  }
});

test('a Retry-After seen by a node killed with kill -9 holds its group on the node that takes it over', {
  timeout: 300_000,
}, async (t) => {
  const RETRY_AFTER_S = 20;
  const HTML = { 'content-type': 'text/html; charset=utf-8' };
  let throttled = false;
  const web = await startTestWeb([
    {
      robots: 'User-agent: *\nAllow: /\n',
      pages: {
        '/': '<title>Home</title><a href="/a">a</a> <a href="/b">b</a> <a href="/c">c</a>',
        '/a': {
          handler: (_req, res) => {
            if (throttled) return void res.writeHead(200, HTML).end('<title>A</title><p>after the wait</p>');
            throttled = true;
            res.writeHead(429, { ...HTML, 'retry-after': String(RETRY_AFTER_S) }).end('<p>slow down</p>');
          },
        },
        '/b': '<title>B</title><p>b</p>',
        '/c': '<title>C</title><p>c</p>',
      },
    },
  ]);
  const site = web.sites[0]!;
  const group = new URL(site.origin).hostname;
  const { url, pool } = await database();
  const crawlers = await nodes(['node-1', 'node-2'], url, pool, KILL_ENV);
  const say = () => crawlers.map((c) => `${c.id}: ${c.stderr().slice(-800)}`).join('\n');
  try {
    await seed(pool, [site]);
    const told = await waitFor(() => site.log.find((r) => r.status === 429 && !Number.isNaN(r.end)), {
      timeoutMs: 120_000,
      message: () => `the site to answer 429; ${say()}`,
    });
    const holder = crawlers.find((c) => c.userAgent === told.userAgent)!;
    const taker = crawlers.find((c) => c !== holder)!;
    // The holder writes the backoff into the group's lease row at its next lease round (about a second): the
    // property under test, so the wait is bounded by a few rounds and fails saying so.
    const written = await waitFor(
      async () => {
        const r = await pool.query<{ owner: string | null; left: number | null }>(
          'SELECT owner, extract(epoch from (backoff_until - now())) * 1000 AS left FROM group_leases WHERE group_key = $1',
          [group],
        );
        const row = r.rows[0];
        return row !== undefined && row.owner === holder.id && row.left !== null && row.left > 0 && row;
      },
      {
        timeoutMs: 10_000,
        message: () =>
          `${holder.id} to write the Retry-After into ${group}'s lease row within a few lease rounds; ${say()}`,
      },
    );
    const writtenAt = performance.timeOrigin + performance.now();
    await holder.killHard(); // it releases nothing: the taker continues from what the lease row says
    const killedAt = performance.timeOrigin + performance.now();
    await everyUrlDone(pool, 4, say);
    const after429 = site.log.filter((r) => r.start > told.start);
    assert.ok(
      after429.every((r) => r.userAgent === taker.userAgent),
      'the killed node sent nothing more; the taker crawled on',
    );
    assert.ok(after429.length > 0, 'the taker crawled the rest of the site');
    const first = after429[0]!;
    assert.ok(
      first.start >= told.end + RETRY_AFTER_S * 1000,
      `the taker's first request (${first.path}) came ${Math.round(first.start - told.end)} ms after the 429 ended: not before its Retry-After of ${RETRY_AFTER_S} s (the holder was killed ${Math.round(killedAt - told.end)} ms after it)`,
    );
    t.diagnostic(
      `429 at +0; its backoff in the lease row by +${Math.round(writtenAt - told.end)} ms (${Math.round(Number(written.left))} ms left); holder killed at +${Math.round(killedAt - told.end)} ms; the taker's first request at +${Math.round(first.start - told.end)} ms (Retry-After ${RETRY_AFTER_S} s, lease ${KILL_ENV.CRAWL_LEASE_MS} ms)`,
    );
    assert.equal(await taker.stop(), 0);
  } finally {
    for (const c of crawlers) c.cleanUp();
    await web.close();
    await pool.end();
  }
});
