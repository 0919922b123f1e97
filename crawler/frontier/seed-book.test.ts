import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeedBook } from './seed-book.ts';

const row = (
  id: number,
  updatedAt: number,
  depth = 1,
  origin = 'https://a.example',
  removedAt: number | null = null,
) => ({ id, url: `${origin}/${id}`, origin, depth, scope: 'host' as const, updatedAt, removedAt });
const ids = (seeds: Array<{ id: number }>) => seeds.map((s) => s.id);

test('rows read again at the cursor are not changes; a newer row of a known seed is', () => {
  const book = new SeedBook();
  assert.deepEqual(ids(book.apply([row(1, 100), row(2, 200)]).changed), [1, 2]);
  assert.equal(book.cursor, 200);
  // The table is read from the cursor on (>=): seed 2 comes again, unchanged.
  assert.deepEqual(book.apply([row(2, 200)]), { changed: [], removed: [] });
  assert.deepEqual(
    book.apply([row(1, 300, 4)]).changed.map((s) => [s.id, s.depth]),
    [[1, 4]],
    'submitted again with a new depth',
  );
  assert.equal(book.get(1)?.depth, 4);
  assert.equal(book.cursor, 300);
});

test('deepestOn picks the seed of an origin that reaches furthest', () => {
  const book = new SeedBook();
  book.apply([row(1, 1, 1), row(2, 2, 3), row(3, 3, 5, 'https://b.example')]);
  assert.equal(book.deepestOn('https://a.example')?.id, 2);
  assert.equal(book.deepestOn('https://c.example'), undefined);
});

test('a removed seed is forgotten at once, even when removed in the same millisecond it was changed', () => {
  const book = new SeedBook();
  book.apply([row(1, 100), row(2, 100)]);
  const { changed, removed } = book.apply([row(2, 100, 1, 'https://a.example', 100)]);
  assert.deepEqual([ids(changed), ids(removed)], [[], [2]]);
  assert.equal(book.get(2), undefined);
  assert.equal(book.deepestOn('https://a.example')?.id, 1);
  // Submitted again later: a seed like any new one.
  assert.deepEqual(ids(book.apply([row(2, 150)]).changed), [2]);
});
