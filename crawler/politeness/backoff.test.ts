import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKOFF, backoffScope, nextBackoffMs, parseRetryAfter, retryDelayMs } from './backoff.ts';

test('Retry-After in seconds and as an HTTP date', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('2', now), 2000);
  assert.equal(parseRetryAfter(' 0.5 ', now), 500);
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  assert.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0, 'a date in the past means now');
  assert.equal(parseRetryAfter('soon', now), undefined);
  assert.equal(parseRetryAfter(undefined, now), undefined);
  assert.equal(parseRetryAfter('99999999', now), BACKOFF.maxRetryAfterMs, 'capped at a day');
});

test('exponential backoff from a few seconds to a cap of an hour', () => {
  assert.equal(nextBackoffMs(0), BACKOFF.firstMs);
  assert.equal(nextBackoffMs(BACKOFF.firstMs), BACKOFF.firstMs * 2);
  let b = 0;
  for (let i = 0; i < 40; i++) b = nextBackoffMs(b);
  assert.equal(b, 60 * 60 * 1000);
  assert.ok(retryDelayMs(1) < retryDelayMs(2) && retryDelayMs(2) < retryDelayMs(3));
});

test('503 and 429 back off the whole politeness group; every other failure only its host', () => {
  assert.equal(backoffScope(503), 'group');
  assert.equal(backoffScope(429), 'group');
  for (const status of [500, 502, 504, 404, null]) assert.equal(backoffScope(status), 'host', String(status));
});
