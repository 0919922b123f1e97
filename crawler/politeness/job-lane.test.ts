import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { JobLane } from './job-lane.ts';

interface J {
  notBefore: number;
  name: string;
}
const job = (name: string, notBefore = 0): J => ({ name, notBefore });

describe('JobLane', () => {
  test('jobs due at once come out in arrival order', () => {
    const lane = new JobLane<J>();
    ['a', 'b', 'c'].forEach((n, i) => void lane.add(job(n, i === 1 ? -Infinity : 0), i));
    assert.deepEqual(
      [lane.take(0), lane.take(0), lane.take(0)].map((j) => j?.name),
      ['a', 'b', 'c'],
    );
    assert.equal(lane.take(0), undefined);
    assert.equal(lane.earliest(), Infinity);
  });

  test('a retry waits for its time, then goes by its time, not by when it was added', () => {
    const lane = new JobLane<J>();
    lane.add(job('late', 3000), 0);
    lane.add(job('early', 1000), 1);
    lane.add(job('same-time-later-added', 1000), 2);
    assert.equal(lane.earliest(), 1000);
    assert.equal(lane.take(999), undefined, 'nothing is due before 1000');
    assert.equal(lane.take(1000)?.name, 'early');
    assert.equal(lane.take(5000)?.name, 'same-time-later-added');
    assert.equal(lane.take(5000)?.name, 'late');
  });

  test('a job due at once goes before a retry whose time has come (the one due longest first)', () => {
    const lane = new JobLane<J>();
    lane.add(job('retry', 500), 0);
    lane.add(job('fresh'), 1);
    assert.equal(lane.earliest(), 0);
    assert.equal(lane.take(600)?.name, 'fresh');
    assert.equal(lane.earliest(), 500);
    assert.equal(lane.take(600)?.name, 'retry');
  });

  test('length counts both kinds; removeWhere takes out the matching ones of both', () => {
    const lane = new JobLane<J>();
    for (let i = 0; i < 3000; i++) lane.add(job(`/${i}`, i % 10 === 0 ? 100 + i : 0), i);
    for (let i = 0; i < 1500; i++) lane.take(0); // the FIFO's head moves and compacts
    assert.equal(lane.length, 1500);
    const removed = lane.removeWhere((j) => Number(j.name.slice(1)) % 2 === 0);
    assert.ok(removed.every((j) => Number(j.name.slice(1)) % 2 === 0));
    assert.equal(lane.length + removed.length, 1500);
    const left = lane.length;
    const rest: string[] = [];
    for (let j = lane.take(1e9); j; j = lane.take(1e9)) rest.push(j.name);
    assert.ok(rest.every((n) => Number(n.slice(1)) % 2 === 1));
    assert.equal(rest.length, left);
    assert.equal(lane.length, 0);
  });
});
