import { test } from 'node:test';
import assert from 'node:assert/strict';
import { refreshCheckMs, seedsDueForRefresh, type SeedCrawl } from './refresh.ts';

const DAY = 86_400_000;

test('a seed is due once its crawl is over and its page is as old as the interval', () => {
  const seeds: SeedCrawl[] = [
    { seedId: 1, lastFetchedAt: 0, pending: false }, // 7 days old: due
    { seedId: 2, lastFetchedAt: 1, pending: false }, // 1 ms short of 7 days
    { seedId: 3, lastFetchedAt: 0, pending: true }, // old, but its crawl is still going
    { seedId: 4, lastFetchedAt: null, pending: false }, // never fetched (its first crawl has not started)
  ];
  assert.deepEqual(seedsDueForRefresh(seeds, 7 * DAY, 7 * DAY), [1]);
  assert.deepEqual(seedsDueForRefresh(seeds, 7 * DAY + 1, 7 * DAY), [1, 2]);
});

test('an interval of 0 never refreshes', () => {
  assert.deepEqual(seedsDueForRefresh([{ seedId: 1, lastFetchedAt: 0, pending: false }], 1e15, 0), []);
});

test('the check runs a quarter of the interval apart, at least every minute and at most every 250 ms', () => {
  assert.equal(refreshCheckMs(7 * DAY), 60_000);
  assert.equal(refreshCheckMs(2000), 500);
  assert.equal(refreshCheckMs(100), 250);
});
