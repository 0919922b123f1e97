/**
 * The crawler's storage contract, pages and batches: pages stored, current, gone and retired, link targets
 * gathered for a batch's end, what a transaction guarantees (rollback, its own modules, a constraint as a
 * bug), and the frontier's batch methods.
 */
import assert from 'node:assert/strict';
import { newHostRow } from './hosts.ts';
import type { FrontierRow } from './frontier.ts';
import { storageErrorDetail } from './storage-error.ts';
import { type ContractKit, O, page, T0, U } from './crawl-store-contract-kit.ts';

/** Registers this part's tests (see the module comment). */
export function pageContract({ withStore, seed, add, one, write }: ContractKit): void {
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
    'link targets gathered in a batch: each linking page once, each of its texts once ignoring case and counted, written at its end',
    async (f, s) => {
      const a = await seed(s, 'a');
      await s.transaction(async (tx) => {
        const p1 = await tx.pages.upsertPage(page(U('p1'), a));
        const p2 = await tx.pages.upsertPage(page(U('p2'), a));
        await tx.linkTargets.gatherLinks(p1, [
          { url: U('x'), text: ' Docs \n' },
          { url: U('y'), text: 'y' },
          { url: U('x'), text: 'a second text of the same page' },
          { url: U('x'), text: 'DOCS' },
        ]);
        await tx.linkTargets.gatherLinks(p2, [
          { url: U('x'), text: 'docs' },
          { url: U('z'), text: '' },
        ]);
        assert.equal(await f.rows('SELECT 1 FROM link_targets').then((r) => r.length), 0, 'not before the end');
      });
      assert.deepEqual(await s.linkTargets.target(U('x')), {
        inlinks: 2,
        anchors: ['Docs', 'a second text of the same page'],
        counts: [2, 1],
      });
      assert.deepEqual(await s.linkTargets.target(U('y')), { inlinks: 1, anchors: ['y'], counts: [1] });
      assert.deepEqual(await s.linkTargets.target(U('z')), { inlinks: 1, anchors: [], counts: [] });
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
      assert.deepEqual(
        await s.linkTargets.target(U('x')),
        { inlinks: 2, anchors: ['Docs', 'a second text of the same page'], counts: [2, 1] },
        'a page fetched again counts nothing twice',
      );
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
    assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 1, anchors: ['x'], counts: [1] });
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
    assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 1, anchors: ['x'], counts: [1] });
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
      assert.deepEqual(await s.linkTargets.target(U('3')), { inlinks: 1, anchors: ['three'], counts: [1] });
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
      assert.deepEqual(
        await s.frontier.knownUrls([U('n2'), U('nope'), U('known'), U('n2')]),
        new Set([U('n2'), U('known')]),
      );
      assert.deepEqual(await s.frontier.knownUrls([]), new Set());
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
