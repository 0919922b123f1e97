/**
 * waitFor's stall deadline: with `progress`, a wait that keeps moving outlasts `timeoutMs` (a slow, loaded
 * machine), one that stops moving fails `timeoutMs` after it stopped, and `limitMs` bounds it all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { waitFor } from './wait-for.ts';

test('without progress, timeoutMs bounds the whole wait', async () => {
  let polls = 0;
  await assert.rejects(
    waitFor(() => ++polls >= 1_000_000, { timeoutMs: 300, intervalMs: 10, message: 'a million polls' }),
    /waitFor: a million polls not met within 300 ms/,
  );
});

test('with progress, a wait that keeps moving outlasts timeoutMs and resolves', async () => {
  let polls = 0;
  const started = performance.now();
  // Done once 2 s have passed in all and at least 10 polls were made: at least twice timeoutMs (1 s, far above
  // a poll's gap even on a loaded machine).
  const done = await waitFor(() => ++polls >= 10 && performance.now() - started >= 2_000 && polls, {
    timeoutMs: 1_000,
    intervalMs: 10,
    progress: () => String(polls),
  });
  assert.ok(done >= 10);
  assert.ok(performance.now() - started >= 2_000, 'it waited past timeoutMs');
});

test('with progress, a wait that stops moving fails timeoutMs after it stopped, saying so', async () => {
  let polls = 0;
  await assert.rejects(
    waitFor(() => false, {
      timeoutMs: 200,
      intervalMs: 10,
      progress: () => String(Math.min(++polls, 5)), // moves for 5 polls, then stays
      message: 'a stalled crawl',
    }),
    /waitFor: a stalled crawl not met after 200 ms without progress \(\d+ ms in all\)/,
  );
  assert.ok(polls > 5, 'it kept polling after the last change');
});

test('with progress, limitMs bounds a wait that moves forever', async () => {
  let polls = 0;
  await assert.rejects(
    waitFor(() => false, { timeoutMs: 1_000, limitMs: 1_500, intervalMs: 10, progress: () => String(++polls) }),
    /not met within \d+ ms in all \(limit 1500 ms, still moving\)/,
  );
});
