/**
 * A leased Scheduler (a crawler node on PostgreSQL, issue 29), with an injected clock: a group starts requests
 * only within the window its lease gives (from its takeover clock's next start until its lease's start limit),
 * never without one, and hands on its clock (next start, gap, Crawl-delay, backoff, pacing) as a release writes it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler } from './scheduler.ts';
import { NO_PACE } from './pacing.ts';

interface J {
  notBefore: number;
  name: string;
}
const job = (name: string, notBefore = 0): J => ({ name, notBefore });
const A = 'https://a.example';
const B = 'https://b.example';

test('a leased scheduler starts no request for a group until its lease gives a window', () => {
  const s = new Scheduler<J>(100, { leased: true, grouping: 'host' });
  s.add(A, job('a1'));
  assert.equal(s.next(0), undefined, 'no lease: nothing starts');
  assert.equal(s.nextWakeAt(), undefined, 'and nothing is due later either');
  s.setStartWindow(A, 0, 1000);
  assert.equal(s.next(0)?.job.name, 'a1', 'held: it starts');
});

test("a group's first request waits for its window's start, and none starts after the window's end", () => {
  const s = new Scheduler<J>(100, { leased: true, grouping: 'host' });
  s.add(A, job('a1'));
  s.add(A, job('a2'));
  s.setStartWindow(A, 250, 400); // a takeover's stored clock says not before 250
  assert.equal(s.next(249), undefined, 'before the stored next start');
  assert.equal(s.nextWakeAt(), 250);
  assert.equal(s.next(250)?.job.name, 'a1');
  s.complete(A, 320); // next due at 420, past the window's end
  assert.equal(s.next(420), undefined, 'the lease allows no start after 400');
  assert.equal(s.nextWakeAt(), undefined, 'not due until a renewal moves the window');
  s.setStartWindow(A, 250, 5000); // renewed
  assert.equal(s.next(420)?.job.name, 'a2');
});

test('a group due inside its window but dispatched after its end is passed over; other groups still start', () => {
  const s = new Scheduler<J>(100, { leased: true, grouping: 'host' });
  s.add(A, job('a1'));
  s.add(B, job('b1'));
  s.setStartWindow(A, 0, 50);
  s.setStartWindow(B, 0, 10_000);
  const first = s.next(60); // A was due at 0 and is first in line, but its window ended at 50
  assert.equal(first?.job.name, 'b1');
  assert.equal(s.next(60), undefined, 'A stays out until its next window');
});

test('a lost lease (window -Infinity) stops its group at once; an unleased scheduler ignores windows entirely', () => {
  const s = new Scheduler<J>(100, { leased: true, grouping: 'host' });
  s.add(A, job('a1'));
  s.setStartWindow(A, 0, 10_000);
  s.setStartWindow(A, -Infinity, -Infinity);
  assert.equal(s.next(5), undefined);
  const free = new Scheduler<J>(100, { grouping: 'host' });
  free.add(A, job('a1'));
  assert.equal(free.next(0)?.job.name, 'a1', 'SQLite: every group, always');
});

test("a group's handover: next start from its last end and longest gap, its Crawl-delay, backoff, work and pace", () => {
  const s = new Scheduler<J>(100, { leased: true, grouping: 'domain', pacing: { factor: 0 } });
  const www = 'https://www.example.org';
  const docs = 'https://docs.example.org';
  s.setStartWindow('example.org', 0, 100_000);
  s.add(www, job('w1'));
  s.add(docs, job('d1'));
  s.setCrawlDelay(docs, 700);
  const d = s.next(10)!;
  assert.deepEqual(s.groupHandover('example.org').inFlight, 1);
  s.complete(d.origin, 40, { responseMs: 30, load: 'ok' });
  const h = s.groupHandover('example.org');
  assert.equal(h.gapMs, 700, "the group's longest Crawl-delay");
  assert.equal(h.crawlDelayMs, 700);
  assert.equal(h.nextStartAt, 740, 'its last end plus the gap');
  assert.equal(h.queued, 1);
  assert.equal(h.inFlight, 0);
  assert.equal(h.backoffUntil, null);
  assert.equal(h.pace.responseMs, 30);
  assert.deepEqual(s.hostsOf('example.org').sort(), [docs, www]);
  s.setGroupBackoffUntil(www, 5000);
  assert.equal(s.groupHandover('example.org').nextStartAt, 5000, 'a backoff holds the next start');
  s.continueGroup('example.org', { pace: { responseMs: 90, slowdown: 2, strained: 1 }, backoffUntil: 6000 });
  assert.equal(s.groupHandover('example.org').backoffUntil, 6000, "a takeover keeps the old owner's backoff");
  assert.equal(s.groupHandover('example.org').pace.slowdown, 2);
});

test("a taken group's Crawl-delay holds each of its hosts until this node reads that host's robots.txt", () => {
  const s = new Scheduler<J>(100, { leased: true, grouping: 'domain', pacing: { factor: 0 } });
  const www = 'https://www.example.org';
  const docs = 'https://docs.example.org';
  const group = 'example.org';
  s.continueGroup(group, {
    pace: NO_PACE,
    backoffUntil: null,
    crawlDelayMs: 3000,
  });
  assert.equal(s.groupHandover(group).crawlDelayMs, 3000, 'taken, no host seen yet: the handed-on delay goes on');
  s.setStartWindow(group, 0, 100_000);
  s.add(www, job('robots-www'), true);
  s.add(docs, job('robots-docs'), true);
  const first = s.next(0)!;
  s.complete(first.origin, 50);
  assert.equal(s.next(3049), undefined, "the next host's robots.txt read waits the group's Crawl-delay, not 100 ms");
  assert.equal(s.nextWakeAt(), 3050);
  assert.equal(s.groupHandover(group).crawlDelayMs, 3000, 'handed on again while a host is unread');
  s.setCrawlDelay(first.origin, undefined); // its robots.txt read: no Crawl-delay
  s.setCrawlDelay(s.next(3050)!.origin, 500);
  s.complete(first.origin === www ? docs : www, 3100);
  assert.equal(s.groupHandover(group).crawlDelayMs, 500, 'every host read: their own delays alone');
  s.add(first.origin, job('page'));
  assert.equal(s.next(3200)?.job.name, 'page', 'a host read without Crawl-delay keeps the default delay');
});
