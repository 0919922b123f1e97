import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestRecord } from '../../test-support/test-web.ts';
import { overheadBreakdown, pipelineCeiling, politenessEfficiency, summarize } from './bench-metrics.ts';

function rec(path: string, start: number, end: number): RequestRecord {
  return { method: 'GET', path, userAgent: 'LanternBot/0.1.0', status: 200, start, end, aborted: false, connection: 1 };
}

/** robots.txt, then `pages` pages of `responseMs` each, each starting `delayMs + extraMs` after the previous ended. */
function perfectHost(opts: {
  t0: number;
  pages: number;
  responseMs: number;
  delayMs: number;
  extraMs?: number;
}): RequestRecord[] {
  const log = [rec('/robots.txt', opts.t0, opts.t0 + 1)];
  let t = opts.t0 + 1 + opts.delayMs + (opts.extraMs ?? 0);
  for (let i = 0; i < opts.pages; i++) {
    log.push(rec(i === 0 ? '/' : `/p/${i}`, t, t + opts.responseMs));
    t += opts.responseMs + opts.delayMs + (opts.extraMs ?? 0);
  }
  return log;
}

describe('politenessEfficiency', () => {
  test('a crawl that waits exactly the delay scores 1 and has no violations', () => {
    const hosts = [
      { host: 'a', log: perfectHost({ t0: 0, pages: 10, responseMs: 10, delayMs: 100 }) },
      { host: 'b', log: perfectHost({ t0: 0, pages: 10, responseMs: 10, delayMs: 100 }) },
    ];
    const r = politenessEfficiency(hosts, 100);
    assert.equal(r.violations, 0);
    assert.equal(r.maxInFlight, 1);
    assert.equal(r.pages, 20);
    assert.equal(r.robots, 2);
    assert.equal(r.meanResponseMs, 10);
    assert.ok(Math.abs(r.boundPerSec - 2000 / 110) < 1e-9, `bound ${r.boundPerSec}`);
    assert.ok(Math.abs(r.efficiency - 1) < 1e-9, `efficiency ${r.efficiency}`);
    for (const h of r.perHost) assert.ok(Math.abs(h.efficiency - 1) < 1e-9);
    assert.equal(r.overheadMs.mean, 0);
  });

  test('20 ms of crawler overhead per request lowers the efficiency to (delay + response) / (delay + response + 20)', () => {
    const log = perfectHost({ t0: 0, pages: 50, responseMs: 10, delayMs: 100, extraMs: 20 });
    const r = politenessEfficiency([{ host: 'a', log }], 100);
    assert.equal(r.violations, 0);
    assert.ok(Math.abs(r.perHost[0].efficiency - 110 / 130) < 1e-9, `per host ${r.perHost[0].efficiency}`);
    assert.ok(Math.abs(r.overheadMs.mean - 20) < 1e-9);
    assert.ok(r.efficiency < 0.86 && r.efficiency > 0.84, `global ${r.efficiency}`);
  });

  test('a gap shorter than the delay and an overlap are both violations', () => {
    const log = [rec('/robots.txt', 0, 1), rec('/', 101, 111), rec('/p/1', 150, 160), rec('/p/2', 155, 170)];
    const r = politenessEfficiency([{ host: 'a', log }], 100);
    assert.equal(r.violations, 2);
    assert.equal(r.maxInFlight, 2);
  });

  test('the gaps after robots.txt and after the root page are reported apart from the others', () => {
    const log = [rec('/robots.txt', 0, 1), rec('/', 301, 311), rec('/p/1', 461, 471), rec('/p/2', 576, 586)];
    const r = politenessEfficiency([{ host: 'a', log }], 100);
    assert.equal(r.afterRobotsOverheadMs.mean, 200);
    assert.equal(r.afterRootOverheadMs.mean, 50);
    assert.equal(r.overheadMs.mean, 5);
  });
});

describe('overheadBreakdown', () => {
  test('splits each gap into body receipt, the primary round trip and request sending', () => {
    const log = [rec('/robots.txt', 0, 1), rec('/', 101, 111), rec('/p/1', 221, 231)];
    const timings = [
      { path: '/', startedAt: 100, endedAt: 112 },
      { path: '/p/1', startedAt: 218, endedAt: 232 },
    ];
    const b = overheadBreakdown([{ log, timings }], 100);
    assert.equal(b.pairs, 1);
    assert.equal(b.receiveMs.mean, 1);
    assert.equal(b.sendMs.mean, 3);
    assert.equal(b.primaryRoundTripMs.mean, 6);
  });

  test('pairs whose requests are missing from the worker timings are left out', () => {
    const log = [rec('/', 0, 10), rec('/p/1', 120, 130), rec('/p/2', 240, 250)];
    const b = overheadBreakdown([{ log, timings: [{ path: '/p/1', startedAt: 119, endedAt: 131 }] }], 100);
    assert.equal(b.pairs, 0);
  });
});

test('summarize gives nearest-rank percentiles and NaN for an empty sample', () => {
  const s = summarize([5, 1, 4, 2, 3, 6, 7, 8, 9, 10]);
  assert.deepEqual([s.n, s.mean, s.p50, s.p95, s.min, s.max], [10, 5.5, 5, 10, 1, 10]);
  assert.ok(Number.isNaN(summarize([]).mean));
});

describe('pipelineCeiling', () => {
  test('the ratio is the parse over the sum of the parts; without the sites, serving and receiving are left out', () => {
    const c = pipelineCeiling({ parse: 1.2, fetchSend: 0.4, serveReceive: 0.3, store: 0.5 });
    assert.ok(Math.abs(c.sum - 2.4) < 1e-9);
    assert.ok(Math.abs(c.ratio - 0.5) < 1e-9);
    assert.ok(Math.abs(c.sitesElsewhere - 1.2 / 2.1) < 1e-9);
  });
});
