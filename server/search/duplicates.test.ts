import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstPerContent } from './duplicates.ts';

const hashes = new Map<number, string | null>([
  [1, 'a'],
  [2, 'b'],
  [3, 'a'],
  [4, null],
  [5, null],
  [6, 'b'],
  [7, 'c'],
]);
const ranked = [1, 2, 3, 4, 5, 6, 7].map((id) => ({ id }));
const fold = (list: Array<{ id: number }>) => firstPerContent(list, (id) => hashes.get(id) ?? null).map((r) => r.id);

test('the best-ranked page of each content is kept, in rank order; pages without a hash are all kept', () => {
  assert.deepEqual(fold(ranked), [1, 2, 4, 5, 7]);
});

test('the folded prefix depends only on the ranked prefix, so pages of results stay consistent', () => {
  const all = fold(ranked);
  for (let n = 1; n <= ranked.length; n++) {
    const part = fold(ranked.slice(0, n));
    assert.deepEqual(part, all.slice(0, part.length), `prefix of ${n}`);
  }
});
