import { test } from 'node:test';
import assert from 'node:assert/strict';
import { moreFromSite, spreadSites } from './site-folding.ts';

const hosts = (s: string) => s.split('');

test('a page shows at most two results of a site while other sites can fill it, in rank order', () => {
  //           0123456789
  const h = hosts('aaaaabacbd');
  const order = spreadSites(h, 4);
  // Page 1: a0 a1 b5 c7 (a2..a4 wait); page 2: a2 a3 b8 d9; page 3: a4 a6 (only a left: filled).
  assert.deepEqual(order, [0, 1, 5, 7, 2, 3, 8, 9, 4, 6]);
});

test('one dominant site fills the pages once the others are shown: every page but the last is full', () => {
  const h = hosts('aaaaaaaaaaaab');
  const order = spreadSites(h, 5);
  assert.deepEqual(order.slice(0, 5), [0, 1, 2, 3, 12], 'b moves up, the rest of the page is a (nothing else to show)');
  assert.equal(order.length, h.length);
  assert.deepEqual(
    [...order].sort((x, y) => x - y),
    h.map((_, i) => i),
    'a permutation: none dropped or repeated',
  );
});

test('"more from this site" on a site\'s last result of a page when more of it comes later; none for one site', () => {
  const h = hosts('aaaaabacbd');
  const order = spreadSites(h, 4);
  assert.deepEqual(moreFromSite(h, order, 0, 4), [false, true, true, false]);
  assert.deepEqual(moreFromSite(h, order, 8, 4), [false, false]);
  const one = hosts('aaaa');
  assert.deepEqual(moreFromSite(one, spreadSites(one, 2), 0, 2), [false, false]);
});
