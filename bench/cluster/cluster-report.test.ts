import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clusterSection, pagesPerSecond, quantile, type ScalingRun, scalingEfficiency } from './cluster-report.ts';

const run = (nodes: number, pages: number, windowMs: number): ScalingRun => ({
  nodes,
  pages,
  windowMs,
  overlaps: 0,
  duplicates: 0,
  perNode: Array.from({ length: nodes }, () => pages / nodes),
  spans: Array.from({ length: nodes }, () => [0, windowMs / 1000] as [number, number]),
  load: 1,
});

test('scaling efficiency is each run over N times the one-node rate', () => {
  const runs = [run(1, 600, 30_000), run(2, 600, 15_000), run(3, 600, 12_000)];
  assert.equal(pagesPerSecond(runs[0]), 20);
  const eff = scalingEfficiency(runs);
  assert.equal(eff.get(1), 1);
  assert.equal(eff.get(2), 1);
  assert.ok(Math.abs((eff.get(3) ?? 0) - 50 / 60) < 1e-9);
});

test('the section says which runs meet 0.9 and whether the handover stayed within lease plus delay', () => {
  const text = clusterSection({
    measuredLine: 'Measured now.',
    setup: 'Set up.',
    scaling: [run(1, 600, 30_000), run(2, 600, 15_000), run(3, 600, 12_000)],
    handover: {
      leaseMs: 6000,
      delayMs: 500,
      waitsMs: [4000, 5000, 7000],
      violations: 0,
      storedOnce: 800,
      expected: 800,
      load: 1,
    },
  });
  assert.match(
    text,
    /\| 2 \| 1\.0 \| 600 \| \*\*40\.0\*\* \| \*\*1\.00\*\* \(meets ≥ 0\.9\) \| 300 \/ 300 \| 0\.0–15\.0 \/ 0\.0–15\.0 \|/,
  );
  assert.match(text, /\| 3 \| .* \*\*0\.83\*\* \(misses ≥ 0\.9\)/);
  assert.match(text, /p50 5000 ms, max 7000 ms, against a bound of the lease plus the delay, 6500 ms \(misses\)/);
});

test('quantile takes the nearest rank', () => {
  assert.equal(quantile([3, 1, 2], 0.5), 2);
  assert.equal(quantile([1, 2, 3, 4], 1), 4);
  assert.ok(Number.isNaN(quantile([], 0.5)));
});
