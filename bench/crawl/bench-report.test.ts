/**
 * The crawl section reads part 2's throughput ratio against the ceiling its own parts allow (parse over the
 * sum of the parts, measured in the same run), not against a fixed target.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatReport, type ThroughputBench } from './bench-report.ts';

const cpu = {
  wallMs: 10_000,
  benchMs: 2_000,
  primaryMs: 1_000,
  workersMs: 6_000,
  machineBusyMs: 18_000,
  machineTotalMs: 20_000,
  loadStart: 1,
  loadEnd: 2,
};
const snapshots = { samples: 20, meanInFlight: 7, meanDueWaiting: 3, allBusyShare: 0.9 };

/** Part 2's figures: parse 1.2 ms, fetch and send 0.4, serve and receive 0.3, store 0.5 per page; ratio 0.2. */
const throughput: ThroughputBench = {
  sites: 50,
  pagesPerSite: 30,
  workers: 2,
  meanBodyBytes: 30_000,
  pagesStored: 1500,
  pageRequests: 1500,
  windowMs: 5_000,
  endToEndPerSec: 300,
  meanResponseMs: 2,
  maxInFlightPerHost: 1,
  cpu,
  snapshots,
  connections: 100,
  parse: {
    processes: 2,
    durationMs: 4_000,
    pagesPerSec: 1500,
    msPerPage: 1.3,
    cpuMsPerPage: 1.2,
    onCpuShare: 0.95,
    digest: 'x',
    perProcess: [],
  },
  ratio: 0.2,
  parts: {
    fetch: { pages: 3000, fetchSendMs: 0.4, serveReceiveMs: 0.3 },
    store: { pagesStored: 1500, flushes: 30, cpuMsPerPage: 0.5 },
  },
  lanternSide: {
    name: 'Lantern (2 workers)',
    pages: 1500,
    expected: 1500,
    pageRequests: 1500,
    windowMs: 5_000,
    crawlerCpuMs: 7_000,
    testWebCpuMs: 2_000,
    maxInFlightPerHost: 1,
    crawlerMaxInFlightPerHost: 1,
    crawlerMaxInFlight: 8,
    loadStart: 1,
  },
};

const machine = { cpu: 'test CPU', cores: 2, ramGiB: 8, node: 'v20', platform: 'test' };

test("part 2's ratio is read against the parts' own ceiling, with no withdrawn target", () => {
  const report = formatReport({ date: new Date(0), machine, throughput });
  const row = report.split('\n').find((l) => l.startsWith('| **Ratio** |'));
  // Ceiling: 1.2 / (1.2 + 0.4 + 0.3 + 0.5) = 0.50; the crawl reached 0.20 / 0.50 = 0.40 of it.
  assert.equal(
    row,
    '| **Ratio** | **0.20** of the parse-only limit: 0.40 of the 0.50 the parts alone allow (see "The parts alone" below) |',
  );
  assert.ok(!report.includes('target'), 'no target is named in the throughput part');
  assert.match(report, /no crawler could exceed \*\*0\.50\*\* of the parse-only limit/, 'the same ceiling below');
});
