/**
 * The heap-based Scheduler against the straightforward scanning one (test-support/reference-scheduler.ts):
 * long random sequences of every operation, with an injected clock, must give the same dispatches in
 * the same order, the same wake-up times and the same clocks, in both groupings, with and without pacing.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Scheduler, type SchedulerOptions, type ServerSignal } from './scheduler.ts';
import { ReferenceScheduler } from '../../test-support/reference-scheduler.ts';

interface J {
  notBefore: number;
  id: number;
}

const ORIGINS = [
  'http://a.test',
  'https://www.example.org',
  'https://docs.example.org',
  'http://blog.example.org:8080',
  'https://wiki.example.org',
  'https://alice.github.io',
  'https://bob.github.io',
  'http://127.0.0.2:8001',
  'http://127.0.0.2:8002',
  'http://localhost:3000',
  'http://[::1]:8080',
  'https://example.co.uk',
  'https://www.example.co.uk',
  'http://b.test',
  'https://shop.b.test',
];

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Drives both schedulers through `steps` random operations and asserts they agree at every step; returns how many jobs were dispatched. */
function drive(seed: number, steps: number, delayMs: number, options: SchedulerOptions): number {
  const random = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const fast = new Scheduler<J>(delayMs, options);
  const ref = new ReferenceScheduler<J>(delayMs, options);
  const running: Array<{ origin: string; start: number; end: number }> = [];
  const slots = 1 + Math.floor(random() * 5);
  let now = Math.floor(random() * 1000);
  let nextId = 1;
  let dispatched = 0;
  const where = (step: number, what: string) => `seed ${seed}, step ${step}, t=${now}: ${what}`;

  for (let step = 0; step < steps; step++) {
    const op = random();
    const origin = pick(ORIGINS);
    if (op < 0.35) {
      const r = random();
      const notBefore =
        r < 0.6
          ? 0
          : r < 0.7
            ? -Infinity
            : r < 0.8
              ? Math.max(1, now - Math.floor(random() * 500))
              : now + Math.floor(random() * 3000);
      const job = { id: nextId++, notBefore };
      const priority = random() < 0.12;
      fast.add(origin, job, priority);
      ref.add(origin, job, priority);
    } else if (op < 0.4) {
      const paused = random() < 0.5;
      fast.setPaused(origin, paused);
      ref.setPaused(origin, paused);
    } else if (op < 0.44) {
      const ms = random() < 0.4 ? undefined : Math.floor(random() * 800);
      fast.setCrawlDelay(origin, ms);
      ref.setCrawlDelay(origin, ms);
    } else if (op < 0.48) {
      const until = random() < 0.5 ? 0 : now + Math.floor(random() * 2000);
      fast.setBackoffUntil(origin, until);
      ref.setBackoffUntil(origin, until);
    } else if (op < 0.5) {
      const until = random() < 0.5 ? 0 : now + Math.floor(random() * 2000);
      fast.setGroupBackoffUntil(origin, until);
      ref.setGroupBackoffUntil(origin, until);
    } else if (op < 0.52) {
      const at = now - Math.floor(random() * 1000);
      fast.restoreClock(origin, at);
      ref.restoreClock(origin, at);
    } else if (op < 0.525) {
      const ms = Math.floor(random() * 3) * delayMs;
      fast.setDefaultDelay(ms);
      ref.setDefaultDelay(ms);
    } else if (op < 0.54) {
      const mod = 2 + Math.floor(random() * 3);
      const a = fast
        .remove(origin, (j) => j.id % mod === 0)
        .map((j) => j.id)
        .sort((x, y) => x - y);
      const b = ref
        .remove(origin, (j) => j.id % mod === 0)
        .map((j) => j.id)
        .sort((x, y) => x - y);
      assert.deepEqual(a, b, where(step, `remove(${origin})`));
    } else {
      // Time moves to the next event: a request ending, the wake-up, or a little further.
      const wake = fast.nextWakeAt();
      assert.equal(wake, ref.nextWakeAt(), where(step, 'nextWakeAt'));
      const ends = running.map((r) => r.end);
      const candidates = [...ends, now + Math.floor(random() * 400)];
      if (wake !== undefined && running.length < slots) candidates.push(Math.max(wake, now));
      now = Math.max(now, Math.min(...candidates));
      running.sort((x, y) => x.end - y.end || x.origin.localeCompare(y.origin));
      while (running.length > 0 && running[0].end <= now) {
        const r = running.shift()!;
        const dropped = random() < 0.08;
        const roll = random();
        const signal: ServerSignal | undefined =
          dropped || roll < 0.3
            ? undefined
            : { responseMs: r.end - r.start, load: roll < 0.45 ? 'strained' : roll < 0.5 ? 'unknown' : 'ok' };
        fast.complete(r.origin, dropped ? -Infinity : r.end, signal);
        ref.complete(r.origin, dropped ? -Infinity : r.end, signal);
      }
    }
    while (running.length < slots) {
      const a = fast.next(now);
      const b = ref.next(now);
      assert.deepEqual(
        a && { origin: a.origin, group: a.group, id: a.job.id, priority: a.priority },
        b && { origin: b.origin, group: b.group, id: b.job.id, priority: b.priority },
        where(step, 'next'),
      );
      if (!a) break;
      dispatched++;
      const slow = random() < 0.1;
      running.push({ origin: a.origin, start: now, end: now + Math.floor(random() * (slow ? 4000 : 300)) });
    }
    const probe = pick(ORIGINS);
    assert.equal(fast.dueAt(probe), ref.dueAt(probe), where(step, `dueAt(${probe})`));
    assert.equal(fast.queuedCount(), ref.queuedCount(), where(step, 'queuedCount'));
    assert.equal(fast.inFlightCount(), ref.inFlightCount(), where(step, 'inFlightCount'));
  }
  return dispatched;
}

const CASES: Array<{ name: string; delayMs: number; options: SchedulerOptions }> = [
  { name: 'host grouping, no pacing (the defaults)', delayMs: 100, options: {} },
  { name: 'host grouping, no delay', delayMs: 0, options: { grouping: 'host' } },
  { name: 'domain grouping, no pacing', delayMs: 100, options: { grouping: 'domain' } },
  { name: 'host grouping, pacing 5 capped at 3 s', delayMs: 100, options: { pacing: { factor: 5, ceilingMs: 3000 } } },
  { name: 'domain grouping, pacing 2', delayMs: 50, options: { grouping: 'domain', pacing: { factor: 2 } } },
];

describe('Scheduler agrees with the scanning reference', () => {
  for (const c of CASES) {
    test(`${c.name}: same dispatches in the same order over long random runs`, () => {
      let dispatched = 0;
      for (const seed of [1, 2, 3, 4]) dispatched += drive(seed * 7919 + c.delayMs, 4000, c.delayMs, c.options);
      assert.ok(dispatched > 1000, `the runs dispatched enough to mean something (${dispatched})`);
    });
  }
});
