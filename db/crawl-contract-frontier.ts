/**
 * The crawler's storage contract, its frontier: queue order, leases, attempts and redirects, requeues of
 * a seed's chunks, drops of a removed seed's chunks, and the counts the primary starts from.
 */
import assert from 'node:assert/strict';
import type { FrontierRow } from './frontier.ts';
import { byKey, type ContractKit, O, O2, O3, page, T0, U } from './crawl-store-contract-kit.ts';

/** Registers this part's tests (see the module comment). */
export function frontierContract({ withStore, seed, add, one, write }: ContractKit): void {
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
          etag: null,
          lastModified: null,
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
    'queuedAfterMany answers, for each host and cursor, the rows queuedAfter answers, in the order asked',
    async (_f, s) => {
      const a = await seed(s, 'a');
      const r = await add(s, a, ['1', '2', '3', '4', '5', '6']);
      const r2 = await add(s, a, ['a', 'b', 'c'], 1, O2);
      const r3 = await add(s, a, ['only'], 1, O3);
      await write(s, async (tx) => {
        await tx.frontier.retryUrl(r['2']!.id, 1, T0 + 500, 'timeout');
        await tx.frontier.retryUrl(r['4']!.id, 2, T0 + 100, 'HTTP 503');
        await tx.frontier.retryUrl(r['6']!.id, 1, T0 + 100, 'HTTP 503');
        await tx.frontier.leaseUrl(r3.only!.id, 'run-1', T0);
        await tx.frontier.finishUrl(r2.b!.id, 'done', null, T0 + 1);
        await tx.pages.upsertPage(page(U('b', O2), a, { etag: '"v2"', lastModified: 'Tue, 02 Jan 2024 00:00:00 GMT' }));
      });
      assert.ok(await s.frontier.requeueFinishedAt(r2.b!.id, T0 + 50), 'b is queued again, after a and c');
      const reads = [
        { origin: O, nextAttemptAt: -1, id: 0, limit: 10 },
        { origin: O2, nextAttemptAt: -1, id: 0, limit: 10 },
        { origin: O, nextAttemptAt: 0, id: r['1']!.id, limit: 2 },
        { origin: 'https://none.example', nextAttemptAt: -1, id: 0, limit: 4 },
        { origin: O, nextAttemptAt: T0 + 100, id: r['4']!.id, limit: 10 },
        { origin: O3, nextAttemptAt: -1, id: 0, limit: 4 },
        { origin: O, nextAttemptAt: -1, id: 0, limit: 1 },
        { origin: O2, nextAttemptAt: 0, id: r2.c!.id, limit: 1 },
      ];
      const each: FrontierRow[][] = [];
      for (const q of reads) each.push(await s.frontier.queuedAfter(q.origin, q.nextAttemptAt, q.id, q.limit));
      const urls = (rows: FrontierRow[]) => rows.map((x) => x.url.slice(x.origin.length + 1));
      assert.deepEqual(each.map(urls), [
        ['1', '3', '5', '4', '6', '2'],
        ['a', 'c', 'b'],
        ['3', '5'],
        [],
        ['6', '2'],
        [],
        ['1'],
        ['b'],
      ]);
      assert.deepEqual([each[1]![2]!.etag, each[1]![2]!.lastModified], ['"v2"', 'Tue, 02 Jan 2024 00:00:00 GMT']);
      assert.deepEqual(await s.frontier.queuedAfterMany(reads), each, 'one call, the same rows in the same order');
      assert.deepEqual(
        await s.read((tx) => tx.frontier.queuedAfterMany(reads)),
        each,
        'the same inside a read transaction (on PostgreSQL the first statement of one travels as text)',
      );
      assert.deepEqual(await s.frontier.queuedAfterMany([]), []);
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
          etag: null,
          lastModified: null,
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
        await tx.pages.upsertPage(page(U('d1'), a, { etag: '"v1"', lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT' }));
        await tx.pages.upsertPage(page(U('d2'), a, { etag: '"gone"', status: 404 }));
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
        assert.deepEqual(
          [one[0]?.etag, one[0]?.lastModified],
          ['"v1"', 'Mon, 01 Jan 2024 00:00:00 GMT'],
          "a URL queued again brings its stored page's validators, for a conditional request",
        );
        const two = await tx.frontier.requeueSeedChunk(a, 2, 'done', one[0]!.id, 10);
        assert.deepEqual([two[0]?.etag, two[0]?.lastModified], [null, null], 'only a 2xx page gives validators');
        chunks.push(
          one.map((x) => x.url),
          two.map((x) => x.url),
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
}
