/**
 * Politeness groups in the Scheduler, with an injected clock: one request at a time per registrable
 * domain and the spacing kept across its names, turns among the names, and each name's own backoff
 * and Crawl-delay as delay-reason.ts states them.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler, type SchedulerOptions } from './scheduler.ts';

interface J {
  notBefore: number;
  name: string;
}
const job = (name: string, notBefore = 0): J => ({ name, notBefore });
interface Req {
  origin: string;
  start: number;
  end: number;
}

const NAMES = [
  'https://www.example.org',
  'https://docs.example.org',
  'https://blog.example.org',
  'https://wiki.example.org',
];

/**
 * Runs `s` with `workers` workers until its queues are empty (or `until`), each request taking
 * `duration(origin)` ms, and returns every request in start order.
 */
function run(
  s: Scheduler<J>,
  workers: number,
  duration: (origin: string, i: number) => number,
  until = Infinity,
): Req[] {
  const running: Req[] = [];
  const done: Req[] = [];
  let now = 0;
  let i = 0;
  while ((s.queuedCount() > 0 || running.length > 0) && now < until) {
    for (
      let d = running.length < workers ? s.next(now) : undefined;
      d;
      d = running.length < workers ? s.next(now) : undefined
    ) {
      running.push({ origin: d.origin, start: now, end: now + duration(d.origin, i++) });
    }
    const wake = s.nextWakeAt();
    now = Math.min(
      ...running.map((r) => r.end),
      running.length < workers && wake !== undefined ? Math.max(wake, now) : Infinity,
    );
    if (now === Infinity) break;
    for (const r of running.filter((x) => x.end <= now)) {
      running.splice(running.indexOf(r), 1);
      s.complete(r.origin, r.end);
      done.push(r);
    }
  }
  return done.sort((a, b) => a.start - b.start);
}

/** The pairs of consecutive requests (by start) that overlap or leave less than `gapMs` between them. */
function violations(reqs: Req[], gapMs: number): string[] {
  const bad: string[] = [];
  for (let k = 1; k < reqs.length; k++) {
    const gap = reqs[k].start - reqs[k - 1].end;
    if (gap < gapMs)
      bad.push(
        `${reqs[k - 1].origin} ended ${reqs[k - 1].end}, ${reqs[k].origin} started ${reqs[k].start} (gap ${gap})`,
      );
  }
  return bad;
}

const domain: SchedulerOptions = { grouping: 'domain' };

