import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { CappedCounts } from './capped-counts.ts';

describe('CappedCounts (pure, injected counts and clock)', () => {
  function counter(n: Record<string, number>) {
    const asked: Array<[string, number]> = [];
    const count = (e: string, cap: number) => {
      asked.push([e, cap]);
      return Math.min(cap, n[e] ?? 0);
    };
    return { count, asked };
  }

  test('says whether an expression reaches a number of pages, counting no further than it', () => {
    const { count, asked } = counter({ '"do"': 59_000, '"rare"': 12 });
    const counts = new CappedCounts(count, { ttlMs: 1000, max: 10, now: () => 0 });
    assert.equal(counts.atLeast('"do"', 10_000), true);
    assert.equal(counts.atLeast('"rare"', 10_000), false);
    assert.deepEqual(asked, [
      ['"do"', 10_000],
      ['"rare"', 10_000],
    ]);
  });

  test('a kept count answers again until it is older than the TTL', () => {
    const { count, asked } = counter({ '"do"': 59_000, '"rare"': 12 });
    let now = 0;
    const counts = new CappedCounts(count, { ttlMs: 1000, max: 10, now: () => now });
    counts.atLeast('"do"', 10_000);
    counts.atLeast('"rare"', 10_000);
    now = 999;
    assert.equal(counts.atLeast('"do"', 10_000), true);
    assert.equal(counts.atLeast('"do"', 500), true, 'a count at a larger cap answers a smaller one');
    assert.equal(counts.atLeast('"rare"', 20), false, 'an exact count (below its cap) answers any cap');
    assert.equal(asked.length, 2);
    now = 1000;
    assert.equal(counts.atLeast('"do"', 10_000), true);
    assert.equal(asked.length, 3, 'counted again once the TTL passed');
  });

  test('a count stopped at a smaller cap says too little for a larger one: it is counted again', () => {
    const { count, asked } = counter({ '"do"': 59_000 });
    const counts = new CappedCounts(count, { ttlMs: 1000, max: 10, now: () => 0 });
    assert.equal(counts.atLeast('"do"', 100), true);
    assert.equal(counts.atLeast('"do"', 10_000), true);
    assert.deepEqual(asked, [
      ['"do"', 100],
      ['"do"', 10_000],
    ]);
  });

  test('upTo answers the count itself, no further than its cap, and a kept count answers it again', () => {
    const { count, asked } = counter({ '"link"': 7_000, '"rare"': 12 });
    const counts = new CappedCounts(count, { ttlMs: 1000, max: 10, now: () => 0 });
    assert.equal(counts.upTo('"link"', 5_001), 5_001);
    assert.equal(counts.upTo('"rare"', 5_001), 12);
    assert.equal(counts.upTo('"link"', 5_001), 5_001);
    assert.equal(counts.upTo('"rare"', 5_001), 12);
    assert.equal(counts.upTo('"link"', 100), 100, 'a count at a larger cap answers a smaller one at that cap');
    assert.equal(asked.length, 2);
  });

  test('the cache starts over when full, so it stays bounded', () => {
    const { count, asked } = counter({ a: 1, b: 2, c: 3 });
    const counts = new CappedCounts(count, { ttlMs: 1000, max: 2, now: () => 0 });
    counts.atLeast('a', 10);
    counts.atLeast('b', 10);
    counts.atLeast('c', 10); // clears a and b
    counts.atLeast('a', 10);
    assert.deepEqual(
      asked.map(([e]) => e),
      ['a', 'b', 'c', 'a'],
    );
  });
});
