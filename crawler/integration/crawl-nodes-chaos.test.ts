/**
 * The chaos test of issue 29 ("Proof"): crawler nodes, each a separate `npm run crawl-node` process with its own node
 * id (and User-Agent, so each request in a site's log names its node), crawl 64 loopback sites on one throwaway
 * PostgreSQL, 16 of them names of two registrable domains (CRAWL_RESOLVE: twelve names of shared.test on three
 * addresses, four of other.test), so that several sites form one politeness group; each site asks for its delay.
 * During the crawl, in this order, each step waiting for an event, never for a guessed time:
 *  1. node-1 is killed with kill -9 while it holds groups;
 *  2. PostgreSQL is stopped at once (as a crash) and, once the live nodes said their statements fail, started again;
 *  3. a fourth node starts, more sites are seeded, and node-2 is paused whole (SIGSTOP of its primary, workers and
 *     crawl-node) the moment a site receives one of its page requests, that answer still to come; the fourth node
 *     joins (registers) while it is paused; once the
 *     database says every group node-2 held has been taken by another node at a new epoch (its leases expired),
 *     node-2 goes on (SIGCONT).
 * Asserted, from the sites' own request logs and the record: within every group (its sites' logs merged, across all
 * nodes) never two requests in flight and no gap below its delay (the next host's: docs/politeness.md); every page served is stored exactly once and
 * nothing queued is lost (every URL done); every stored page is an answer (by its stamp) to a node that held its
 * group then: none of node-2's answers from its pause on is stored unless it took that group again at a new epoch,
 * and the answer it was paused on is dropped by the fence (it says so); and once resumed, node-2 sends no request
 * for a group it lost, only for groups it holds again at a new epoch (the lease watch saw them): a job it had handed
 * a worker before the pause is not sent once the node goes on (FetchJob.sendBy; the diagnostic counts them).
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import os from 'node:os';
import type pg from 'pg';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { politenessGroup } from '../politeness/politeness-group.ts';
import { type CrawlNode, NODE_TEST_DELAY_MS, NODE_TEST_ENV, startCrawlNode } from '../../test-support/crawl-nodes.ts';
import { groupPoliteness } from '../../test-support/group-politeness.ts';
import { LeaseWatch } from '../../test-support/lease-watch.ts';
import { haltPostgres, restartPostgres } from '../../test-support/pg-restart.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { type ServedAnswer, ServedBook } from '../../test-support/served-stamps.ts';
import {
  generateSite,
  now,
  type SiteSpec,
  startNamedWeb,
  startTestWeb,
  type TestSite,
} from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';

const CRAWL_DELAY_MS = NODE_TEST_DELAY_MS;
const NODE_ENV = NODE_TEST_ENV;
/** Sites of one address each, seeded at the start and when node-2 is about to be paused. */
const PLAIN_FIRST = 32;
const PLAIN_LATER = 16;
const PLAIN_PAGES = 6;
/** shared.test: 12 names on 3 addresses, one group whose crawl alone takes ≥ 72 × 160 ms, so the crawl outlasts the chaos. */
const SHARED_NAMES = 'abcdefghijkl'.split('');
const SHARED_PAGES = 5;
const OTHER_NAMES = ['www', 'docs', 'blog', 'wiki'];
const OTHER_PAGES = 4;

let cluster: TestPostgres | undefined;
after(() => cluster?.stop());

/** A site of the test, its politeness group, the delay that group keeps, and whether it is seeded later. */
interface ChaosSite {
  /** Its label in the stamps (ServedAnswer.site). */
  label: string;
  site: TestSite;
  group: string;
  minGapMs: number;
  later: boolean;
}

/** The 64 sites, stamped by `book` (see the module comment). */
async function chaosWeb(book: ServedBook) {
  const plainDelay = (i: number) => 200 + 50 * (i % 3);
  const plain = await startTestWeb(
    Array.from({ length: PLAIN_FIRST + PLAIN_LATER }, (_, i) =>
      book.stamp(
        `plain${i}`,
        generateSite({
          pages: PLAIN_PAGES,
          prefix: `plain${i}`,
          delayMs: 10,
          robots: `User-agent: *\nCrawl-delay: ${plainDelay(i) / 1000}\nAllow: /\n`,
        }),
      ),
    ),
  );
  const named = (name: string, pages: number, robots: string): SiteSpec =>
    book.stamp(name, generateSite({ pages, prefix: name.replaceAll('.', ''), delayMs: 10, robots }));
  const sharedRobots = 'User-agent: *\nAllow: /\n';
  const otherRobots = 'User-agent: *\nCrawl-delay: 0.2\nAllow: /\n';
  const names = await startNamedWeb([
    ...[0, 1, 2].map((a) =>
      Object.fromEntries(
        SHARED_NAMES.slice(4 * a, 4 * a + 4).map((n) => [
          `${n}.shared.test`,
          named(`${n}.shared.test`, SHARED_PAGES, sharedRobots),
        ]),
      ),
    ),
    Object.fromEntries(OTHER_NAMES.map((n) => [`${n}.other.test`, named(`${n}.other.test`, OTHER_PAGES, otherRobots)])),
  ]);
  const sites: ChaosSite[] = [
    ...plain.sites.map((site, i) => ({
      label: `plain${i}`,
      site,
      group: politenessGroup(site.origin, 'domain'),
      minGapMs: Math.max(CRAWL_DELAY_MS, plainDelay(i)),
      later: i >= PLAIN_FIRST,
    })),
    ...names.sites.map((site) => ({
      label: site.host.replace(/:\d+$/, ''),
      site,
      group: politenessGroup(site.origin, 'domain'),
      minGapMs: site.host.includes('other.test') ? 200 : CRAWL_DELAY_MS,
      later: false,
    })),
  ];
  const close = async () => {
    await plain.close();
    await names.close();
  };
  return { sites, resolve: names.resolve, close };
}

