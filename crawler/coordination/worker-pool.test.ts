import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { WorkerPool } from './worker-pool.ts';

const w = (id: number) => ({ id });

describe('WorkerPool', () => {
  test('a worker runs up to its slots; then the pool says no slot is free', () => {
    const pool = new WorkerPool<{ id: number }>(2);
    assert.equal(pool.hasFreeSlot(), false, 'no worker ready yet');
    pool.add(w(1));
    assert.equal(pool.assign('a', 1)?.id, 1);
    assert.equal(pool.assign('b', 2)?.id, 1);
    assert.equal(pool.hasFreeSlot(), false);
    assert.equal(pool.assign('c', 3), undefined);
    pool.release(1, 1);
    assert.equal(pool.hasFreeSlot(), true);
    assert.equal(pool.assign('c', 3)?.id, 1);
    assert.equal(pool.runningCount(), 2);
  });

  test('work spreads to the least loaded worker; a host goes back to its last worker while it has a free slot', () => {
    const pool = new WorkerPool<{ id: number }>(2);
    for (const id of [1, 2, 3]) pool.add(w(id));
    assert.deepEqual(
      ['a', 'b', 'c'].map((o, i) => pool.assign(o, i + 1)?.id),
      [1, 2, 3],
      'one host per worker',
    );
    for (const [worker, job] of [
      [1, 1],
      [2, 2],
      [3, 3],
    ])
      pool.release(worker, job);
    assert.deepEqual(
      ['c', 'a', 'b'].map((o, i) => pool.assign(o, 10 + i)?.id),
      [3, 1, 2],
      'each host back on its worker',
    );
    // Worker 3 now holds c's job and takes another host's: c's next job still fits beside it.
    assert.equal(pool.assign('d', 20)?.id, 3, 'all equally loaded: the worker given work longest ago');
    assert.equal(pool.assign('c', 21)?.id, 1, 'worker 3 is full: the least loaded other worker');
  });

  test('a worker that dies gives back the jobs it ran; the rest stay', () => {
    const pool = new WorkerPool<{ id: number }>(3);
    pool.add(w(1));
    pool.add(w(2));
    pool.assign('a', 1);
    pool.assign('a', 2);
    pool.assign('b', 3);
    assert.deepEqual(pool.remove(1).sort(), [1, 2]);
    assert.equal(pool.readyCount(), 1);
    assert.equal(pool.runningCount(), 1);
    assert.deepEqual(pool.remove(1), [], 'removing twice returns nothing');
  });

  test('slots must be a positive integer', () => {
    assert.throws(() => new WorkerPool(0), /worker-pool: slots must be a positive integer, got 0/);
  });
});
