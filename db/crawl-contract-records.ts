/**
 * The crawler's storage contract, its records beside the frontier: hosts, sitemap jobs and validators,
 * revisits, the stop mark, the seeds' host counts and the seeds changed since a time.
 */
import assert from 'node:assert/strict';
import { newHostRow } from './hosts.ts';
import { byKey, type ContractKit, O, O2, T0, U } from './crawl-store-contract-kit.ts';

/** Registers this part's tests (see the module comment). */
export function recordContract({ withStore, seed, add, one, write }: ContractKit): void {
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
      // A batch's pages at once: those with a state, by url; a url without one is absent; none asked, none answered.
      assert.deepEqual(
        await s.revisits.revisitsOf([U('3'), U('2'), U('1'), U('1')]),
        new Map([
          [U('2'), { ...st, intervalMs: 1000, unchangedCount: 4 }],
          [U('1'), { ...st, sitemapLastmod: T0 - 5, checkedAt: T0 + 9 }],
        ]),
      );
      assert.deepEqual(await s.revisits.revisitsOf([]), new Map());
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
}