/** The page URLs of every site (robots.txt aside): what must end up stored, each once. */
const pageCount =
  PLAIN_PAGES * (PLAIN_FIRST + PLAIN_LATER) + SHARED_PAGES * SHARED_NAMES.length + OTHER_PAGES * OTHER_NAMES.length;

/** Waits until `ids` are registered and alive in crawl_nodes. */
async function registered(pool: pg.Pool, nodes: readonly CrawlNode[]): Promise<void> {
  await waitFor(
    async () => {
      const r = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM crawl_nodes WHERE left_at IS NULL AND node_id = ANY ($1)',
        [nodes.map((x) => x.id)],
      );
      return r.rows[0]!.n === nodes.length;
    },
    {
      timeoutMs: 120_000,
      message: () => `crawler nodes to register; ${nodes.map((x) => `${x.id}: ${x.stderr().slice(-600)}`).join('\n')}`,
    },
  );
}

/** Adds each site's root as a seed of depth 1 (the nodes read the seeds by themselves). */
async function seed(pool: pg.Pool, sites: readonly ChaosSite[]): Promise<void> {
  const seeds = pgSeedStore(pool);
  for (const { site } of sites) {
    const u = new URL(site.url('/'));
    await seeds.upsertSeed({ url: u.href, origin: u.origin, depth: 1, scope: 'host' }, Date.now());
  }
}

/** URLs queued or leased now: the crawl is not over. */
async function unfinished(pool: pg.Pool): Promise<number> {
  const r = await pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM frontier WHERE state IN ('queued', 'leased')",
  );
  return r.rows[0]!.n;
}

/** The URLs not done, each with the lease row of its group (IP or last two labels): what a stuck crawl left. */
async function unfinishedRows(pool: pg.Pool): Promise<string> {
  const r = await pool.query(
    `SELECT f.url, f.state, f.lease_owner, f.attempts, g.group_key, g.owner, g.epoch, g.has_work, g.expires_at < now() AS expired
       FROM frontier f
       LEFT JOIN group_leases g ON g.group_key IN (split_part(split_part(f.origin, '//', 2), ':', 1),
                                                    substring(split_part(split_part(f.origin, '//', 2), ':', 1) from '[^.]+\\.[^.]+$'))
      WHERE f.state <> 'done' LIMIT 10`,
  );
  return JSON.stringify(r.rows);
}

/** The groups `node` holds now, with their epochs. */
async function groupsOf(pool: pg.Pool, node: string): Promise<Map<string, number>> {
  const r = await pool.query<{ group_key: string; epoch: number }>(
    'SELECT group_key, epoch::int AS epoch FROM group_leases WHERE owner = $1',
    [node],
  );
  return new Map(r.rows.map((x) => [x.group_key, x.epoch]));
}

