/**
 * Which held groups' delays a node writes between releases (gap-records.ts), over the keeper's leases: a group just
 * taken once, then only when its Crawl-delay changed or its gap grew by more than a quarter; never one being released.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { TakenGroup } from '../../db/pg/pg-leases.ts';
import { storedClock } from '../../test-support/lease-fixtures.ts';
import { type GapRecord, gapsToRecord } from './gap-records.ts';
import { afterTake, type KeeperState, newKeeper, noteGroup, planLeases } from './lease-keeper.ts';

const SETTINGS = {
  timing: { leaseMs: 90_000, marginMs: 5_000, renewFraction: 1 / 3 },
  requestTimeoutMs: 30_000,
  maxTake: 10,
};
/** `s` after a take planned at `at` and answered with `rows`. */
const took = (s: KeeperState, at: number, rows: TakenGroup[]): KeeperState =>
  afterTake(planLeases(s, at, { liveNodes: 1, groupsWithWork: 10 }).state, at, at + 10, rows);
const row = (group: string, epoch = 1): TakenGroup => ({
  group,
  epoch,
  dbNowMs: 1_800_000_000_000,
  clock: storedClock({ gapMs: 150 }),
  previousOwner: null,
  previousExpiryInMs: null,
});

test('a held group is written once taken, then when its Crawl-delay changes or its gap grows by more than a quarter', () => {
  let s = took(newKeeper(SETTINGS), 0, [row('a.test'), row('b.test')]);
  const written = new Map<string, GapRecord>();
  const write = () => {
    const out = gapsToRecord(s.leases.values(), written);
    for (const g of out) written.set(g.group, g);
    return out.map((g) => `${g.group} ${g.gapMs} ${g.crawlDelayMs}`);
  };
  assert.deepEqual(write(), ['a.test 150 null', 'b.test 150 null'], 'just taken: written once');
  assert.deepEqual(write(), [], 'nothing changed: nothing written');
  const clock = s.leases.get('a.test')!.clock;
  s = noteGroup(s, 'a.test', { clock: { ...clock, gapMs: 3000, crawlDelayMs: 3000 } }); // its robots.txt read
  assert.deepEqual(write(), ['a.test 3000 3000'], 'a Crawl-delay learned is written at the next round');
  s = noteGroup(s, 'a.test', { clock: { ...clock, gapMs: 3600, crawlDelayMs: 3000 } });
  assert.deepEqual(write(), [], 'pacing moving the gap a little: not written');
  s = noteGroup(s, 'a.test', { clock: { ...clock, gapMs: 4000, crawlDelayMs: 3000 } });
  assert.deepEqual(write(), ['a.test 4000 3000'], 'the gap grown past a quarter: written');
  s = took(s, 20, [row('a.test', 2)]);
  assert.deepEqual(write(), ['a.test 150 null'], 'taken again at a new epoch: written under it');
});

test('a group being released is not written (its release writes its whole clock)', () => {
  let s = took(newKeeper(SETTINGS), 0, [row('a.test')]);
  s = noteGroup(s, 'a.test', { hasWork: false, inFlight: false });
  s = planLeases(s, 20, { liveNodes: 1, groupsWithWork: 0 }).state;
  assert.equal(s.leases.get('a.test')?.releasing, true, 'planned for release');
  assert.deepEqual(gapsToRecord(s.leases.values(), new Map()), []);
});
