import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRefreshAt, refreshCheckMs, seedsDueForRefresh, type SeedCrawl } from './refresh.ts';
import { REFRESH_OFFSET_SHARE, refreshOffsetMs } from './revisit-spread.ts';

const DAY = 86_400_000;
const WEEK = 7 * DAY;
const SITE = 'https://docs.example.org';

test("a seed is due once its crawl is over and its page is as old as the interval and its site's offset", () => {
  const due = WEEK + refreshOffsetMs(SITE, WEEK);
  const seeds: SeedCrawl[] = [
    { seedId: 1, origin: SITE, lastFetchedAt: 0, pending: false }, // as old as that: due
    { seedId: 2, origin: SITE, lastFetchedAt: 1, pending: false }, // 1 ms short
    { seedId: 3, origin: SITE, lastFetchedAt: 0, pending: true }, // old, but its crawl is still going
    { seedId: 4, origin: SITE, lastFetchedAt: null, pending: false }, // never fetched (its first crawl has not started)
  ];
  assert.deepEqual(seedsDueForRefresh(seeds, due - 1, WEEK), []);
  assert.deepEqual(seedsDueForRefresh(seeds, due, WEEK), [1]);
  assert.deepEqual(seedsDueForRefresh(seeds, due + 1, WEEK), [1, 2]);
  assert.equal(nextRefreshAt(seeds[0], WEEK), due, 'what the Seeds view shows is when it is due');
});

test('an interval of 0 never refreshes', () => {
  assert.deepEqual(seedsDueForRefresh([{ seedId: 1, origin: SITE, lastFetchedAt: 0, pending: false }], 1e15, 0), []);
  assert.equal(nextRefreshAt({ origin: SITE, lastFetchedAt: 0, pending: false }, 0), null);
});

test('seeds of 200 sites crawled in the same second are refreshed spread over a quarter of the period, not at once', () => {
  const seeds: SeedCrawl[] = Array.from({ length: 200 }, (_, i) => ({
    seedId: i + 1,
    origin: `https://site${i}.example`,
    lastFetchedAt: 0,
    pending: false,
  }));
  const dueAt = seeds.map((s) => nextRefreshAt(s, WEEK) ?? Number.NaN);
  for (const at of dueAt) assert.ok(at >= WEEK && at < WEEK * (1 + REFRESH_OFFSET_SHARE), `due at ${at}`);
  // Per tenth of the offset window, how many sites come due: about 20 each, never a crowd.
  const tenths = new Array<number>(10).fill(0);
  for (const at of dueAt) tenths[Math.floor(((at - WEEK) / (WEEK * REFRESH_OFFSET_SHARE)) * 10)]++;
  assert.ok(Math.max(...tenths) <= 40 && Math.min(...tenths) >= 5, `sites per tenth of the window: ${tenths}`);
  // Only the first check after the period finds some due, not all of them.
  assert.ok(seedsDueForRefresh(seeds, WEEK + refreshCheckMs(WEEK), WEEK).length < 5);
  // A site keeps its offset: the same at every refresh, and for each of its seeds.
  assert.equal(refreshOffsetMs('https://site7.example', WEEK), refreshOffsetMs('https://site7.example', WEEK));
  assert.equal(
    nextRefreshAt({ origin: 'https://site7.example', lastFetchedAt: 5 * WEEK, pending: false }, WEEK),
    5 * WEEK + (dueAt[7] - 0),
  );
});

test('the check runs a quarter of the interval apart, at least every minute and at most every 250 ms', () => {
  assert.equal(refreshCheckMs(7 * DAY), 60_000);
  assert.equal(refreshCheckMs(2000), 500);
  assert.equal(refreshCheckMs(100), 250);
});
