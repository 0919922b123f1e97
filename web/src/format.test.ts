import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  displayUrl,
  formatAgo,
  formatCountdown,
  formatDelay,
  formatDuration,
  formatTook,
  plural,
  seedCountText,
} from './format.ts';

const NOW = Date.UTC(2025, 0, 1, 12, 0, 0);
const at = (offsetMs: number): string => new Date(NOW + offsetMs).toISOString();

describe('format', () => {
  test('plural picks the singular only for exactly one', () => {
    assert.equal(plural(1, 'result'), '1 result');
    assert.equal(plural(0, 'result'), '0 results');
    assert.equal(plural(1234, 'page'), '1,234 pages');
  });
  test('the seed count says when the list shows only the newest of them', () => {
    assert.equal(seedCountText(3, 3, false), '3 seeds');
    assert.equal(seedCountText(500, 12_000, false), '12,000 seeds, the newest 500 shown (a label finds the others)');
    assert.equal(seedCountText(500, 10_000, true), '10,000 seeds, the newest 500 shown');
  });
  test('formatDelay shows seconds with one decimal, as in "1.0 s · Crawl-delay"', () => {
    assert.equal(formatDelay(1000), '1.0 s');
    assert.equal(formatDelay(2500), '2.5 s');
    assert.equal(formatDelay(50), '50 ms');
  });
  test('formatTook rounds to whole milliseconds', () => {
    assert.equal(formatTook(35.765), '36 ms');
    assert.equal(formatTook(4), '4 ms');
    assert.equal(formatTook(0.2), '<1 ms');
  });
  test('formatDuration', () => {
    assert.equal(formatDuration(84.4), '84 ms');
    assert.equal(formatDuration(1200), '1.2 s');
    assert.equal(formatDuration(42_000), '42 s');
  });
  test('formatAgo', () => {
    assert.equal(formatAgo(null, NOW), '—');
    assert.equal(formatAgo(at(-300), NOW), 'just now');
    assert.equal(formatAgo(at(-12_000), NOW), '12 s ago');
    assert.equal(formatAgo(at(-185_000), NOW), '3 min ago');
    assert.equal(formatAgo(at(-3 * 3600_000), NOW), '3 h ago');
    assert.equal(formatAgo(at(-72 * 3600_000), NOW), '3 d ago');
  });
  test('formatCountdown counts whole seconds up and says when it is due', () => {
    assert.equal(formatCountdown(null, NOW), '—');
    assert.equal(formatCountdown(at(4000), NOW), 'in 4 s');
    assert.equal(formatCountdown(at(3100), NOW), 'in 4 s');
    assert.equal(formatCountdown(at(0), NOW), 'due now');
    assert.equal(formatCountdown(at(-5000), NOW), 'due now');
    assert.equal(formatCountdown('garbage', NOW), '—');
    assert.equal(
      formatCountdown(at(7 * 86_400_000 - 5000), NOW),
      'in 7 d',
      'a week less a few seconds is still "in 7 d"',
    );
    assert.equal(formatCountdown(at(90 * 60_000), NOW), 'in 2 h');
  });
  test('displayUrl drops the scheme and a bare trailing slash', () => {
    assert.equal(displayUrl('https://example.org/'), 'example.org');
    assert.equal(displayUrl('http://example.org/a/'), 'example.org/a/');
  });
});
