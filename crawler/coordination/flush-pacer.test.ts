/**
 * The flush pacer with flushes that take their time (storage answers Promises): its own logic, driven by
 * hand with ManualTime and flushes the test settles, and the real WriteOutage. What is asserted is what
 * the primary does: at most one flush in flight, a flush asked for meanwhile runs right after it (once,
 * however often it was asked for), the dispatch loop runs after each, and a refused write waits for the
 * outage's retry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ManualTime, settled } from '../../test-support/manual-time.ts';
import { FlushPacer } from './flush-pacer.ts';
import { PRIMARY_TIMING } from './primary-ports.ts';
import { WriteOutage } from './write-outage.ts';
import type { PrimaryToServer } from '../common/protocol.ts';

/** A pacer whose flushes wait until the test settles them; it records what the primary would see. */
function pacer() {
  const time = new ManualTime(1000);
  const flushes: Array<{ settle: (stored: number) => void; refuse: (err: Error) => void }> = [];
  const server: PrimaryToServer[] = [];
  let pumps = 0;
  const outage = new WriteOutage({
    clock: time.clock,
    timers: time,
    dataDir: '/data',
    toServer: (msg) => server.push(msg),
    log: () => {},
    fatal: (message) => assert.fail(message),
    retry: () => flusher.now(),
  });
  const flusher = new FlushPacer({
    timers: time,
    outage,
    flush: () =>
      new Promise<number>((resolve, reject) => {
        flushes.push({ settle: resolve, refuse: reject });
      }),
    transport: { toServer: (msg) => server.push(msg) },
    afterFlush: () => {
      pumps++;
    },
  });
  return { time, flushes, server, flusher, outage, pumps: () => pumps };
}

test('one flush in flight; asked for again meanwhile, one more runs right after it, with what was queued', async () => {
  const p = pacer();
  p.flusher.now();
  assert.equal(p.flushes.length, 1);
  assert.equal(p.flusher.inFlight, true);
  p.flusher.now(); // results arrived: asked again while the first is in flight
  p.flusher.now();
  p.flusher.soon();
  await p.time.advance(PRIMARY_TIMING.flushMs); // the timer fires too: still the first in flight
  assert.equal(p.flushes.length, 1, 'no second flush while the first is in flight');

  p.flushes[0].settle(2);
  await settled();
  assert.equal(p.flushes.length, 2, 'the next one started right after, once');
  assert.equal(p.pumps(), 1, 'the dispatch loop ran after the first');
  assert.deepEqual(p.server, [{ type: 'pages-stored', count: 2 }]);

  p.flushes[1].settle(0);
  await settled();
  assert.equal(p.flushes.length, 2, 'nothing more was asked for');
  assert.equal(p.flusher.inFlight, false);
  assert.equal(p.pumps(), 2);
  await p.flusher.idle();
});

test('a flush the database refuses waits for the outage: no flush until its retry, then one', async () => {
  const p = pacer();
  p.flusher.now();
  p.flusher.now(); // asked again while the first runs: dropped with the refusal, the retry stores everything
  p.flushes[0].refuse(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }));
  await settled();
  assert.equal(p.outage.waiting, true, 'the outage waits to retry');
  assert.equal(p.flushes.length, 1, 'no flush right after a refusal');
  p.flusher.now();
  p.flusher.soon();
  assert.equal(p.flushes.length, 1, 'nor while the retry is pending');
  await p.time.advance(PRIMARY_TIMING.writeRetryFirstMs);
  assert.equal(p.flushes.length, 2, 'the retry flushes');
  p.flushes[1].settle(1);
  await settled();
  p.outage.succeeded();
  assert.deepEqual(
    p.server.map((m) => m.type),
    ['error', 'pages-stored', 'recovered'],
  );
});
