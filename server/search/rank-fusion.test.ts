import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanUrl, fuseRankings, popularity, RRF_K } from './rank-fusion.ts';
import type { PageSignals } from './rank-fusion.ts';

const plain = (url = 'http://a.test/x'): PageSignals => ({ url, inlinks: 0, titleMatch: 0 });

test('reciprocal rank fusion: a page both lists like beats a page only one likes', () => {
  const fused = fuseRankings(
    [
      { ids: [1, 2, 3], weight: 1 },
      { ids: [3, 4], weight: 1 },
    ],
    new Map(),
  );
  assert.deepEqual(
    fused.map((r) => r.id),
    [3, 1, 2, 4],
  );
  assert.equal(fused[1].score, 1 / (RRF_K + 1));
  assert.equal(fused[0].score, 1 / (RRF_K + 3) + 1 / (RRF_K + 1));
});

test('a heavier list (exact identifiers) leads', () => {
  const fused = fuseRankings(
    [
      { ids: [1, 2], weight: 1 },
      { ids: [2], weight: 2 },
    ],
    new Map(),
  );
  assert.equal(fused[0].id, 2);
});

test('boosts decide close calls: title match, clean URL, inlinks', () => {
  const signals = new Map<number, PageSignals>([
    [1, plain('http://a.test/deep/path/to/page?x=1')],
    [2, { url: 'http://a.test/deep/path/to/page?x=1', inlinks: 0, titleMatch: 1 }],
  ]);
  assert.deepEqual(
    fuseRankings([{ ids: [1, 2], weight: 1 }], signals).map((r) => r.id),
    [2, 1],
    'title match wins a close call',
  );
  const urls = new Map([
    [1, plain('http://a.test/a/b/c/d?q=1')],
    [2, plain('http://a.test/docs')],
  ]);
  assert.deepEqual(
    fuseRankings([{ ids: [1, 2], weight: 1 }], urls).map((r) => r.id),
    [2, 1],
    'clean URL wins a close call',
  );
  const links = new Map([
    [1, plain()],
    [2, { ...plain(), inlinks: 500 }],
  ]);
  assert.deepEqual(
    fuseRankings([{ ids: [1, 2], weight: 1 }], links).map((r) => r.id),
    [2, 1],
    'linked page wins a close call',
  );
});

test('boosts cannot lift a page from far down to the top', () => {
  const ids = Array.from({ length: 50 }, (_, i) => i + 1);
  const signals = new Map<number, PageSignals>(ids.map((id) => [id, plain('http://a.test/a/b/c/d/e?x')]));
  signals.set(50, { url: 'http://a.test/', inlinks: 100000, titleMatch: 1 });
  const fused = fuseRankings([{ ids, weight: 1 }], signals);
  const rank = fused.findIndex((r) => r.id === 50);
  assert.ok(rank > 10 && rank < 49, `rank ${rank}`);
});

test('ties are broken by id, so paging is stable', () => {
  const fused = fuseRankings(
    [
      { ids: [5], weight: 1 },
      { ids: [3], weight: 1 },
    ],
    new Map(),
  );
  assert.deepEqual(
    fused.map((r) => r.id),
    [3, 5],
  );
});

test('cleanUrl and popularity', () => {
  assert.equal(cleanUrl('https://a.test/'), 1);
  assert.equal(cleanUrl('https://a.test/docs'), 1);
  assert.ok(Math.abs(cleanUrl('https://a.test/a/b/c') - 0.6) < 1e-9);
  assert.ok(Math.abs(cleanUrl('https://a.test/a?x=1') - 0.6) < 1e-9);
  assert.equal(cleanUrl('https://a.test/a/b/c/d/e/f/g?x=1'), 0);
  assert.equal(cleanUrl('not a url'), 0);
  assert.equal(popularity(0), 0);
  assert.equal(popularity(999), 1);
  assert.equal(popularity(1e9), 1);
  assert.ok(popularity(9) > 0.3 && popularity(9) < 0.34);
});
