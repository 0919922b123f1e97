import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GROWTH_LIMIT, growthRatios, growthVerdict, MULTIPLES, runsPerSize, tooSlowToMeasure } from './growth.ts';

describe('parser growth arithmetic', () => {
  it('sizes are 1x, 8x and 64x; the limit is 12x per step', () => {
    assert.deepEqual([...MULTIPLES], [1, 8, 64]);
    assert.equal(GROWTH_LIMIT, 12);
  });

  it('runs per size fill the target at 1x and shrink with the size, never below one', () => {
    assert.deepEqual(runsPerSize(0.1, 64), [640, 80, 10]);
    assert.deepEqual(runsPerSize(50, 40), [1, 1, 1]);
    assert.deepEqual(runsPerSize(0, 10)[0] > 0, true);
  });

  it('ratios are each time over the one before; a missing time gives NaN', () => {
    assert.deepEqual(growthRatios([1, 8, 64]), [8, 8]);
    assert.deepEqual(
      growthRatios([2, 128, undefined]).map((r) => (Number.isNaN(r) ? 'NaN' : r)),
      [64, 'NaN'],
    );
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
