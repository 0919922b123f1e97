/**
 * Pacing in the Scheduler, with an injected clock: the delay follows the server's response time,
 * strain slows the group before any backoff, factor 0 changes nothing; and delayReason names the rule
 * that set the delay, in words and numbers.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler, type ServerSignal } from './scheduler.ts';
import { serverSignal } from './pacing.ts';

interface J {
  notBefore: number;
  name: string;
}
const job = (name: string, notBefore = 0): J => ({ name, notBefore });
const A = 'https://www.example.org';
const B = 'https://docs.example.org';
const ok = (ms: number): ServerSignal => ({ responseMs: ms, load: 'ok' });
const failed = (status: number, ms: number): ServerSignal =>
  serverSignal({ status, startedAt: 0, endedAt: ms, error: null });

/** Dispatches one job of `origin` at `start` and completes it `ms` later with `signal`; returns its end. */
function request(s: Scheduler<J>, origin: string, start: number, ms: number, signal: ServerSignal): number {
  s.add(origin, job(`${origin}@${start}`));
  const d = s.next(start);
  assert.equal(d?.origin, origin, `${origin} is due at ${start}`);
  s.complete(origin, start + ms, signal);
  return start + ms;
}

describe('Scheduler: pacing by response time', () => {
  test('the next request waits factor x the response time when that is longer than the delay', () => {
    const s = new Scheduler<J>(1000, { pacing: { factor: 5 } });
    const end = request(s, A, 0, 400, ok(400));
    s.add(A, job('next'));
    assert.equal(s.nextWakeAt(), end + 2000);
    assert.equal(s.next(end + 1999), undefined);
    assert.equal(s.next(end + 2000)?.job.name, 'next');
    assert.deepEqual(s.delayReason(A, end + 2000), {
      ms: 2000,
      source: 'pacing',
      text: '2.0 s: 5 x 0.4 s response time',
    });
  });

  test('a fast server is held by the configured delay, never less', () => {
    const s = new Scheduler<J>(1000, { pacing: { factor: 5 } });
    const end = request(s, A, 0, 50, ok(50));
    assert.equal(s.dueAt(A), end + 1000);
    assert.equal(s.delayReason(A, end).source, 'default');
    s.setCrawlDelay(A, 3000);
    assert.deepEqual(s.delayReason(A, end), { ms: 3000, source: 'crawl-delay', text: '3.0 s: robots.txt Crawl-delay' });
  });

  test('climbing response times lengthen the delay at once', () => {
    const s = new Scheduler<J>(100, { pacing: { factor: 5 } });
    let t = 0;
    const gaps: number[] = [];
    for (const ms of [100, 400, 1600]) {
      const end = request(s, A, t, ms, ok(ms));
      t = s.dueAt(A);
      gaps.push(t - end);
    }
    assert.deepEqual(gaps, [500, 2000, 8000]);
  });

  test('a 5xx slows the host before its error streak backs it off; a success restores the pace', () => {
    const s = new Scheduler<J>(100, { pacing: { factor: 5 } });
    let end = request(s, A, 0, 400, ok(400));
    end = request(s, A, s.dueAt(A), 400, failed(500, 400));
    assert.equal(s.dueAt(A) - end, 4000, 'one 500: twice the pacing, with no backoff set');
    assert.match(
      s.delayReason(A, end).text,
      /^4\.0 s: 5 x 2 \(slowed after 1 server error in a row\) x 0\.4 s response time$/,
    );
    end = request(s, A, s.dueAt(A), 400, failed(503, 400));
    assert.equal(s.dueAt(A) - end, 8000, 'a second: four times');
    end = request(s, A, s.dueAt(A), 400, ok(400));
    assert.equal(s.dueAt(A) - end, 2000, 'a success: back to five times');
  });

  test('the factor part is capped', () => {
    const s = new Scheduler<J>(1000, { pacing: { factor: 5, ceilingMs: 60_000 } });
    const end = request(s, A, 0, 30_000, ok(30_000));
    assert.equal(s.dueAt(A) - end, 60_000);
    assert.equal(s.delayReason(A, end).text, '60.0 s: 5 x 30.0 s response time, capped at 60.0 s');
  });

  test('with factor 0 the clock is the one without pacing, whatever the answers say', () => {
    const paced = new Scheduler<J>(300, { pacing: { factor: 0 } });
    const plain = new Scheduler<J>(300);
    let t = 0;
    for (const [ms, sig] of [
      [2000, ok(2000)],
      [5000, failed(503, 5000)],
      [10, ok(10)],
    ] as const) {
      request(paced, A, t, ms, sig);
      request(plain, A, t, ms, sig);
      assert.equal(paced.dueAt(A), plain.dueAt(A));
      assert.deepEqual(paced.delayReason(A, t), { ms: 300, source: 'default', text: '0.3 s: the default delay' });
      t = paced.dueAt(A);
    }
  });

  test("in domain grouping the pace is the group's: a slow answer on one name paces the next request to another", () => {
    const s = new Scheduler<J>(100, { grouping: 'domain', pacing: { factor: 5 } });
    const end = request(s, A, 0, 1000, ok(1000));
    s.add(B, job('docs'));
    assert.equal(s.dueAt(B), end + 5000);
    assert.equal(s.next(end + 4999), undefined);
    assert.equal(s.next(end + 5000)?.origin, B);
  });

  test('setPacing changes the factor for every group at once', () => {
    const s = new Scheduler<J>(100);
    const end = request(s, A, 0, 400, ok(400));
    s.add(A, job('next'));
    assert.equal(s.nextWakeAt(), end + 100);
    s.setPacing({ factor: 3 });
    assert.equal(s.nextWakeAt(), end + 1200);
  });
});

describe('Scheduler.delayReason: backoff', () => {
  test('a backoff running now that ends later than the delay is the reason, counted from the last request', () => {
    const s = new Scheduler<J>(1000);
    request(s, A, 0, 100, ok(100));
    s.setBackoffUntil(A, 30_100);
    assert.deepEqual(s.delayReason(A, 200), {
      ms: 30_000,
      source: 'backoff',
      text: '30.0 s: backing off after errors',
    });
    s.setBackoffUntil(A, 120_100, 'retry-after');
    assert.deepEqual(s.delayReason(A, 200), {
      ms: 120_000,
      source: 'retry-after',
      text: '120.0 s: the site asked to wait (Retry-After)',
    });
    assert.equal(s.delayReason(A, 120_100).source, 'default', 'a backoff that is over is no reason');
  });

  test("the group's backoff names the group", () => {
    const s = new Scheduler<J>(1000, { grouping: 'domain' });
    request(s, A, 0, 100, ok(100));
    s.setGroupBackoffUntil(A, 10_100);
    assert.deepEqual(s.delayReason(B, 200), {
      ms: 10_000,
      source: 'backoff',
      text: '10.0 s: backing off: a host of example.org said the server is overloaded',
    });
  });
});
