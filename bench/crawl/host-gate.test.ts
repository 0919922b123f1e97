import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HostGate } from './host-gate.ts';

test('a host has one holder; each release hands back one parked item of that host', () => {
  const gate = new HostGate<string>();
  assert.equal(gate.tryAcquire('a', '1'), true);
  assert.equal(gate.tryAcquire('a', '2'), false);
  gate.park('a', 'req2');
  assert.equal(gate.tryAcquire('a', '3'), false);
  gate.park('a', 'req3');
  assert.equal(gate.tryAcquire('b', '4'), true, 'another host is free');
  assert.equal(gate.parkedCount(), 2);
  assert.equal(gate.release('a', '1'), 'req2');
  assert.equal(gate.parkedCount(), 1);
  assert.equal(gate.tryAcquire('a', '2'), true, 'the released host can be taken again');
  assert.equal(gate.release('a', '2'), 'req3');
  assert.equal(gate.release('a', '2'), undefined, 'a second release changes nothing');
  assert.equal(gate.held(), 1);
});

test('a release by someone who does not hold the host neither frees it nor hands back an item', () => {
  const gate = new HostGate<string>();
  gate.tryAcquire('a', '1');
  gate.park('a', 'req2');
  assert.equal(gate.release('a', '2'), undefined);
  assert.equal(gate.tryAcquire('a', '3'), false);
  assert.equal(gate.parkedCount(), 1);
});
