import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RateLimiter } from './rate-limiter.ts';

test('a burst up to the capacity passes, the next waits for the refill, other clients are unaffected', () => {
  const r = new RateLimiter(3, 2);
  assert.deepEqual([r.take('a', 0), r.take('a', 0), r.take('a', 0)], [0, 0, 0]);
  assert.equal(r.take('a', 0), 500, 'one token comes back after 500 ms at 2/s');
  assert.equal(r.take('b', 0), 0);
  assert.equal(r.take('a', 500), 0);
  assert.ok(r.take('a', 500) > 0);
});

test('wait says how long until a token, without taking one', () => {
  const r = new RateLimiter(2, 1);
  assert.equal(r.wait('a', 0), 0, 'a new client has a full bucket');
  assert.equal(r.wait('a', 0), 0, 'asking takes nothing');
  r.take('a', 0);
  r.take('a', 0);
  assert.equal(r.wait('a', 0), 1000);
  assert.equal(r.wait('a', 400), 600);
  assert.equal(r.wait('a', 1000), 0);
  assert.equal(r.take('a', 1000), 0, 'the token wait promised is there');
});
