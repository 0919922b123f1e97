/**
 * The crawler's storage contract, as one suite of tests that every engine's AsyncCrawlStore must pass
 * (called by db/crawl-store-contract.test.ts with SQLite and db/pg/pg-crawl-store.test.ts with PostgreSQL):
 * what the frontier, hosts, pages, link targets, revisits, sitemap jobs, seeds' host counts and the stop mark
 * answer and leave, on a fresh database per test. Writes run in the store's transactions (as the primary
 * writes its batches) unless a test says otherwise; row ids are compared by their order, not their values
 * (PostgreSQL's identities skip the ids of inserts that met a known row).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AsyncCrawlModules, AsyncCrawlStore } from './async-crawl-store.ts';
import { newHostRow } from './hosts.ts';
import type { PageRecord } from './pages.ts';
import type { FrontierRow } from './frontier.ts';
import { storageErrorDetail } from './storage-error.ts';

/** A fresh database of one engine, with its store and plain SQL to look at what it left. */
export interface CrawlContractFixture {
  store: AsyncCrawlStore;
  /** Rows of one SQL statement without parameters (literal values only: both engines take it). */
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

const T0 = 1_700_000_000_000;
const O = 'https://example.org';
const O2 = 'https://other.example.org';
const O3 = 'https://third.example.org';
const U = (path: string, origin = O) => `${origin}/${path}`;
const byKey = <T>(rows: T[], key: (r: T) => string) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));

/** A page record as the crawler hands it over. */
function page(url: string, seedId: number | null, extra: Partial<PageRecord> = {}): PageRecord {
  return {
    url,
    finalUrl: url,
    origin: new URL(url).origin,
    host: new URL(url).host,
    seedId,
    status: 200,
    contentType: 'text/html',
    title: 'Title',
    description: 'About it',
    headings: ['One', 'Two'],
    body: 'The body text',
    lang: 'en',
    canonical: null,
    fetchedAt: T0,
    etag: null,
    lastModified: null,
    contentHash: 'h1',
    noindex: false,
    nofollow: false,
    noarchive: false,
    nosnippet: false,
    indexed: true,
    ...extra,
  };
}

