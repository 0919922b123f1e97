/** The dispatches' CPU split by the GC pauses they met (dispatch-gc.ts dispatchCpuSplit). Pure. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dispatchCpuSplit } from './dispatch-gc.ts';
import { Sample } from './measure.ts';

const sample = (xs: number[]) => {
  const s = new Sample();
  for (const x of xs) s.push(x);
  return s;
};

test('a dispatch met a GC pause if one began or ran while it ran; the CPU of those and of the others apart', () => {
  // Five dispatches of 0.01 ms ending at 10, 20, 30, 40, 50; pauses at 19.995-19.998 (inside the second),
  // 29-30.5 (over the third's end), 35-36 (between two: met by none) and 49.999-60 (the fifth's end).
  const endAt = sample([10, 20, 30, 40, 50]);
  const wall = sample([0.01, 0.01, 0.01, 0.01, 0.01]);
  const cpu = sample([0.005, 0.5, 0.4, 0.006, 0.3]);
  const split = dispatchCpuSplit(5, endAt, wall, cpu, [
    [1, 2],
    [19.995, 19.998],
    [29, 30.5],
    [35, 36],
    [49.999, 60],
  ]);
  assert.equal(split.metGc, 3);
  assert.equal(split.cpuMetGc.max, 0.5);
  assert.equal(split.cpuNoGc.max, 0.006);
  assert.equal(split.gcPauses, 4, 'the pause before the first dispatch began is not counted');
  assert.equal(split.top, 1, 'the dispatch at the p99');
  assert.equal(split.topMetGc, 1);
  assert.equal(split.topOverWall, 1, 'its 0.5 ms of CPU in 0.01 ms of wall time: other threads counted');
  assert.equal(split.overheadMs, 0.29, 'the median of CPU minus wall');
  assert.equal(split.ownCpu.max, 0.3, 'no more than wall time and the timing cost: 0.01 + 0.29');
});
