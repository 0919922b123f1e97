import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler } from './scheduler.ts';

interface J {
  notBefore: number;
  name: string;
}
const job = (name: string, notBefore = 0): J => ({ name, notBefore });
const A = 'http://a.test';
const B = 'http://b.test';

describe('Scheduler', () => {
  test('at most one request in flight per host', () => {
    const s = new Scheduler<J>(100);
    s.add(A, job('a1'));
    s.add(A, job('a2'));
    assert.equal(s.next(0)?.job.name, 'a1');
    assert.equal(s.next(0), undefined, 'a second job of the same host waits while one is in flight');
    assert.equal(s.next(10_000), undefined, 'even much later, until the first completes');
  });

  test('the next request starts no earlier than the end of the previous one plus the delay', () => {
    const s = new Scheduler<J>(100);
    s.add(A, job('a1'));
    s.add(A, job('a2'));
    s.next(0);
    s.complete(A, 250);
    assert.equal(s.nextWakeAt(), 350, 'wakes exactly when the host becomes due');
    assert.equal(s.next(349.9), undefined);
    assert.equal(s.next(350)?.job.name, 'a2');
  });

  test('Crawl-delay lengthens the delay but never shortens it', () => {
    const s = new Scheduler<J>(1000);
    s.setCrawlDelay(A, 500);
    assert.deepEqual(s.effectiveDelay(A), { ms: 1000, source: 'default' });
    s.setCrawlDelay(A, 2500);
    assert.deepEqual(s.effectiveDelay(A), { ms: 2500, source: 'crawl-delay' });
    s.add(A, job('a1'));
    s.add(A, job('a2'));
    s.next(0);
    s.complete(A, 10);
    assert.equal(s.next(2509), undefined);
    assert.equal(s.next(2510)?.job.name, 'a2');
  });

  test('a backoff holds the host until it ends, even when the delay has passed', () => {
    const s = new Scheduler<J>(100);
    s.add(A, job('a1'));
    s.setBackoffUntil(A, 5000);
    assert.equal(s.next(200), undefined);
    assert.equal(s.nextWakeAt(), 5000);
    assert.equal(s.next(5000)?.job.name, 'a1');
  });

  test('a paused host runs only its priority jobs (robots.txt first)', () => {
    const s = new Scheduler<J>(100);
    s.add(A, job('page'));
    s.setPaused(A, true);
    s.add(A, job('robots'), true);
    const d = s.next(0);
    assert.equal(d?.job.name, 'robots');
    assert.equal(d?.priority, true);
    s.complete(A, 50);
    assert.equal(s.next(1000), undefined, 'still paused: no page job');
    assert.equal(s.nextWakeAt(), undefined, 'and no wake-up for it');
    s.setPaused(A, false);
    assert.equal(s.nextWakeAt(), 150);
    assert.equal(s.next(150)?.job.name, 'page');
  });

  test('every idle worker gets a job whenever several hosts are due', () => {
    const s = new Scheduler<J>(100);
    for (const h of [A, B, 'http://c.test']) {
      s.add(h, job(`${h}-1`));
      s.add(h, job(`${h}-2`));
    }
    const first = [s.next(0), s.next(0), s.next(0)].map((d) => d?.origin);
    assert.deepEqual(new Set(first), new Set([A, B, 'http://c.test']), 'three hosts due: three jobs at once');
    assert.equal(s.next(0), undefined);
    assert.equal(s.inFlightCount(), 3);
  });

  test('the host that has been due longest goes first (fair turns)', () => {
    const s = new Scheduler<J>(100);
    s.add(A, job('a1'));
    s.add(A, job('a2'));
    s.add(B, job('b1'));
    s.add(B, job('b2'));
    s.next(0);
    s.next(0);
    s.complete(A, 10);
    s.complete(B, 50);
    assert.equal(s.next(1000)?.origin, A, 'A was due at 110, B at 150');
    assert.equal(s.next(1000)?.origin, B);
  });

  test('a retried job waits for its own time without blocking the host', () => {
    const s = new Scheduler<J>(0);
    s.add(A, job('retry', 1000));
    s.add(A, job('fresh'));
    assert.equal(s.next(0)?.job.name, 'fresh');
    s.complete(A, 1);
    assert.equal(s.nextWakeAt(), 1000);
    assert.equal(s.next(999), undefined);
    assert.equal(s.next(1000)?.job.name, 'retry');
  });

  test('a restored clock keeps a restart from being a burst', () => {
    const s = new Scheduler<J>(1000);
    s.restoreClock(A, 5000);
    s.add(A, job('a1'));
    assert.equal(s.next(5500), undefined);
    assert.equal(s.next(6000)?.job.name, 'a1');
  });

  test('remove takes out matching queued jobs and returns them', () => {
    const s = new Scheduler<J>(0);
    s.add(A, job('/private/1'));
    s.add(A, job('/public'));
    const removed = s.remove(A, (j) => j.name.startsWith('/private'));
    assert.deepEqual(
      removed.map((j) => j.name),
      ['/private/1'],
    );
    assert.equal(s.queuedCount(), 1);
  });

  test('a driven day of traffic never breaks the rules', () => {
    // Drive 3 hosts with 4 "workers" and random response times; check the invariants on the produced timeline.
    const s = new Scheduler<J>(200);
    const hosts = [A, B, 'http://c.test'];
    for (const h of hosts) for (let i = 0; i < 40; i++) s.add(h, job(`${h}/${i}`));
    let rand = 7;
    const random = () => (rand = (rand * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const running: Array<{ origin: string; end: number; start: number }> = [];
    const timeline = new Map<string, Array<{ start: number; end: number }>>();
    let now = 0;
    let idle = 4;
    while (s.queuedCount() > 0 || running.length > 0) {
      for (let d = idle > 0 ? s.next(now) : undefined; d; d = idle > 0 ? s.next(now) : undefined) {
        idle--;
        running.push({ origin: d.origin, start: now, end: now + 20 + random() * 300 });
      }
      const wake = s.nextWakeAt();
      const nextEnd = Math.min(...running.map((r) => r.end));
      now = Math.min(nextEnd, idle > 0 && wake !== undefined ? Math.max(wake, now) : Infinity);
      for (const r of running.filter((x) => x.end <= now)) {
        running.splice(running.indexOf(r), 1);
        s.complete(r.origin, r.end);
        idle++;
        timeline.set(r.origin, [...(timeline.get(r.origin) ?? []), { start: r.start, end: r.end }]);
      }
    }
    for (const [origin, reqs] of timeline) {
      assert.equal(reqs.length, 40, origin);
      for (let i = 1; i < reqs.length; i++)
        assert.ok(reqs[i].start - reqs[i - 1].end >= 200, `${origin} gap ${reqs[i].start - reqs[i - 1].end}`);
    }
  });
});