/** Registers the contract's tests, each on a fixture `open` makes (and closes). */
export function crawlStoreContract(engine: string, open: () => Promise<CrawlContractFixture>): void {
  const withStore = (name: string, body: (f: CrawlContractFixture, s: AsyncCrawlStore) => Promise<void>) =>
    test(`${engine}: ${name}`, async () => {
      const f = await open();
      try {
        await body(f, f.store);
      } finally {
        await f.close();
      }
    });
  const seed = async (s: AsyncCrawlStore, path: string, origin = O) =>
    (await s.seeds.upsertSeed({ url: U(path, origin), origin, depth: 3, scope: 'host' }, T0)).seed.id;
  /** Adds URLs in one transaction, answering their rows by path. */
  const add = async (s: AsyncCrawlStore, seedId: number, paths: string[], depth = 1, origin = O) => {
    const out: Record<string, FrontierRow> = {};
    await s.transaction(async (tx) => {
      for (const p of paths) {
        const row = await tx.frontier.addUrl({ url: U(p, origin), origin, seedId, depth, redirects: 0 }, T0);
        assert.ok(row !== undefined, `${p} is new`);
        out[p] = row;
      }
    });
    return out;
  };
  const one = async (f: CrawlContractFixture, sql: string) => (await f.rows(sql))[0];
  const write = (s: AsyncCrawlStore, w: (tx: AsyncCrawlModules) => Promise<unknown>) =>
    s.transaction(async (tx) => void (await w(tx)));

  withStore(
    "addUrl answers a new URL's row; a known one gains an inlink; touchUrl says whether it knew",
    async (f, s) => {
      const a = await seed(s, 'a');
      let first: FrontierRow | undefined;
      let again: FrontierRow | undefined = {} as FrontierRow;
      await s.transaction(async (tx) => {
        first = await tx.frontier.addUrl({ url: U('1'), origin: O, seedId: a, depth: 1, redirects: 2 }, T0);
        again = await tx.frontier.addUrl({ url: U('1'), origin: O, seedId: a, depth: 0, redirects: 0 }, T0 + 5);
      });
      assert.ok(first !== undefined);
      assert.deepEqual(
        { ...first, id: 0 },
        {
          id: 0,
          url: U('1'),
          origin: O,
          seedId: a,
          depth: 1,
          attempts: 0,
          nextAttemptAt: 0,
          redirects: 2,
          finishedBefore: 0,
        },
      );
      assert.equal(again, undefined);
      assert.equal(await s.frontier.touchUrl(U('1')), true);
      assert.equal(await s.frontier.touchUrl(U('unknown')), false);
      assert.deepEqual(await one(f, `SELECT inlinks, depth, discovered_at FROM frontier WHERE url = '${U('1')}'`), {
        inlinks: 2,
        depth: 1,
        discovered_at: T0,
      });
    },
  );

  withStore(
    'queuedAfter reads a host in queue order: due at once by id, then retries by time, from any position',
    async (_f, s) => {
      const a = await seed(s, 'a');
      const r = await add(s, a, ['1', '2', '3', '4', '5']);
      await add(s, a, ['x'], 1, O2);
      await write(s, async (tx) => {
        await tx.frontier.retryUrl(r['2']!.id, 1, T0 + 500, 'timeout');
        await tx.frontier.retryUrl(r['4']!.id, 2, T0 + 100, 'HTTP 503');
      });
      const urls = (rows: FrontierRow[]) => rows.map((x) => x.url.slice(O.length + 1));
      assert.deepEqual(urls(await s.frontier.queuedAfter(O, -1, 0, 10)), ['1', '3', '5', '4', '2']);
      assert.deepEqual(urls(await s.frontier.queuedAfter(O, 0, r['1']!.id, 2)), ['3', '5']);
      assert.deepEqual(urls(await s.frontier.queuedAfter(O, 0, r['5']!.id, 10)), ['4', '2']);
      assert.deepEqual(urls(await s.frontier.queuedAfter(O, T0 + 100, r['4']!.id, 10)), ['2']);
      const retried = (await s.frontier.queuedAfter(O, T0 + 100, 0, 1))[0];
      assert.deepEqual([retried?.attempts, retried?.nextAttemptAt], [2, T0 + 100]);
      assert.equal(await s.frontier.queuedCount(O), 5);
      await write(s, (tx) => tx.frontier.leaseUrl(r['1']!.id, 'run-1', T0 + 1));
      assert.equal(await s.frontier.queuedCount(O), 4);
      assert.deepEqual(urls(await s.frontier.queuedAfter(O, -1, 0, 2)), ['3', '5']);
      assert.equal(await s.frontier.queuedCount('https://none.example'), 0);
    },
  );

  withStore(
    'leases: taken with owner and time, one returned, the rest returned at start, finished ones kept',
    async (f, s) => {
      const a = await seed(s, 'a');
      const r = await add(s, a, ['1', '2', '3', '4']);
      await write(s, async (tx) => {
        for (const p of ['1', '2', '3']) await tx.frontier.leaseUrl(r[p]!.id, 'run-1', T0 + 7);
        await tx.frontier.finishUrl(r['2']!.id, 'done', null, T0 + 8);
        await tx.frontier.returnLease(r['2']!.id); // finished: stays done
        await tx.frontier.returnLease(r['1']!.id);
      });
      assert.deepEqual(await one(f, `SELECT state, lease_owner, leased_at FROM frontier WHERE id = ${r['3']!.id}`), {
        state: 'leased',
        lease_owner: 'run-1',
        leased_at: T0 + 7,
      });
      assert.deepEqual(await one(f, `SELECT state, lease_owner, leased_at FROM frontier WHERE id = ${r['1']!.id}`), {
        state: 'queued',
        lease_owner: null,
        leased_at: null,
      });
      assert.equal(await s.frontier.returnAllLeases(), 1);
      assert.equal(await s.frontier.returnAllLeases(), 0);
      assert.deepEqual(
        byKey(await s.frontier.countsByOrigin(), (c) => c.state),
        [
          { origin: O, state: 'done', n: 1 },
          { origin: O, state: 'queued', n: 3 },
        ],
      );
    },
  );

  withStore(
    'finishing counts attempts as asked; a redirect keeps its target; a loop fails only a done redirect',
    async (f, s) => {
      const a = await seed(s, 'a');
      const r = await add(s, a, ['1', '2', '3', '4']);
      await write(s, async (tx) => {
        await tx.frontier.finishUrl(r['1']!.id, 'failed', 'timeout', T0 + 1);
        await tx.frontier.finishUrl(r['2']!.id, 'skipped', 'robots.txt', T0 + 2, false);
        await tx.frontier.finishRedirect(r['3']!.id, U('target'), 'redirect 301', T0 + 3);
        await tx.frontier.finishRedirect(r['4']!.id, U('4'), 'redirect loop', T0 + 4, 'failed');
      });
      const state = (id: number) =>
        one(f, `SELECT state, attempts, last_error, finished_at, redirect_to FROM frontier WHERE id = ${id}`);
      assert.deepEqual(await state(r['1']!.id), {
        state: 'failed',
        attempts: 1,
        last_error: 'timeout',
        finished_at: T0 + 1,
        redirect_to: null,
      });
      assert.deepEqual(await state(r['2']!.id), {
        state: 'skipped',
        attempts: 0,
        last_error: 'robots.txt',
        finished_at: T0 + 2,
        redirect_to: null,
      });
      assert.equal(await s.frontier.redirectTarget(U('3')), U('target'));
      assert.equal(await s.frontier.redirectTarget(U('1')), undefined);
      await write(s, async (tx) => {
        await tx.frontier.failRedirectLoop(U('3'), 'redirect loop via target');
        await tx.frontier.failRedirectLoop(U('1'), 'not a redirect'); // failed, no target: untouched
      });
      assert.deepEqual(await state(r['3']!.id), {
        state: 'failed',
        attempts: 1,
        last_error: 'redirect loop via target',
        finished_at: T0 + 3,
        redirect_to: U('target'),
      });
      assert.equal((await state(r['1']!.id))?.last_error, 'timeout');
      const got = await s.frontier.urlByUrl(U('4'));
      assert.deepEqual(
        { ...got, id: 0 },
        {
          id: 0,
          url: U('4'),
          origin: O,
          seedId: a,
          depth: 1,
          attempts: 1,
          nextAttemptAt: 0,
          redirects: 0,
          finishedBefore: 1,
          state: 'failed',
        },
      );
      assert.equal(await s.frontier.urlByUrl(U('none')), undefined);
    },
  );

  withStore(
    "a seed's finished URLs are queued again chunk by chunk, by state, within its depth, afresh",
    async (f, s) => {
      const a = await seed(s, 'a');
      const b = await seed(s, 'b');
      const r = {
        ...(await add(s, a, ['d1', 'd2', 'f1', 'k1'], 1)),
        ...(await add(s, a, ['deep'], 3)),
        ...(await add(s, a, ['q'], 0)),
      };
      await write(s, async (tx) => {
        for (const p of ['d1', 'd2', 'deep']) await tx.frontier.finishUrl(r[p]!.id, 'done', null, T0 + 1);
        await tx.frontier.finishRedirect(r.d2!.id, U('elsewhere'), 'redirect 302', T0 + 1);
        await tx.frontier.finishUrl(r.f1!.id, 'failed', 'timeout', T0 + 1);
        await tx.frontier.finishUrl(r.k1!.id, 'skipped', 'robots.txt', T0 + 1);
      });
      assert.equal(await s.frontier.hasFinishedUrls(a, 0), false, 'its only URL at depth 0 is queued');
      assert.equal(await s.frontier.hasFinishedUrls(a, 1), true);
      assert.equal(await s.frontier.hasFinishedUrls(b, 5), false);
      const chunks: string[][] = [];
      await s.transaction(async (tx) => {
        const one = await tx.frontier.requeueSeedChunk(a, 2, 'done', 0, 1);
        chunks.push(
          one.map((x) => x.url),
          (await tx.frontier.requeueSeedChunk(a, 2, 'done', one[0]!.id, 10)).map((x) => x.url),
        );
        const failed = await tx.frontier.requeueSeedChunk(a, 2, 'failed', 0, 10);
        chunks.push(failed.map((x) => x.url));
        assert.deepEqual([failed[0]?.attempts, failed[0]?.nextAttemptAt, failed[0]?.finishedBefore], [0, 0, 1]);
      });
      assert.deepEqual(chunks, [[U('d1')], [U('d2')], [U('f1')]]);
      assert.deepEqual(await one(f, `SELECT state, last_error, redirect_to FROM frontier WHERE id = ${r.d2!.id}`), {
        state: 'queued',
        last_error: null,
        redirect_to: null,
      });
      let moved: FrontierRow | undefined;
      let notFinished: FrontierRow | undefined = {} as FrontierRow;
      await s.transaction(async (tx) => {
        moved = await tx.frontier.requeueUrl(U('deep'), 1, b);
        notFinished = await tx.frontier.requeueUrl(U('q'), 1, b);
      });
      assert.deepEqual([moved?.depth, moved?.seedId, moved?.finishedBefore], [1, b, 1]);
      assert.equal(notFinished, undefined);
      const once = await s.frontier.requeueFinished(r.k1!.id);
      assert.deepEqual([once?.url, once?.depth, once?.seedId, once?.nextAttemptAt], [U('k1'), 1, a, 0]);
      assert.equal(await s.frontier.requeueFinished(r.k1!.id), undefined, 'queued now');
      await write(s, (tx) => tx.frontier.finishUrl(r.k1!.id, 'done', null, T0 + 9));
      assert.equal((await s.frontier.requeueFinishedAt(r.k1!.id, T0 + 999))?.nextAttemptAt, T0 + 999);
    },
  );

  withStore(
    "a removed seed's URLs are dropped chunk by chunk, then the seed, unless a page of it is left",
    async (_f, s) => {
      const a = await seed(s, 'a');
      const keep = await seed(s, 'keep');
      const r = await add(s, a, ['1', '2', '3', '4', '5']);
      await add(s, keep, ['k']);
      await write(s, async (tx) => {
        await tx.frontier.leaseUrl(r['2']!.id, 'run-1', T0);
        await tx.frontier.retryUrl(r['3']!.id, 1, T0 + 50, 'timeout');
      });
      assert.deepEqual(await s.seeds.markSeedRemoved(a, T0 + 1), { id: a, url: U('a') });
      assert.equal(await s.seeds.markSeedRemoved(a, T0 + 2), undefined);
      assert.equal(await s.seeds.isRemoved(a), true);
      const dropped: Array<{ id: number; origin: string; state: string; nextAttemptAt: number }> = [];
      const sizes: number[] = [];
      await s.transaction(async (tx) => {
        for (const limit of [2, 10, 10]) {
          const chunk = await tx.frontier.dropSeedChunk(a, limit);
          sizes.push(chunk.length);
          dropped.push(...chunk);
        }
      });
      assert.deepEqual(sizes, [2, 3, 0]);
      assert.deepEqual(
        [...dropped].sort((x, y) => x.id - y.id),
        ['1', '2', '3', '4', '5'].map((p) => ({
          id: r[p]!.id,
          origin: O,
          state: p === '2' ? 'leased' : 'queued',
          nextAttemptAt: p === '3' ? T0 + 50 : 0,
        })),
      );
      await s.transaction(async (tx) => {
        await tx.pages.upsertPage(page(U('p'), a));
        await tx.seeds.deleteRemovedSeed(a);
      });
      assert.equal(await s.seeds.isRemoved(a), true, 'a page of it is left');
      assert.equal(await s.pages.retireSeedPages(a, 10), 1);
      await write(s, (tx) => tx.seeds.deleteRemovedSeed(a));
      assert.equal(await s.seeds.getSeed(a), undefined);
      assert.equal(await s.seeds.isRemoved(a), false);
      assert.equal((await s.seeds.getSeed(keep))?.found, 1);
    },
  );

  withStore(
    "counts by host, by seed and host, by host and state; each seed's crawl for the refresh rule",
    async (_f, s) => {
      const a = await seed(s, 'a');
      const b = await seed(s, 'b', O2);
      const c = await seed(s, 'c');
      const d = await seed(s, 'd', O3);
      const r = await add(s, a, ['a', '1', '2']);
      await add(s, a, ['3'], 1, O2);
      const rb = await add(s, b, ['b', '4'], 1, O2);
      const rd = await add(s, d, ['only'], 1, O3);
      await write(s, async (tx) => {
        await tx.frontier.leaseUrl(rd.only!.id, 'run', T0); // leased, nothing queued: still pending
        await tx.frontier.finishUrl(r.a!.id, 'done', null, T0 + 10);
        await tx.frontier.finishUrl(r['1']!.id, 'failed', 'x', T0 + 11);
        await tx.frontier.finishUrl(rb.b!.id, 'done', null, T0 + 12);
        await tx.frontier.finishUrl(rb['4']!.id, 'done', null, T0 + 13);
        await tx.frontier.leaseUrl(r['2']!.id, 'run', T0);
      });
      assert.deepEqual(
        byKey(await s.frontier.urlCountsByOrigin(), (x) => x.origin),
        [
          { origin: O, n: 3 },
          { origin: O2, n: 3 },
          { origin: O3, n: 1 },
        ],
      );
      assert.deepEqual(
        byKey(await s.frontier.urlCountsBySeedAndOrigin(), (x) => `${x.seedId} ${x.origin}`),
        byKey(
          [
            { seedId: a, origin: O, n: 3 },
            { seedId: a, origin: O2, n: 1 },
            { seedId: b, origin: O2, n: 2 },
            { seedId: d, origin: O3, n: 1 },
          ],
          (x) => `${x.seedId} ${x.origin}`,
        ),
      );
      assert.deepEqual(
        byKey(await s.frontier.countsByOrigin(), (x) => `${x.origin} ${x.state}`),
        [
          { origin: O, state: 'done', n: 1 },
          { origin: O, state: 'failed', n: 1 },
          { origin: O, state: 'leased', n: 1 },
          { origin: O2, state: 'done', n: 2 },
          { origin: O2, state: 'queued', n: 1 },
          { origin: O3, state: 'leased', n: 1 },
        ],
      );
      assert.deepEqual(
        [...(await s.frontier.seedCrawls())].sort((x, y) => x.seedId - y.seedId),
        [
          { seedId: a, origin: O, lastFetchedAt: T0 + 10, pending: true },
          { seedId: b, origin: O2, lastFetchedAt: T0 + 12, pending: false },
          { seedId: c, origin: O, lastFetchedAt: null, pending: false },
          { seedId: d, origin: O3, lastFetchedAt: null, pending: true },
        ],
      );
    },
  );

  withStore(
    'hosts round trip, clocks and robots rules included; saveHost leaves the robots file to saveRobotsFile',
    async (f, s) => {
      const h = {
        ...newHostRow(O, 'example.org'),
        robotsStatus: 'ok' as const,
        robotsHttpStatus: 200,
        robotsEtag: '"r1"',
        robotsLastModified: 'Mon, 01 Jan 2024 00:00:00 GMT',
        robotsRules: '{"groups":[]}',
        robotsFetchedAt: T0,
        robotsExpiresAt: T0 + 86_400_000,
        crawlDelayMs: 1500,
        backoffMs: 4000,
        backoffUntil: T0 + 4000,
        backoffReason: 'HTTP 503',
        consecutiveErrors: 2,
        lastRequestStart: T0 + 1,
        lastRequestEnd: T0 + 2,
        fetchedCount: 10,
        errorCount: 3,
        lastError: 'timeout',
      };
      const fresh = newHostRow(O2, 'other.example.org');
      await write(s, async (tx) => {
        await tx.hosts.saveHost(h, T0);
        await tx.hosts.saveHost(fresh, T0);
      });
      assert.deepEqual(
        byKey(await s.hosts.allHosts(), (x) => x.origin),
        [h, fresh],
      );
      const later = {
        ...h,
        robotsRules: '{"changed":true}',
        robotsBody: 'User-agent: *',
        fetchedCount: 11,
        backoffMs: 0,
        lastError: null,
      };
      await write(s, (tx) => tx.hosts.saveHost(later, T0 + 5));
      const [saved] = await s.hosts.allHosts().then((all) => all.filter((x) => x.origin === O));
      assert.deepEqual(saved, { ...later, robotsRules: h.robotsRules, robotsBody: null });
      await write(s, (tx) => tx.hosts.saveRobotsFile(O, null, '{"new":1}'));
      assert.equal((await s.hosts.allHosts()).find((x) => x.origin === O)?.robotsRules, '{"new":1}');
      assert.deepEqual(await one(f, `SELECT updated_at FROM hosts WHERE origin = '${O}'`), { updated_at: T0 + 5 });
    },
  );

  withStore(
    'sitemap jobs: pending in the order queued, a job queued again moves last, none for a gone seed; validators',
    async (_f, s) => {
      const a = await seed(s, 'a');
      const job = (p: string, hops: number, seedId = a) => ({ url: U(p), origin: O, seedId, hops, redirects: 0 });
      await write(s, async (tx) => {
        await tx.sitemapJobs.rememberSitemapJob(job('s1.xml', 0));
        await tx.sitemapJobs.rememberSitemapJob(job('s2.xml', 1));
        await tx.sitemapJobs.rememberSitemapJob(job('s3.xml', 1));
        await tx.sitemapJobs.rememberSitemapJob(job('s1.xml', 2));
        await tx.sitemapJobs.rememberSitemapJob(job('s2.xml', 5, a + 1000)); // no such seed: s2 stays as it was
        await tx.sitemapJobs.rememberSitemapJob(job('s4.xml', 5, a + 1000));
        await tx.sitemapJobs.forgetSitemapJob(U('s3.xml'));
      });
      assert.deepEqual(await s.sitemapJobs.pendingSitemapJobs(), [job('s2.xml', 1), job('s1.xml', 2)]);
      assert.equal(await s.sitemapJobs.sitemapValidators(U('s1.xml')), undefined);
      const index = { etag: '"v1"', lastModified: null, children: [U('a.xml'), U('b.xml')] };
      await write(s, async (tx) => {
        await tx.sitemapJobs.rememberSitemapValidators(U('s1.xml'), index);
        await tx.sitemapJobs.rememberSitemapValidators(U('s2.xml'), {
          etag: null,
          lastModified: 'Tue',
          children: null,
        });
      });
      assert.deepEqual(await s.sitemapJobs.sitemapValidators(U('s1.xml')), index);
      assert.deepEqual(await s.sitemapJobs.sitemapValidators(U('s2.xml')), {
        etag: null,
        lastModified: 'Tue',
        children: null,
      });
      await write(s, async (tx) => {
        await tx.sitemapJobs.rememberSitemapValidators(U('s1.xml'), {
          etag: '"v2"',
          lastModified: null,
          children: null,
        });
        await tx.sitemapJobs.rememberSitemapValidators(U('s2.xml'), { etag: null, lastModified: null, children: [] });
      });
      assert.deepEqual(await s.sitemapJobs.sitemapValidators(U('s1.xml')), {
        etag: '"v2"',
        lastModified: null,
        children: null,
      });
      assert.equal(await s.sitemapJobs.sitemapValidators(U('s2.xml')), undefined, 'neither validator: forgotten');
    },
  );

  withStore(
    "revisits: a page's state round trip, lastmod and check noted, a seed's refresh candidates",
    async (_f, s) => {
      const a = await seed(s, 'a');
      const r = { ...(await add(s, a, ['1', '2', '3'])), ...(await add(s, a, ['deep'], 3)) };
      const st = {
        intervalMs: 86_400_000,
        checkedAt: T0,
        visitedAt: T0,
        contentHash: 'h1',
        changedCount: 1,
        unchangedCount: 0,
        sitemapLastmod: null,
      };
      await write(s, async (tx) => {
        for (const p of ['1', '2', 'deep']) await tx.frontier.finishUrl(r[p]!.id, 'done', null, T0);
        await tx.revisits.saveRevisit(U('1'), st);
        await tx.revisits.saveRevisit(U('2'), { ...st, contentHash: null });
        await tx.revisits.saveRevisit(U('2'), { ...st, intervalMs: 1000, unchangedCount: 4 });
        await tx.revisits.noteSitemapLastmod(U('1'), T0 - 5);
        await tx.revisits.markChecked(U('1'), T0 + 9);
        await tx.revisits.markChecked(U('nothing'), T0 + 9);
      });
      assert.equal(await s.revisits.revisitOf(U('3')), undefined);
      assert.deepEqual(await s.revisits.revisitOf(U('1')), { ...st, sitemapLastmod: T0 - 5, checkedAt: T0 + 9 });
      assert.deepEqual(await s.revisits.revisitOf(U('2')), { ...st, intervalMs: 1000, unchangedCount: 4 });
      const candidates = [...(await s.revisits.refreshCandidates(a, 2))].sort((x, y) => x.id - y.id);
      assert.deepEqual(candidates, [
        { id: r['1']!.id, url: U('1'), state: { ...st, sitemapLastmod: T0 - 5, checkedAt: T0 + 9 } },
        { id: r['2']!.id, url: U('2'), state: { ...st, intervalMs: 1000, unchangedCount: 4 } },
      ]);
      await write(s, (tx) => tx.frontier.finishUrl(r['3']!.id, 'failed', 'x', T0));
      assert.deepEqual(
        (await s.revisits.refreshCandidates(a, 1)).find((c) => c.id === r['3']!.id),
        { id: r['3']!.id, url: U('3'), state: undefined },
      );
    },
  );

  withStore(
    'the stop mark: clean at first, unclean while running with its contact time, clean at the last batch',
    async (_f, s) => {
      assert.deepEqual(await s.stops.lastStop(), { clean: true, contactedBy: null });
      await write(s, (tx) => tx.stops.markRunning(T0));
      assert.deepEqual(await s.stops.lastStop(), { clean: false, contactedBy: T0 });
      await write(s, (tx) => tx.stops.markCleanStop());
      assert.deepEqual(await s.stops.lastStop(), { clean: true, contactedBy: T0 });
      await write(s, (tx) => tx.stops.markRunning(null));
      assert.deepEqual(await s.stops.lastStop(), { clean: false, contactedBy: null });
    },
  );

  withStore("seeds' host counts: written whole, none for a gone seed, forgotten with the seed", async (_f, s) => {
    const a = await seed(s, 'a');
    const b = await seed(s, 'b');
    const row = (seedId: number, hosts: number) => ({
      seedId,
      hosts,
      refused: 2,
      refusedExample: 'x.example',
      refusedAt: T0,
    });
    await write(s, async (tx) => {
      await tx.seedHosts.saveSeedHosts(row(a, 1));
      await tx.seedHosts.saveSeedHosts(row(a, 3));
      await tx.seedHosts.saveSeedHosts({ seedId: b, hosts: 1, refused: 0, refusedExample: null, refusedAt: null });
      await tx.seedHosts.saveSeedHosts(row(b + 1000, 1));
    });
    assert.deepEqual(
      [...(await s.seedHosts.allSeedHosts())].sort((x, y) => x.seedId - y.seedId),
      [row(a, 3), { seedId: b, hosts: 1, refused: 0, refusedExample: null, refusedAt: null }],
    );
    await write(s, (tx) => tx.seedHosts.forgetSeedHosts(a));
    assert.deepEqual(
      (await s.seedHosts.allSeedHosts()).map((x) => x.seedId),
      [b],
    );
  });

  withStore('seeds changed since a time, in order of change; a removed seed submitted again is new', async (_f, s) => {
    const a = await seed(s, 'a');
    const b = (await s.seeds.upsertSeed({ url: U('b'), origin: O, depth: 0, scope: 'path' }, T0 + 5)).seed.id;
    await s.seeds.markSeedRemoved(a, T0 + 9);
    assert.deepEqual(await s.seeds.seedsChangedSince(T0 + 5), [
      { id: b, url: U('b'), origin: O, depth: 0, scope: 'path', updatedAt: T0 + 5, removedAt: null },
      { id: a, url: U('a'), origin: O, depth: 3, scope: 'host', updatedAt: T0 + 9, removedAt: T0 + 9 },
    ]);
    const back = await s.seeds.upsertSeed({ url: U('a'), origin: O, depth: 1, scope: 'domain', title: 'A' }, T0 + 20);
    assert.deepEqual([back.created, back.seed.id, back.seed.title, back.seed.state], [true, a, 'A', 'crawling']);
    assert.deepEqual(
      (await s.seeds.seedsChangedSince(T0 + 10)).map((x) => [x.id, x.removedAt]),
      [[a, null]],
    );
  });

  withStore('pages: stored cleaned, fetched again in place, current, gone, validators, counted', async (f, s) => {
    const a = await seed(s, 'a');
    let id = 0;
    let again = 0;
    await s.transaction(async (tx) => {
      id = await tx.pages.upsertPage(
        page(U('p'), a, { title: 'Ti\u0001tle', headings: [' One\n', '', 'Two'], etag: '"e1"' }),
      );
      await tx.pages.upsertPage(page(U('q'), a, { indexed: false, status: 200, lastModified: 'Mon' }));
    });
    const got = await s.pages.getPage(U('p'));
    assert.ok(got !== undefined);
    assert.deepEqual(
      { ...got, seq: 0 },
      {
        id,
        seq: 0,
        url: U('p'),
        finalUrl: U('p'),
        origin: O,
        host: 'example.org',
        seedId: a,
        status: 200,
        contentType: 'text/html',
        title: 'Title',
        description: 'About it',
        headings: ['One', 'Two'],
        body: 'The body text',
        lang: 'en',
        canonical: null,
        fetchedAt: T0,
        etag: '"e1"',
        lastModified: null,
        contentHash: 'h1',
        noindex: false,
        nofollow: false,
        noarchive: false,
        nosnippet: false,
        indexed: true,
      },
    );
    assert.deepEqual(await one(f, `SELECT idents, file_type, removed FROM pages WHERE id = ${id}`), {
      idents: '',
      file_type: 'html',
      removed: 0,
    });
    await s.transaction(async (tx) => {
      again = await tx.pages.upsertPage(
        page(U('p'), a, {
          title: 'New title',
          fetchedAt: T0 + 1,
          fileType: 'pdf',
          pageStarts: [0, 5],
          linkDensity: 0.25,
        }),
      );
    });
    assert.equal(again, id, 'fetched again: the same row');
    assert.deepEqual(await one(f, `SELECT title, file_type, page_starts, link_density FROM pages WHERE id = ${id}`), {
      title: 'New title',
      file_type: 'pdf',
      page_starts: '[0,5]',
      link_density: 0.25,
    });
    assert.deepEqual(await s.pages.validators(U('q')), { etag: null, lastModified: 'Mon' });
    assert.equal(await s.pages.validators(U('p')), undefined, 'neither validator this time');
    assert.deepEqual(await s.pages.countPages(), { pages: 2, indexed: 1 });
    await write(s, async (tx) => {
      await tx.pages.markPageCurrent(U('q'), T0 + 50);
      await tx.pages.markPageGone(U('p'), 404, T0 + 60);
    });
    const q = await s.pages.getPage(U('q'));
    assert.deepEqual([q?.fetchedAt, q?.title, q?.status], [T0 + 50, 'Title', 200]);
    const p = await s.pages.getPage(U('p'));
    assert.deepEqual([p?.indexed, p?.status, p?.fetchedAt, p?.body], [false, 404, T0 + 60, 'The body text']);
    assert.deepEqual(await s.pages.countPages(), { pages: 2, indexed: 0 });
    await write(s, (tx) => tx.pages.markPageGone(U('q'), 410, T0 + 70));
    assert.equal(await s.pages.validators(U('q')), undefined, 'not a 2xx answer any more');
  });

  withStore(
    "a removed seed's pages leave search in chunks bounded by count and by text, one page at least",
    async (f, s) => {
      const a = await seed(s, 'a');
      const other = await seed(s, 'o');
      const ids: number[] = [];
      await s.transaction(async (tx) => {
        for (const [p, body] of [
          ['1', 'x'.repeat(100)],
          ['2', 'y'.repeat(100)],
          ['3', 'z'.repeat(100)],
          ['4', 'w'],
        ] as const) {
          ids.push(await tx.pages.upsertPage(page(U(p), a, { body, title: `T${p}` })));
        }
        await tx.pages.upsertPage(page(U('5'), a, { indexed: false, body: 'v'.repeat(500) }));
        await tx.pages.upsertPage(page(U('keep'), other));
      });
      const retired = async (limit: number, maxBytes?: number) => {
        let n = -1;
        await s.transaction(async (tx) => {
          n = await tx.pages.retireSeedPages(a, limit, maxBytes);
        });
        return n;
      };
      assert.equal(await retired(10, 10), 1, 'over the bound, still one page');
      assert.deepEqual(await one(f, `SELECT indexed, removed, seed_id, body, idents FROM pages WHERE id = ${ids[0]}`), {
        indexed: 0,
        removed: 1,
        seed_id: null,
        body: '',
        idents: '',
      });
      assert.equal(await retired(10, 200), 2, 'two bodies of 100 bytes');
      assert.equal(await retired(10, 1), 2, 'a page out of search costs nothing: it goes with the one before');
      assert.equal(await retired(10), 0);
      assert.deepEqual(await s.pages.countPages(), { pages: 1, indexed: 1 });
      await write(s, (tx) => tx.pages.upsertPage(page(U('2'), other)));
      assert.deepEqual(await s.pages.countPages(), { pages: 2, indexed: 2 }, 'fetched again: no tombstone any more');
    },
  );

  withStore(
    'link targets gathered in a batch: each linking page once, anchors once each ignoring case, written at its end',
    async (f, s) => {
      const a = await seed(s, 'a');
      await s.transaction(async (tx) => {
        const p1 = await tx.pages.upsertPage(page(U('p1'), a));
        const p2 = await tx.pages.upsertPage(page(U('p2'), a));
        await tx.linkTargets.gatherLinks(p1, [
          { url: U('x'), text: ' Docs \n' },
          { url: U('y'), text: 'y' },
          { url: U('x'), text: 'ignored: same page, same target' },
        ]);
        await tx.linkTargets.gatherLinks(p2, [
          { url: U('x'), text: 'docs' },
          { url: U('z'), text: '' },
        ]);
        assert.equal(await f.rows('SELECT 1 FROM link_targets').then((r) => r.length), 0, 'not before the end');
      });
      assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 2, anchors: ['Docs'] });
      assert.deepEqual(await s.linkTargets.target(U('y')), { inlinks: 1, anchors: ['y'] });
      assert.deepEqual(await s.linkTargets.target(U('z')), { inlinks: 1, anchors: [] });
      assert.equal(await s.linkTargets.target(U('none')), undefined);
      assert.deepEqual(
        (await f.rows('SELECT url FROM link_targets ORDER BY id')).map((r) => r.url),
        [U('x'), U('y'), U('z')],
      );
      await s.transaction(async (tx) => {
        const p1 = await tx.pages.upsertPage(page(U('p1'), a));
        await tx.linkTargets.gatherLinks(p1, [
          { url: U('x'), text: 'Other words' },
          { url: U('w'), text: 'new' },
        ]);
      });
      assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 2, anchors: ['Docs', 'Other words'] });
      assert.deepEqual(
        (await f.rows('SELECT url FROM link_targets ORDER BY id')).map((r) => r.url),
        [U('x'), U('y'), U('z'), U('w')],
      );
    },
  );

  withStore("outside a transaction, a page's links are written at once", async (_f, s) => {
    const a = await seed(s, 'a');
    let p = 0;
    await s.transaction(async (tx) => {
      p = await tx.pages.upsertPage(page(U('p'), a));
    });
    await s.linkTargets.gatherLinks(p, [{ url: U('x'), text: 'x' }]);
    assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 1, anchors: ['x'] });
  });

  withStore("the store's own modules called inside a transaction's callback belong to it", async (f, s) => {
    const a = await seed(s, 'a');
    const batch = (fail: boolean) =>
      s.transaction(async () => {
        await s.frontier.addUrl({ url: U('1'), origin: O, seedId: a, depth: 1, redirects: 0 }, T0);
        assert.equal((await s.frontier.urlByUrl(U('1')))?.depth, 1, 'its own write is seen');
        const p = await s.pages.upsertPage(page(U('p'), a));
        await s.linkTargets.gatherLinks(p, [{ url: U('x'), text: 'x' }]);
        assert.equal(await s.linkTargets.target(U('x')), undefined, 'links wait for the end');
        if (fail) throw new Error('rolled back');
      });
    await assert.rejects(batch(true), /rolled back/);
    assert.deepEqual([await s.frontier.urlByUrl(U('1')), await s.pages.getPage(U('p'))], [undefined, undefined]);
    assert.deepEqual(await f.rows('SELECT url FROM link_targets'), []);
    await batch(false);
    assert.equal((await s.frontier.urlByUrl(U('1')))?.depth, 1);
    assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 1, anchors: ['x'] });
  });

  withStore(
    'a transaction that throws stores nothing, gathered links included; its writes are read back inside it',
    async (_f, s) => {
      const a = await seed(s, 'a');
      const r = await add(s, a, ['1']);
      await assert.rejects(
        s.transaction(async (tx) => {
          await tx.frontier.finishUrl(r['1']!.id, 'done', null, T0 + 1);
          assert.equal((await tx.frontier.urlByUrl(U('1')))?.state, 'done', 'the write is seen inside');
          await tx.frontier.addUrl({ url: U('2'), origin: O, seedId: a, depth: 1, redirects: 0 }, T0);
          const p = await tx.pages.upsertPage(page(U('1'), a));
          await tx.linkTargets.gatherLinks(p, [{ url: U('2'), text: 'two' }]);
          await tx.hosts.saveHost(newHostRow(O, 'example.org'), T0);
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal((await s.frontier.urlByUrl(U('1')))?.state, 'queued');
      assert.equal(await s.frontier.urlByUrl(U('2')), undefined);
      assert.equal(await s.pages.getPage(U('1')), undefined);
      assert.deepEqual(await s.hosts.allHosts(), []);
      await s.transaction(async (tx) => {
        const p = await tx.pages.upsertPage(page(U('1'), a));
        await tx.linkTargets.gatherLinks(p, [{ url: U('3'), text: 'three' }]);
      });
      assert.equal(await s.linkTargets.target(U('2')), undefined, 'what the failed batch gathered is gone');
      assert.deepEqual(await s.linkTargets.target(U('3')), { inlinks: 1, anchors: ['three'] });
      const seen = await s.read(async (tx) => [await tx.frontier.queuedCount(O), (await tx.pages.countPages()).pages]);
      assert.deepEqual(seen, [1, 1]);
    },
  );

  withStore(
    'a write that breaks a constraint fails its transaction as a bug, not as an outage to wait out',
    async (_f, s) => {
      const a = await seed(s, 'a');
      const err = await s
        .transaction(async (tx) => {
          await tx.frontier.addUrl({ url: U('ok'), origin: O, seedId: a, depth: 1, redirects: 0 }, T0);
          await tx.frontier.addUrl({ url: U('orphan'), origin: O, seedId: a + 1000, depth: 1, redirects: 0 }, T0);
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      assert.ok(err instanceof Error, 'the transaction failed');
      assert.equal(storageErrorDetail(err), null, String(err));
      assert.equal(await s.frontier.urlByUrl(U('ok')), undefined);
    },
  );

  withStore(
    'batch methods: addUrls as addUrl once per URL in order, knownUrls the subset known, touchUrls',
    async (f, s) => {
      const a = await seed(s, 'a');
      await add(s, a, ['known']);
      const url = (p: string, depth = 1) => ({ url: U(p), origin: O, seedId: a, depth, redirects: 0 });
      let added: FrontierRow[] = [];
      await s.transaction(async (tx) => {
        assert.deepEqual(await tx.frontier.addUrls([], T0), []);
        added = await tx.frontier.addUrls(
          [url('n1', 2), url('n2'), url('known'), url('n1', 0), url('n3'), url('known')],
          T0 + 3,
        );
      });
      assert.deepEqual(
        added.map((x) => [x.url, x.depth, x.finishedBefore, x.attempts]),
        [
          [U('n1'), 2, 0, 0],
          [U('n2'), 1, 0, 0],
          [U('n3'), 1, 0, 0],
        ],
      );
      assert.ok(added[0]!.id < added[1]!.id && added[1]!.id < added[2]!.id, 'ids in the order given');
      const inlinks = async () =>
        Object.fromEntries(
          (await f.rows('SELECT url, inlinks FROM frontier')).map((x) => [
            String(x.url).slice(O.length + 1),
            x.inlinks,
          ]),
        );
      assert.deepEqual(await inlinks(), { known: 2, n1: 1, n2: 0, n3: 0 });
      assert.deepEqual(await s.frontier.knownUrls([U('n2'), U('nope'), U('known'), U('n2')]), [U('n2'), U('known')]);
      assert.deepEqual(await s.frontier.knownUrls([]), []);
      await write(s, async (tx) => {
        await tx.frontier.touchUrls([U('n3'), U('nope'), U('n3'), U('known')]);
        await tx.frontier.touchUrls([]);
      });
      assert.deepEqual(await inlinks(), { known: 3, n1: 1, n2: 0, n3: 2 });
      assert.equal(
        (await one(f, `SELECT discovered_at FROM frontier WHERE url = '${U('n3')}'`))?.discovered_at,
        T0 + 3,
      );
    },
  );
}