describe('Scheduler: politeness groups', () => {
  test('four names of one domain never overlap and keep the spacing across the group', () => {
    const s = new Scheduler<J>(200, domain);
    for (const o of NAMES) for (let k = 0; k < 15; k++) s.add(o, job(`${o}/${k}`));
    let seed = 3;
    const reqs = run(s, 4, () => 20 + ((seed = (seed * 48271) % 2147483647) % 300));
    assert.equal(reqs.length, 60);
    assert.deepEqual(violations(reqs, 200), [], 'one request at a time on the whole domain, 200 ms apart');
  });

  test('the same four names in host grouping are four clocks (what issue 18 is about)', () => {
    const s = new Scheduler<J>(200);
    for (const o of NAMES) s.add(o, job(o));
    assert.equal([s.next(0), s.next(0), s.next(0), s.next(0)].filter(Boolean).length, 4);
  });

  test('names of a group take turns, each served in round before any is served again', () => {
    const s = new Scheduler<J>(100, domain);
    for (const o of NAMES) for (let k = 0; k < 5; k++) s.add(o, job(`${o}/${k}`));
    const order = run(s, 2, () => 10).map((r) => r.origin);
    for (let round = 0; round < 5; round++) {
      assert.deepEqual(
        new Set(order.slice(round * 4, round * 4 + 4)),
        new Set(NAMES),
        `round ${round}: ${order.slice(round * 4, round * 4 + 4).join(' ')}`,
      );
    }
  });

  test('two github.io users stay independent: both go at once', () => {
    const s = new Scheduler<J>(1000, domain);
    s.add('https://alice.github.io', job('a'));
    s.add('https://bob.github.io', job('b'));
    const both = [s.next(0), s.next(0)].map((d) => d?.group);
    assert.deepEqual(both, ['alice.github.io', 'bob.github.io']);
  });

  test('IP addresses and single-label names are groups of their own; ports of one address share one', () => {
    const s = new Scheduler<J>(1000, domain);
    const own = [
      'http://127.0.0.2:8001',
      'http://127.0.0.3:8001',
      'http://localhost:3000',
      'http://[::1]:8080',
      'http://intranet',
    ];
    for (const o of own) s.add(o, job(o));
    s.add('http://127.0.0.2:8002', job('same address, other port'));
    const first = own.map(() => s.next(0)?.origin);
    assert.deepEqual(new Set(first), new Set(own), 'five groups: five requests at once');
    assert.equal(s.next(0), undefined, '127.0.0.2:8002 waits for 127.0.0.2:8001');
    s.complete('http://127.0.0.2:8001', 50);
    assert.equal(s.next(1049), undefined);
    assert.equal(s.next(1050)?.origin, 'http://127.0.0.2:8002', 'and the delay after it');
  });

  test("a name's Crawl-delay is quiet on the whole group before that name; its siblings are not held by it otherwise", () => {
    const s = new Scheduler<J>(100, domain);
    const [www, docs] = NAMES;
    s.setCrawlDelay(www, 1000);
    for (let k = 0; k < 4; k++) {
      s.add(www, job(`www/${k}`));
      s.add(docs, job(`docs/${k}`));
    }
    const reqs = run(s, 4, () => 10);
    for (let k = 1; k < reqs.length; k++) {
      const gap = reqs[k].start - reqs[k - 1].end;
      assert.ok(gap >= (reqs[k].origin === www ? 1000 : 100), `${reqs[k].origin} after ${gap} ms`);
      assert.ok(gap <= (reqs[k].origin === www ? 1000 : 100), `and no longer: ${reqs[k].origin} after ${gap} ms`);
    }
    assert.deepEqual(
      reqs.map((r) => r.origin),
      [www, docs, www, docs, www, docs, www, docs],
      'the two take turns',
    );
  });

  test("a name's backoff never delays its siblings; the group's backoff holds them all", () => {
    const s = new Scheduler<J>(100, domain);
    const [www, docs, blog] = NAMES;
    for (let k = 0; k < 3; k++) for (const o of [www, docs, blog]) s.add(o, job(`${o}/${k}`));
    s.setBackoffUntil(www, 10_000);
    const early = run(s, 2, () => 10, 10_000).filter((r) => r.start < 10_000);
    assert.ok(
      early.every((r) => r.origin !== www),
      'www waits for its backoff',
    );
    assert.equal(early.length, 6, 'docs and blog went on, every 110 ms');
    assert.equal(s.dueAt(www), 10_000);

    const t = new Scheduler<J>(100, domain);
    for (const o of [www, docs]) t.add(o, job(o));
    t.setGroupBackoffUntil(blog, 5_000, 'retry-after');
    assert.equal(t.next(4_999), undefined, 'the server said it is overloaded: no name of it is asked');
    assert.equal(t.nextWakeAt(), 5_000);
    assert.equal(t.next(5_000)?.origin, www);
    assert.equal(t.delayReason(docs, 5_000).source, 'default');
  });

  test('a restored clock of any name holds the whole group after a restart', () => {
    const s = new Scheduler<J>(1000, domain);
    s.restoreClock(NAMES[0], 5000);
    s.add(NAMES[1], job('docs'));
    assert.equal(s.dueAt(NAMES[1]), 6000);
    assert.equal(s.next(5999), undefined);
    assert.equal(s.next(6000)?.origin, NAMES[1]);
  });

  test('a job dropped before contact (complete at -Infinity) frees the group without moving its clock', () => {
    const s = new Scheduler<J>(1000, domain);
    s.add(NAMES[0], job('disallowed'));
    s.add(NAMES[1], job('allowed'));
    const d = s.next(0);
    assert.equal(d?.origin, NAMES[0]);
    s.complete(NAMES[0], -Infinity);
    assert.equal(s.next(0)?.origin, NAMES[1], 'no request was made: the group is free at once');
  });
});
