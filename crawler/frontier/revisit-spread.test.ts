import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REVISIT_SPREAD_SHARE, spreadRevisits, stableFraction } from './revisit-spread.ts';

const WEEK = 7 * 86_400_000;

test('stableFraction is a fixed number in [0, 1) per key, and spreads nearby keys', () => {
  const keys = Array.from({ length: 1000 }, (_, i) => `https://example.org/page/${i}`);
  const values = keys.map(stableFraction);
  for (const v of values) assert.ok(v >= 0 && v < 1);
  assert.deepEqual(keys.map(stableFraction), values, 'the same at every call');
  const tenths = new Array<number>(10).fill(0);
  for (const v of values) tenths[Math.floor(v * 10)]++;
  assert.ok(Math.min(...tenths) >= 70 && Math.max(...tenths) <= 130, `keys per tenth: ${tenths}`);
});

test("one refresh's 500 due pages of a site are spread evenly over a quarter of the period, not asked for at once", () => {
  const now = 1_000_000;
  const urls = Array.from({ length: 500 }, (_, i) => `https://example.org/docs/${i}.html`);
  const at = spreadRevisits('https://example.org', urls, now, WEEK);
  const window = REVISIT_SPREAD_SHARE * WEEK;
  assert.equal(at.length, urls.length);
  for (let k = 0; k < at.length; k++) {
    assert.ok(at[k] >= now + (k / urls.length) * window - 1, `page ${k} not before its share of the window`);
    assert.ok(at[k] < now + ((k + 1) / urls.length) * window, `page ${k} within its share of the window`);
  }
  // The site sees them evenly spaced, one every window / n (5 min here), never two in a burst.
  const gaps = at.slice(1).map((t, k) => t - at[k]);
  const even = window / urls.length;
  for (const g of gaps) assert.ok(Math.abs(g - even) <= 1, `a gap of ${g} ms, not ${even}`);
  assert.ok(at[0] - now < even, 'the first comes within its share');
});

test('a spread is the same for the same site and pages (no random draw), and empty for none', () => {
  const urls = ['https://a.example/1', 'https://a.example/2', 'https://a.example/3'];
  assert.deepEqual(
    spreadRevisits('https://a.example', urls, 0, WEEK),
    spreadRevisits('https://a.example', urls, 0, WEEK),
  );
  assert.deepEqual(spreadRevisits('https://a.example', [], 0, WEEK), []);
  assert.deepEqual(spreadRevisits('https://a.example', urls, 5, 0), [5, 5, 5], 'no refresh period: nothing to spread');
  assert.notDeepEqual(
    spreadRevisits('https://a.example', urls, 0, WEEK),
    spreadRevisits('https://b.example', urls, 0, WEEK),
    'two sites refreshed in the same check do not start in step',
  );
});
