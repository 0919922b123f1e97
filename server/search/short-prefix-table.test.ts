import { test, afterEach, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { shortPrefixSteps } from './short-prefix-table.ts';
import { OPTIONS } from './title-doc.ts';
import { TermSearch, runSteps } from './term-search.ts';
import { TitleIndex } from './title-index.ts';

let env: ReturnType<typeof tempDatabase>;
beforeEach(() => {
  env = tempDatabase();
});
afterEach(() => env.cleanup());

test('the table answers every 1-2 letter prefix as the scan of that prefix does, scan cap and discarded pages included', () => {
  // Words of three letters share prefixes densely, so the scan cap cuts most prefixes short.
  const r = seededRandom(7);
  const word = () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => 'abcé'[Math.floor(r() * 4)]).join('');
  const ms = new TermSearch({ ...OPTIONS, autoVacuum: false });
  for (let id = 1; id <= 80; id++)
    ms.add({ id, title: Array.from({ length: 5 }, word).join(' '), headings: word(), url: '' });
  const prefixes = new Set<string>(['zz', 'é']);
  for (const [term] of ms.terms()) {
    prefixes.add(term.slice(0, 1));
    prefixes.add(term.slice(0, 2));
  }
  const check = (when: string) => {
    for (const scan of [1, 3, 10, 3000]) {
      const table = runSteps(shortPrefixSteps(ms.terms(), (h) => ms.weightOf(h), scan, 4));
      for (const p of prefixes)
        assert.deepEqual(
          table.get(p) ?? [],
          ms.completions(p, 4, 0, scan).map((c) => c.term),
          `${when}: prefix ${JSON.stringify(p)}, scan ${scan}`,
        );
    }
  };
  check('every page current');
  for (let id = 1; id <= 80; id += 7) ms.discard(id);
  check('some pages discarded');
});

test('the title index completes short prefixes from its table only while the index is unchanged since it was built', async () => {
  const pages = pageQueries(env.db);
  pages.upsertPage(makePage('http://a.test/lighthouse', { title: 'Lighthouse keepers' }));
  pages.upsertPage(makePage('http://a.test/lime', { title: 'Lime kilns and limestone' }));
  const index = new TitleIndex(pages);
  index.catchUpLater();
  await waitFor(() => index.ready, { timeoutMs: 5000, intervalMs: 0 });
  assert.equal(index.shortPrefixTableCurrent, true, 'built with the index');
  assert.deepEqual(index.complete('li', 5), ['lighthouse', 'lime', 'limestone']);

  pages.upsertPage(makePage('http://a.test/lizards', { title: 'Lizards of the lime kilns' }));
  index.catchUp();
  assert.equal(index.shortPrefixTableCurrent, false, 'the index changed');
  assert.deepEqual(index.complete('li', 5), ['lime', 'lighthouse', 'lizards', 'limestone'], 'a new word at once');

  index.catchUp(); // nothing new: the table is rebuilt
  await waitFor(() => index.shortPrefixTableCurrent, { timeoutMs: 5000, intervalMs: 0 });
  assert.deepEqual(index.complete('li', 5), ['lime', 'lighthouse', 'lizards', 'limestone']);
  assert.deepEqual(index.complete('l', 2), ['lime', 'lighthouse']);

  pages.markPageGone('http://a.test/lizards', 404, 1);
  index.catchUp();
  assert.deepEqual(index.complete('li', 5), ['lime', 'lighthouse', 'limestone'], 'a gone page at once');
  index.close();
});