test('chaos: kill -9, PostgreSQL restarted, a node paused past its lease, a node joining: polite per group, nothing lost, the paused node fenced', {
  timeout: 300_000,
}, async (t) => {
  const began = performance.now();
  const book = new ServedBook();
  const web = await chaosWeb(book);
  cluster = await startTestPostgres();
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 4 });
  await migratePg(pool);
  const env = { ...NODE_ENV, CRAWL_RESOLVE: web.resolve };
  const [n1, n2, n3] = ['node-1', 'node-2', 'node-3'].map((id) => startCrawlNode(id, url, env)) as [
    CrawlNode,
    CrawlNode,
    CrawlNode,
  ];
  const crawlers = [n1, n2, n3];
  const watch = new LeaseWatch(pool);
  const say = () => crawlers.map((c) => `${c.id}: ${c.stderr().slice(-700)}`).join('\n');
  try {
    await registered(pool, crawlers);
    await Promise.all(crawlers.map((c) => c.primaryPid()));
    await seed(
      pool,
      web.sites.filter((s) => !s.later),
    );

    // 1. kill -9 of node-1 while it holds groups and has fetched pages.
    const killedHeld = await waitFor(
      async () => {
        const fetched = book.answers.filter((a) => a.userAgent === n1.userAgent).length;
        const held = await groupsOf(pool, n1.id);
        return fetched >= 3 && held.size > 0 && held;
      },
      { timeoutMs: 120_000, message: () => `node-1 to hold groups and fetch pages; ${say()}` },
    );
    await n1.killHard();
    t.diagnostic(`node-1 killed holding ${killedHeld.size} group(s), ${Math.round(performance.now() - began)} ms in`);

    // 2. PostgreSQL stopped at once; the live nodes find out; started again; they work again.
    assert.ok((await unfinished(pool)) > 0, 'the crawl is under way when PostgreSQL stops');
    const live = [n2, n3];
    const heard = live.map((c) => c.stderr().length);
    watch.databaseDown = true;
    await haltPostgres(cluster);
    await waitFor(() => live.every((c, i) => /crawler: lease /.test(c.stderr().slice(heard[i]))), {
      timeoutMs: 30_000,
      message: () => `the live nodes to say their lease statements fail; ${say()}`,
    });
    await restartPostgres(cluster);
    let lastError = '';
    await waitFor(
      async () => {
        try {
          const r = await pool.query<{ n: number }>(
            'SELECT count(*)::int AS n FROM crawl_nodes WHERE node_id = ANY ($1) AND heartbeat_at > pg_postmaster_start_time()',
            [live.map((c) => c.id)],
          );
          return r.rows[0]!.n === live.length;
        } catch (err) {
          lastError = (err as Error).message; // the test's own pool reconnecting after the restart
          return false;
        }
      },
      { timeoutMs: 60_000, message: () => `the live nodes to heartbeat after the restart (${lastError}); ${say()}` },
    );
    watch.databaseDown = false;
    t.diagnostic(`PostgreSQL restarted, ${Math.round(performance.now() - began)} ms in`);

    // 3. A fourth node starts (it registers while node-2 is paused, so its start overlaps the pause); more sites;
    // node-2 paused the moment a site receives one of its page requests, its answer still to come.
    const n4 = startCrawlNode('node-4', url, env);
    crawlers.push(n4);
    let held: ServedAnswer | undefined;
    book.onServe((a) => {
      if (a.userAgent !== n2.userAgent) return;
      n2.pause();
      held = a;
      book.onServe(undefined);
    });
    await seed(
      pool,
      web.sites.filter((s) => s.later),
    );
    const pausedAnswer = await waitFor(() => held, {
      timeoutMs: 60_000,
      message: () => `node-2 to send a page request; ${say()}`,
    });
    const pausedAt = pausedAnswer.at;
    const atPause = new Map(
      (
        await pool.query<{ group_key: string; owner: string | null; epoch: number }>(
          'SELECT group_key, owner, epoch::int AS epoch FROM group_leases',
        )
      ).rows.map((r) => [r.group_key, r]),
    );
    const pausedGroups = [...atPause.values()].filter((r) => r.owner === n2.id);
    const heldGroup = web.sites.find((s) => s.label === pausedAnswer.site)!.group;
    const heldEpoch = atPause.get(heldGroup)?.epoch;
    assert.equal(
      atPause.get(heldGroup)?.owner,
      n2.id,
      `node-2 held ${heldGroup}, whose page it asked for, when paused`,
    );
    await registered(pool, [n4]);
    // Longer than the lease: until the database says each group node-2 held was taken by another node at a new epoch.
    await waitFor(
      async () => {
        const r = await pool.query<{ group_key: string; owner: string | null; epoch: number; idle: boolean }>(
          'SELECT group_key, owner, epoch::int AS epoch, (NOT has_work AND expires_at < now()) AS idle FROM group_leases WHERE group_key = ANY ($1)',
          [pausedGroups.map((g) => g.group_key)],
        );
        return r.rows.every(
          (x) =>
            (x.owner !== n2.id && x.epoch > atPause.get(x.group_key)!.epoch) || (x.idle && x.group_key !== heldGroup),
        );
      },
      { timeoutMs: 60_000, message: () => `node-2's ${pausedGroups.length} group(s) to be taken by others; ${say()}` },
    );
    const resumedAt = now();
    t.diagnostic(
      `node-2 paused ${Math.round(resumedAt - pausedAt)} ms holding ${pausedGroups.length} group(s) (lease ${NODE_ENV.CRAWL_LEASE_MS} ms)`,
    );
    n2.resume();

    // The crawl ends by itself: every page stored, nothing queued or leased.
    let reading = '';
    let stuck = '';
    await waitFor(
      async () => {
        const states = await pool.query<{ state: string; n: number }>(
          'SELECT state, count(*)::int AS n FROM frontier GROUP BY state ORDER BY state',
        );
        reading = JSON.stringify(states.rows);
        const over = states.rows.length === 1 && states.rows[0]!.state === 'done' && states.rows[0]!.n === pageCount;
        if (!over) stuck = await unfinishedRows(pool);
        return over;
      },
      {
        timeoutMs: 60_000,
        limitMs: 240_000,
        progress: () => reading,
        message: () => `every URL done (${reading}; not done: ${stuck}); ${say()}`,
      },
    );
    const exits = await Promise.all([n2, n3, n4].map((c) => c.stop()));
    assert.deepEqual(exits, [0, 0, 0], 'the nodes left stop cleanly on SIGTERM');
    await watch.stop();
    assert.deepEqual(watch.faults, [], 'the lease watch read the database whenever it was up');

    // Politeness per group, across all nodes (docs/politeness.md: the next host's delay after the group's last request).
    const groups = new Map<string, ChaosSite[]>();
    for (const s of web.sites) groups.set(s.group, [...(groups.get(s.group) ?? []), s]);
    for (const [group, members] of groups) {
      const report = groupPoliteness(
        members.map((m) => ({ label: m.label, log: m.site.log, minGapMs: m.minGapMs })),
        CRAWL_DELAY_MS,
      );
      assert.equal(report.maxInFlight, 1, `${group}: never two requests in flight, whichever node sent them`);
      assert.deepEqual(report.violations, [], `${group}: no gap below the delay across nodes`);
    }

    // Every page stored exactly once, each an answer to a node that held its group then.
    const stored = await pool.query<{ url: string; body: string }>('SELECT url, body FROM pages');
    const want = web.sites.flatMap((s) =>
      Array.from(
        {
          length: s.site.host.includes('shared.test')
            ? SHARED_PAGES
            : s.site.host.includes('other.test')
              ? OTHER_PAGES
              : PLAIN_PAGES,
        },
        (_, i) => s.site.url(i === 0 ? '/' : `/p/${i}`),
      ),
    );
    assert.deepEqual(stored.rows.map((r) => r.url).sort(), want.sort(), 'every page served is stored exactly once');
    const wrongly: string[] = [];
    for (const row of stored.rows) {
      const a = book.answerOf(row.body);
      assert.ok(a !== undefined, `${row.url}: stored with its answer's stamp`);
      if (a.serial === pausedAnswer.serial) wrongly.push(`${row.url}: the answer node-2 was paused on`);
      const group = web.sites.find((s) => new URL(row.url).origin === s.site.origin)!.group;
      if (
        a.userAgent === n2.userAgent &&
        a.at >= pausedAt &&
        !watch.heldAgain(group, n2.id, atPause.get(group)?.epoch ?? -1)
      )
        wrongly.push(`${row.url}: answered to node-2 after its pause, for a group it did not take again`);
    }
    assert.deepEqual(wrongly, [], 'node-2 wrote no result for a group it lost');
    assert.match(
      n2.stderr(),
      new RegExp(
        `node node-2 lost the lease of group ${heldGroup.replaceAll('.', '\\.')} \\(epoch ${heldEpoch}\\); \\d+ write\\(s\\) of its results dropped`,
      ),
      'the fence dropped the result of the request node-2 was paused on',
    );

    // Once resumed, node-2 asks only for groups it took again at a new epoch. (A request that reached a site between
    // the pause and SIGCONT was sent before the pause, under its lease: the kernel held it while the site was busy.)
    const after2 = web.sites.flatMap((s) =>
      s.site.log.filter((r) => r.userAgent === n2.userAgent && r.start >= resumedAt).map((r) => ({ s, r })),
    );
    const lost = after2
      .filter(({ s }) => !watch.heldAgain(s.group, n2.id, atPause.get(s.group)?.epoch ?? -1))
      .map(({ s, r }) => `${s.site.host}${r.path} at +${Math.round(r.start - resumedAt)} ms`);
    assert.deepEqual(lost, [], 'node-2, resumed, sends no request for a group it lost');
    const retaken = new Set(after2.map(({ s }) => s.group));
    t.diagnostic(
      `chaos test: ${pageCount} pages, ${web.sites.length} sites, ${groups.size} groups in ${Math.round(performance.now() - began)} ms; node-2 after SIGCONT: ${after2.length} request(s) in ${retaken.size} group(s) taken again, ${n2.stderr().split(' not sent: its send limit passed').length - 1} job(s) its workers did not send (their send limit had passed); load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await watch.stop();
    for (const c of crawlers) c.cleanUp();
    await web.close();
    await pool.end();
  }
});
