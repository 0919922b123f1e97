import { test, afterEach, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { waitFor } from '../../test-support/test-web.ts';
import { TitleIndex, urlWords } from './title-index.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';

let env: ReturnType<typeof tempDatabase>;
beforeEach(() => {
  env = tempDatabase();
});
afterEach(() => env.cleanup());

test('the build at start reads in chunks, lets the event loop turn, and shows the index only when whole', async () => {
  const pages = pageQueries(env.db);
  env.db.transaction(() => {
    for (let i = 0; i < 50; i++) pages.upsertPage(makePage(`http://a.test/${i}`, { title: `Lighthouse keeper ${i}` }));
  })();
  const index = new TitleIndex(pages, { chunkRows: 5 });
  index.catchUpLater();
  assert.equal(index.size, 0, 'nothing happens synchronously');
  // One callback per turn of the event loop, noting what the index shows meanwhile.
  const seen: number[] = [];
  await new Promise<void>((resolve) => {
    const turn = () => {
      seen.push(index.size);
      if (index.ready) resolve();
      else setImmediate(turn);
    };
    setImmediate(turn);
  });
  assert.equal(index.size, 50);
  assert.equal(index.cursor, 50);
  assert.ok(seen.length >= 10, `the event loop turned while 10 chunks were read (${seen.length} turns)`);
  assert.deepEqual(
    [...new Set(seen)].filter((n) => n !== 0 && n !== 50),
    [],
    'never a partial index',
  );
  assert.equal(index.search(['keeper', '42'], { prefixLast: false, limit: 5, combineWith: 'AND' }).hits.length, 1);
  index.catchUp(); // caught up: nothing to read
  assert.equal(index.size, 50);
  index.close();
});

test('pages re-stored, made unsearchable or added during the build are indexed as they are at the end', async (t) => {
  const pages = pageQueries(env.db);
  env.db.transaction(() => {
    for (let i = 0; i < 40; i++) pages.upsertPage(makePage(`http://a.test/${i}`, { title: `Harbour pilot ${i}` }));
  })();
  const errors = t.mock.method(console, 'error', () => undefined);
  const index = new TitleIndex(pages, { chunkRows: 5 });
  index.catchUpLater(); // without a snapshot file, the first chunk is read at once, then one per turn
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(index.ready, false, 'still building');
  pages.upsertPage(makePage('http://a.test/0', { title: 'Foghorn signals' })); // already read once
  pages.markPageGone('http://a.test/1', 404, 1);
  await new Promise((resolve) => setImmediate(resolve));
  pages.upsertPage(makePage('http://a.test/new', { title: 'Lightship moorings' }));
  await waitFor(() => index.ready, { timeoutMs: 5000, intervalMs: 0 });
  index.catchUp(); // what was stored after the last chunk was read
  assert.equal(index.size, 40, '40 pages, one gone, one new');
  const ids = (w: string) => index.search([w], { prefixLast: false, limit: 50 }).hits.length;
  assert.equal(ids('foghorn'), 1);
  assert.equal(ids('harbour'), 38, "neither the re-stored page's old title nor the gone page");
  assert.equal(ids('lightship'), 1);
  assert.equal(index.cursor, 43);
  assert.equal(errors.mock.callCount(), 0, 'built in one go, not by the fallback');
  index.close();
});

test('catchUp adds, replaces and discards; search, prefix, typo and completion', () => {
  const pages = pageQueries(env.db);
  pages.upsertPage(
    makePage('http://a.test/lighthouse', {
      title: 'Lighthouse keepers',
      headings: ['Lamps'],
      description: 'Coastal history.',
    }),
  );
  pages.upsertPage(makePage('http://a.test/harbour', { title: 'Harbour pilots' }));
  const index = new TitleIndex(pages);
  index.catchUp();
  assert.equal(index.ready, true);
  assert.equal(index.size, 2);
  const hit = index.search(['lighthouse'], { prefixLast: false, limit: 10 }).hits;
  assert.equal(hit.length, 1);
  assert.equal(hit[0].titleTerms, 1);
  assert.deepEqual(
    index.search(['lighth'], { prefixLast: true, limit: 10 }).hits.map((h) => h.id),
    [hit[0].id],
  );
  assert.deepEqual(index.search(['lighth'], { prefixLast: false, limit: 10 }).hits, []);
  assert.deepEqual(
    index.search(['lighthuose'], { prefixLast: false, limit: 10 }).hits.map((h) => h.id),
    [hit[0].id],
    'typo',
  );
  assert.deepEqual(
    index.search(['lamps'], { prefixLast: false, limit: 10 }).hits.map((h) => h.id),
    [hit[0].id],
    'headings',
  );
  assert.deepEqual(
    index.search(['coastal'], { prefixLast: false, limit: 10 }).hits,
    [],
    'descriptions are left to FTS5',
  );
  assert.deepEqual(
    index.search(['harbour'], { prefixLast: false, limit: 10 }).hits.length,
    1,
    'title and URL words of one page',
  );
  assert.equal(index.search(['test'], { prefixLast: false, limit: 10 }).hits.length, 0, 'no public suffix');
  assert.deepEqual(index.complete('ligh', 5), ['lighthouse']);
  assert.deepEqual(index.complete('li', 5), ['lighthouse'], 'short prefixes are cached...');
  pages.upsertPage(makePage('http://a.test/lizards', { title: 'Lizards' }));
  index.catchUp();
  assert.deepEqual(index.complete('li', 5), ['lighthouse', 'lizards'], '...until the index changes');
  pages.markPageGone('http://a.test/lizards', 404, 1);
  index.catchUp();
  assert.deepEqual(index.corrections('lighthuose', 3), ['lighthouse']);
  assert.deepEqual(
    index.search(['lighthouse', 'pilots'], { prefixLast: false, limit: 10, combineWith: 'AND' }).hits,
    [],
  );

  pages.upsertPage(makePage('http://a.test/lighthouse', { title: 'Foghorn signals' }));
  pages.markPageGone('http://a.test/harbour', 404, 1);
  index.catchUp();
  assert.equal(index.size, 1);
  assert.deepEqual(index.search(['keepers'], { prefixLast: false, limit: 10 }).hits, [], 'old title replaced');
  assert.equal(
    index.search(['lighthouse'], { prefixLast: false, limit: 10 }).hits[0]?.titleTerms,
    0,
    'still in the URL, no longer in the title',
  );
  assert.equal(index.search(['foghorn'], { prefixLast: false, limit: 10 }).hits.length, 1);
  assert.deepEqual(index.search(['pilots'], { prefixLast: false, limit: 10 }).hits, [], 'gone page discarded');
  assert.deepEqual(index.complete('pilo', 5), [], 'words of discarded pages are not completed');
  index.close();
});

test('urlWords keeps host labels and path words', () => {
  assert.equal(
    urlWords('https://www.docs.example.com/guide/getting-started.html?x=1'),
    'docs example guide getting started',
  );
  assert.equal(urlWords('https://news.bbc.co.uk/sport'), 'news bbc sport');
  assert.equal(urlWords('http://127.0.0.1:8080/a/42/b'), 'a b');
  assert.equal(urlWords('http://a.test/caf%C3%A9'), 'a café');
  assert.equal(urlWords('nonsense'), '');
});

test('a word with more postings than the budget is left out of the query; a wide prefix is not expanded', () => {
  const pages = pageQueries(env.db);
  const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
  for (const [i, name] of names.entries())
    pages.upsertPage(makePage(`http://a.test/${i}`, { title: `Lighthouse ${name}` }));
  pages.upsertPage(makePage('http://a.test/x', { title: 'Lightship' }));
  const index = new TitleIndex(pages, { postingsBudget: 3 });
  index.catchUp();
  const common = index.search(['lighthouse'], { prefixLast: false, limit: 10 });
  assert.deepEqual(common, { hits: [], complete: false });
  const mixed = index.search(['lighthouse', 'charlie'], { prefixLast: false, limit: 10, combineWith: 'AND' });
  assert.equal(mixed.complete, false);
  assert.equal(mixed.hits.length, 1, 'searched for charlie only');
  const prefix = index.search(['ligh'], { prefixLast: true, limit: 10 });
  assert.deepEqual(prefix, { hits: [], complete: true }, '"ligh" is searched as a word, not expanded to 6 pages');
  assert.equal(
    index.search(['lights'], { prefixLast: true, limit: 10 }).hits.length,
    1,
    'a narrow prefix still expands',
  );
  index.close();
});
