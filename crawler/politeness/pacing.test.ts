import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkPacing,
  describePacing,
  nextPace,
  NO_PACE,
  pacingMs,
  PACING,
  PacingSettingsError,
  serverSignal,
  type Pace,
  type ServerSignal,
} from './pacing.ts';
import { BACKOFF } from './backoff.ts';

const answer = (status: number | null, ms: number, code?: string) =>
  serverSignal({
    status,
    startedAt: 1000,
    endedAt: 1000 + ms,
    error: code ? { kind: 'retryable', code, message: code } : null,
  });
const feed = (signals: ServerSignal[], from: Pace = NO_PACE): Pace => signals.reduce(nextPace, from);
const FIVE = { factor: 5, ceilingMs: PACING.ceilingMs };

describe('serverSignal', () => {
  test('an HTTP answer gives its duration; 5xx and 429 are strain, other statuses are fine', () => {
    assert.deepEqual(answer(200, 400), { responseMs: 400, load: 'ok' });
    assert.deepEqual(answer(404, 30), { responseMs: 30, load: 'ok' });
    assert.deepEqual(answer(500, 2000), { responseMs: 2000, load: 'strained' });
    assert.deepEqual(answer(503, 5), { responseMs: 5, load: 'strained' });
    assert.deepEqual(answer(429, 5), { responseMs: 5, load: 'strained' });
  });

  test('a timeout is strain and its wait counts; a refused connection says nothing', () => {
    assert.deepEqual(answer(null, 30_000, 'timeout'), { responseMs: 30_000, load: 'strained' });
    assert.deepEqual(answer(null, 2, 'connection-refused'), { responseMs: undefined, load: 'unknown' });
  });
});

describe('pacing', () => {
  test('the delay is factor x response time; factor 0 adds nothing', () => {
    const pace = feed([answer(200, 400)]);
    assert.equal(pacingMs(pace, FIVE), 2000);
    assert.equal(pacingMs(pace, { factor: 0, ceilingMs: 60_000 }), 0);
    assert.equal(pacingMs(NO_PACE, FIVE), 0, 'nothing known yet: nothing added');
    assert.equal(describePacing(pace, FIVE), '5 x 0.4 s response time');
  });

  test('response time rises at once with a slower answer and eases down a third per faster one', () => {
    let pace = feed([answer(200, 100), answer(200, 1600)]);
    assert.equal(pace.responseMs, 1600, 'one slow answer is felt at once');
    pace = nextPace(pace, answer(200, 100));
    assert.equal(pace.responseMs, 1100);
    pace = feed([answer(200, 100), answer(200, 100), answer(200, 100), answer(200, 100), answer(200, 100)], pace);
    assert.ok(
      pace.responseMs! < 100 + 1500 / 10,
      `after six fast answers a slow one has faded below a tenth (${pace.responseMs})`,
    );
  });

  test('the factor part is capped at the ceiling, and says so', () => {
    const pace = feed([answer(200, 20_000)]);
    assert.equal(pacingMs(pace, FIVE), 60_000);
    assert.equal(describePacing(pace, FIVE), '5 x 20.0 s response time, capped at 60.0 s');
  });

  test('a server that strains is slowed before the error streak backs it off: each 5xx doubles the factor, a success restores it', () => {
    assert.ok(
      BACKOFF.errorsBeforeBackoff >= 2,
      "the backoff waits for a streak, so the first error is the slowdown's to handle",
    );
    let pace = feed([answer(200, 400)]);
    pace = nextPace(pace, answer(500, 400));
    assert.equal(
      pacingMs(pace, FIVE),
      4000,
      'one error, below the streak of BACKOFF.errorsBeforeBackoff: already twice the delay',
    );
    assert.equal(describePacing(pace, FIVE), '5 x 2 (slowed after 1 server error in a row) x 0.4 s response time');
    pace = feed([answer(502, 400), answer(null, 400, 'timeout'), answer(503, 400)], pace);
    assert.equal(pace.slowdown, PACING.maxSlowdown, 'doubling stops at the maximum');
    assert.equal(pacingMs(pace, FIVE), 5 * PACING.maxSlowdown * 400);
    pace = nextPace(pace, answer(null, 0, 'dns'));
    assert.equal(pace.slowdown, PACING.maxSlowdown, 'no answer: no news');
    pace = nextPace(pace, answer(200, 400));
    assert.equal(pacingMs(pace, FIVE), 2000, 'one good answer: back to the factor');
  });

  test('settings out of range get a typed error naming the setting', () => {
    assert.throws(
      () => checkPacing({ factor: -1, ceilingMs: 1000 }),
      (e: unknown) => e instanceof PacingSettingsError && /^pacing: factor -1/.test(e.message),
    );
    assert.throws(() => checkPacing({ factor: 5, ceilingMs: Number.NaN }), PacingSettingsError);
  });
});
