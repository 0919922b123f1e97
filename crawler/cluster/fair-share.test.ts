/**
 * Fair shares of the groups with work (issue 29): a node below its share takes, one above releases idle groups
 * due latest first, never one in flight, and a cluster that a node joins settles with every node at its share.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fairShare, type HeldGroup } from './fair-share.ts';

const held = (n: number, prefix: string, inFlight = false): HeldGroup[] =>
  Array.from({ length: n }, (_, i) => ({ group: `${prefix}${i}`, inFlight, dueAt: i * 1_000 }));

test('a node that joins gets a fair share: the groups with work divided by the live nodes, rounded up', () => {
  assert.deepEqual(fairShare({ groupsWithWork: 10, liveNodes: 3, held: [], maxTake: 100 }), {
    share: 4,
    take: 4,
    release: [],
  });
  assert.equal(
    fairShare({ groupsWithWork: 10, liveNodes: 3, held: [], maxTake: 2 }).take,
    2,
    'at most maxTake a round',
  );
  assert.equal(fairShare({ groupsWithWork: 10, liveNodes: 0, held: [], maxTake: 100 }).share, 10, 'alone: all');
});

test('a node above its share releases idle groups, those due latest first, never one in flight', () => {
  const mine: HeldGroup[] = [
    { group: 'a', inFlight: false, dueAt: 5_000 },
    { group: 'b', inFlight: true, dueAt: 90_000 },
    { group: 'c', inFlight: false, dueAt: 60_000 },
    { group: 'd', inFlight: false, dueAt: 1_000 },
    { group: 'e', inFlight: false, dueAt: 30_000 },
  ];
  // 9 groups, 3 nodes: a share of 3, so 2 go: c (due latest of the idle), then e; b is in flight.
  assert.deepEqual(fairShare({ groupsWithWork: 9, liveNodes: 3, held: mine, maxTake: 10 }), {
    share: 3,
    take: 0,
    release: ['c', 'e'],
  });
  const busy = held(5, 'x', true);
  assert.deepEqual(
    fairShare({ groupsWithWork: 5, liveNodes: 5, held: busy, maxTake: 10 }).release,
    [],
    'all in flight',
  );
});

test('a node at its share neither takes nor releases', () => {
  assert.deepEqual(fairShare({ groupsWithWork: 12, liveNodes: 3, held: held(4, 'g'), maxTake: 10 }), {
    share: 4,
    take: 0,
    release: [],
  });
});

test('when a fourth node joins three that hold every group, the cluster settles with each at its share', () => {
  const groupsWithWork = 30;
  const nodes: HeldGroup[][] = [held(10, 'a'), held(10, 'b'), held(10, 'c'), []];
  const free: HeldGroup[] = [];
  for (let round = 0; round < 10; round++) {
    for (const mine of nodes) {
      const plan = fairShare({ groupsWithWork, liveNodes: nodes.length, held: mine, maxTake: 3 });
      for (const g of plan.release)
        free.push(
          ...mine.splice(
            mine.findIndex((h) => h.group === g),
            1,
          ),
        );
      mine.push(...free.splice(0, plan.take));
    }
  }
  const counts = nodes.map((n) => n.length);
  assert.deepEqual(counts.reduce((s, n) => s + n, 0) + free.length, groupsWithWork, 'no group lost or doubled');
  assert.equal(free.length, 0, 'every group is held');
  assert.ok(Math.max(...counts) <= 8, `no node above its share of 8: ${counts}`);
  assert.ok(Math.min(...counts) >= 6, `the joining node got a fair share: ${counts}`);
});
