import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  chooseBase,
  GROWTH_LIMIT,
  MIN_BASE_CHARS,
  growthRatios,
  growthVerdict,
  MULTIPLES,
  runsToFill,
  tooSlowToMeasure,
  worstGrowth,
} from './growth.ts';

describe('parser growth arithmetic', () => {
  it('sizes are 1x, 8x and 64x; the limit is 12x per step', () => {
    assert.deepEqual([...MULTIPLES], [1, 8, 64]);
    assert.equal(GROWTH_LIMIT, 12);
  });

  it('runs fill the target time, never fewer than one', () => {
    assert.equal(runsToFill(0.1, 64), 640);
    assert.equal(runsToFill(50, 40), 1);
    assert.ok(runsToFill(0, 10) > 0);
  });

  it('ratios are each time over the one before; a missing time gives NaN', () => {
    assert.deepEqual(growthRatios([1, 8, 64]), [8, 8]);
    assert.deepEqual(
      growthRatios([2, 128, undefined]).map((r) => (Number.isNaN(r) ? 'NaN' : r)),
      [64, 'NaN'],
    );
  });

  it('ratios are per 8x of input when the sizes are not exactly 8x apart', () => {
    assert.deepEqual(growthRatios([1, 15, 120], [8, 120, 960]), [8, 8]);
    assert.deepEqual(growthRatios([1, 8], [100, 800]), [8]);
  });

  it('linear is ok; above 12x in any step, or a size not measured, is FAILING', () => {
    assert.equal(growthVerdict([8.3, 7.9]), 'ok');
    assert.equal(growthVerdict([12, 3]), 'ok');
    assert.equal(growthVerdict([8, 12.1]), 'FAILING');
    assert.equal(growthVerdict([64, Number.NaN]), 'FAILING');
  });

  it('a next size is skipped when the growth seen would make it take longer than the cap', () => {
    assert.equal(tooSlowToMeasure(300, 60, 10_000), true);
    assert.equal(tooSlowToMeasure(300, 8, 10_000), false);
    assert.equal(tooSlowToMeasure(2000, 2, 10_000), true, 'at least 8x is expected');
    assert.equal(tooSlowToMeasure(2000, undefined, 10_000), false, 'nothing seen yet');
  });
});

describe('the base size of a parser-shape', () => {
  it('doubles until one run costs at least the minimum, and stops at the largest base', () => {
    const seen: number[] = [];
    const linear = (size: number) => {
      seen.push(size);
      return size / 10_000; // 0.1 ms per 1,000 characters
    };
    assert.deepEqual(chooseBase(1_000, linear, { minMs: 0.5, minChars: 0 }), { base: 8_000, ms: 0.8 });
    assert.deepEqual(seen, [1_000, 2_000, 4_000, 8_000]);
    assert.deepEqual(chooseBase(1_000, () => 0.001, { minMs: 0.5, minChars: 0, maxChars: 5_000 }).base, 4_000);
    assert.deepEqual(chooseBase(20_000, linear, { minMs: 0.5, minChars: 0 }).base, 20_000, 'already costly enough');
  });

  it('a capped parser is measured at the largest base whose 64x fits under its cap', () => {
    assert.equal(chooseBase(15, () => 0.001, { cap: 1_000 }).base, 15);
    assert.equal(chooseBase(30, () => 0.001, { cap: 2_048 }).base, 31, '64 x 32 would leave no room');
  });

  it('an uncapped base starts past the large-object step of the heap, and no further than the largest base', () => {
    assert.ok(MIN_BASE_CHARS > 128 * 1024, 'past the 128 KiB step, with room for a shape to round down');
    assert.equal(chooseBase(1_000, () => 1).base, MIN_BASE_CHARS);
    assert.equal(chooseBase(200_000, () => 1).base, 200_000);
    assert.equal(chooseBase(1_000, () => 0.001).base, MIN_BASE_CHARS, 'the largest base is the smallest: no doubling');
  });

  it('a measurement is judged by its largest step; a size not measured is the worst of all', () => {
    assert.equal(worstGrowth([7.5, 13.2]), 13.2);
    assert.equal(worstGrowth([8.1, 7.9]), 8.1);
    assert.equal(worstGrowth([8, Number.NaN]), Number.POSITIVE_INFINITY);
    assert.ok(
      worstGrowth([11, 9]) < worstGrowth([5, 12.5]),
      'the measurement kept is the one with the smaller worst step',
    );
  });
});
