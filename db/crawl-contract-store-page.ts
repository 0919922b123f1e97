/**
 * The crawler's storage contract, a page stored for its links (storePage, as the crawler primary stores every
 * fetched page): what it leaves is what upsertPage then gatherLinks with the answered id leaves, to the row
 * (the link targets' sources are the pages' ids), in a batch that stores a page twice, mixes both ways, rolls
 * back, and outside a transaction.
 */
import assert from 'node:assert/strict';
import { type ContractKit, page, U } from './crawl-store-contract-kit.ts';

/** The u32 little-endian ids a link target keeps as its sources (db/link-targets.ts). */
function u32s(...ids: number[]): Buffer {
  const b = Buffer.alloc(ids.length * 4);
  for (const [i, id] of ids.entries()) b.writeUInt32LE(id, i * 4);
  return b;
}

/** Registers this part's tests (see the module comment). */
export function storePageContract({ withStore, seed, one }: ContractKit): void {
  withStore(
    'a page stored for its links: the same rows as upsertPage then gatherLinks with its id, at the end of the batch',
    async (f, s) => {
      const a = await seed(s, 'a');
      let known = 0;
      await s.transaction(async (tx) => {
        known = await tx.pages.upsertPage(page(U('known'), a));
        await tx.linkTargets.gatherLinks(known, [{ url: U('x'), text: 'Known' }]);
      });
      await s.transaction(async (tx) => {
        await tx.pages.storePage(page(U('p1'), a, { title: 'First' }), [
          { url: U('x'), text: ' Docs \n' },
          { url: U('y'), text: 'y' },
        ]);
        await tx.pages.storePage(page(U('p2'), a), [{ url: U('x'), text: 'docs' }]);
        await tx.pages.storePage(page(U('none'), a), []);
        // Fetched again in the same batch: the row and its id stay, its texts count once.
        await tx.pages.storePage(page(U('p1'), a, { title: 'Again' }), [
          { url: U('x'), text: 'other words' },
          { url: U('w'), text: 'new' },
        ]);
        const p3 = await tx.pages.upsertPage(page(U('p3'), a));
        await tx.linkTargets.gatherLinks(p3, [{ url: U('y'), text: 'why' }]);
        // The known page stored again: already a source of x, so nothing of it counts twice.
        await tx.pages.storePage(page(U('known'), a, { title: 'Known again' }), [{ url: U('x'), text: 'More' }]);
        assert.equal((await tx.pages.getPage(U('p1')))?.title, 'Again', 'its own writes are seen inside');
        const targets = await f.rows('SELECT url, inlinks FROM link_targets');
        assert.deepEqual(targets, [{ url: U('x'), inlinks: 1 }], 'the links wait for the end');
      });
      const ids = Object.fromEntries(
        (await f.rows('SELECT id, url, title FROM pages ORDER BY id')).map((r) => [r.url as string, r]),
      ) as Record<string, { id: number; title: string }>;
      assert.deepEqual(
        Object.keys(ids).map((u) => [u, ids[u]!.title]),
        [
          [U('known'), 'Known again'],
          [U('p1'), 'Again'],
          [U('p2'), 'Title'],
          [U('none'), 'Title'],
          [U('p3'), 'Title'],
        ],
      );
      assert.equal(ids[U('known')]!.id, known, 'fetched again: the same row');
      const [k, p1, p2, p3] = [known, ids[U('p1')]!.id, ids[U('p2')]!.id, ids[U('p3')]!.id];
      assert.deepEqual(await s.linkTargets.target(U('x')), { inlinks: 3, anchors: ['Known', 'Docs'], counts: [1, 2] });
      assert.deepEqual(await s.linkTargets.target(U('y')), { inlinks: 2, anchors: ['y', 'why'], counts: [1, 1] });
      assert.deepEqual(await s.linkTargets.target(U('w')), { inlinks: 1, anchors: ['new'], counts: [1] });
      assert.deepEqual(await one(f, `SELECT sources FROM link_targets WHERE url = '${U('x')}'`), {
        sources: u32s(k, p1, p2),
      });
      assert.deepEqual(await one(f, `SELECT sources FROM link_targets WHERE url = '${U('y')}'`), {
        sources: u32s(p1, p3),
      });
      assert.deepEqual(await one(f, `SELECT sources FROM link_targets WHERE url = '${U('w')}'`), { sources: u32s(p1) });
      assert.deepEqual(
        (await f.rows('SELECT url FROM link_targets ORDER BY id')).map((r) => r.url),
        [U('x'), U('y'), U('w')],
      );
    },
  );

  withStore(
    'a page stored for its links in a batch that throws leaves nothing; outside a batch its links are written at once',
    async (f, s) => {
      const a = await seed(s, 'a');
      await assert.rejects(
        s.transaction(async (tx) => {
          await tx.pages.storePage(page(U('p'), a), [{ url: U('x'), text: 'x' }]);
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await s.pages.getPage(U('p')), undefined);
      assert.deepEqual(await f.rows('SELECT url FROM link_targets'), []);
      await s.transaction(async (tx) => tx.pages.storePage(page(U('p'), a), [{ url: U('y'), text: 'y' }]));
      assert.equal(await s.linkTargets.target(U('x')), undefined, 'what the failed batch gathered is gone');
      await s.pages.storePage(page(U('q'), a), [{ url: U('z'), text: 'z' }]);
      const q = await s.pages.getPage(U('q'));
      assert.ok(q !== undefined);
      assert.deepEqual(await s.linkTargets.target(U('z')), { inlinks: 1, anchors: ['z'], counts: [1] });
      assert.deepEqual(await one(f, `SELECT sources FROM link_targets WHERE url = '${U('z')}'`), {
        sources: u32s(q.id),
      });
    },
  );
}
