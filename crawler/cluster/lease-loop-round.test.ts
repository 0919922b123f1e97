/**
 * A lease round's work on the primary's thread follows what changed, not the groups held: at 10,000 groups a round
 * that walked and copied every lease each second cost 76.5 ms of CPU at the median and blocked the event loop
 * meanwhile (`npm run bench:cluster -- --only leases`, docs/benchmarks.md). Asserted on one loop holding 2,000
 * groups on a throwaway PostgreSQL, its rounds run one at a time by paused timers: a round with nothing due (no
 * renewal, no deadline, no share to move), its notes of every group repeating what the keeper has, visits no
 * per-group map of the loop (every iteration of a map that large is counted, not timed) and tells the scheduler
 * nothing; and a note that does change something still decides the next round (the group is released).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { noteWork } from '../../db/pg/pg-leases.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { loopSettings, MANY_GROUPS } from '../../test-support/lease-fixtures.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import type { LocalGroupClock } from './lease-clock.ts';
import { LeaseLoop, type LoopTimers } from './lease-loop.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const GROUPS = MANY_GROUPS;

/** Timers that hold the loop's next round until `fire`; `scheduled` counts the rounds that ended (each sets one). */
class HeldTimers implements LoopTimers {
  scheduled = 0;
  private pending: (() => void) | null = null;
  setTimeout(fn: () => void): unknown {
    this.pending = fn;
    this.scheduled++;
    return this.scheduled;
  }
  clearTimeout(): void {
    this.pending = null;
  }
  /** Runs the round held, and resolves once it has ended (it set the next timer). */
  async round(): Promise<void> {
    const fn = this.pending;
    assert.ok(fn !== null, 'a round is waiting');
    this.pending = null;
    const before = this.scheduled;
    fn();
    await waitFor(() => this.scheduled > before, { timeoutMs: 60_000, message: 'lease-loop-round: the round to end' });
  }
}

/**
 * Runs `work` with every iteration of a map of at least `size` entries counted (for..of, entries, keys, values,
 * forEach, and the copies `new Map(map)` makes through them): answers the entries such iterations could visit.
 */
async function bigMapVisits(size: number, work: () => Promise<void>): Promise<number> {
  const proto = Map.prototype as unknown as Record<string | symbol, (...args: unknown[]) => unknown>;
  const names = [Symbol.iterator, 'entries', 'keys', 'values', 'forEach'] as const;
  const real = names.map((n) => proto[n]);
  let visits = 0;
  names.forEach((n, i) => {
    proto[n] = function (this: Map<unknown, unknown>, ...args: unknown[]) {
      if (this.size >= size) visits += this.size;
      return real[i].apply(this, args);
    };
  });
  try {
    await work();
  } finally {
    names.forEach((n, i) => {
      proto[n] = real[i];
    });
  }
  return visits;
}

test('a round with nothing due visits no per-group map and tells nothing; a changed note still counts', async () => {
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 2 });
  const faults: Error[] = [];
  const timers = new HeldTimers();
  const clocks = new Map<string, LocalGroupClock>();
  /** The groups to note, as a list (the test's own maps are not the loop's, but would be counted). */
  let notes: Array<[string, LocalGroupClock]> = [];
  const noWork = new Set<string>();
  let noted = 0;
  const loop: LeaseLoop = new LeaseLoop({
    db: pool,
    node: 'a',
    settings: loopSettings(GROUPS.length),
    onFault: (e) => faults.push(e),
    timers,
    // As node-leases.ts notes them: every held group, each with a clock object of its own (equal to the last).
    beforePlan: () => {
      for (const [group, clock] of notes) {
        noted++;
        loop.note(group, {
          inFlight: false,
          hasWork: !noWork.has(group),
          clock: { ...clock, pace: { ...clock.pace } },
        });
      }
    },
  });
  let told = 0;
  loop.onLeases((windows) => {
    told++;
    for (const w of windows) if (!clocks.has(w.group)) clocks.set(w.group, w.clock);
  });
  try {
    await migratePg(pool);
    await noteWork(pool, GROUPS);
    await loop.start();
    while (loop.held().length < GROUPS.length) await timers.round();
    await timers.round(); // the round after the last take (it took all it asked for): the share is reached
    assert.equal(clocks.size, GROUPS.length);
    notes = GROUPS.map((g) => [g, clocks.get(g) as LocalGroupClock]);
    told = 0;
    noted = 0;
    const visits = await bigMapVisits(GROUPS.length, () => timers.round());
    assert.equal(noted, GROUPS.length, 'the round noted every held group');
    assert.equal(visits, 0, `a round with nothing due visited ${visits} lease entries`);
    assert.equal(told, 0, 'no window told in a round that changed no lease');
    // One group runs out of work: the next round releases it, and only it.
    noWork.add(GROUPS[7]);
    await timers.round();
    assert.equal(loop.held().length, GROUPS.length - 1);
    assert.ok(!loop.held().some((h) => h.group === GROUPS[7]), 'the group noted without work is released');
    assert.ok(told > 0, 'the release was told');
    assert.deepEqual(faults, []);
  } finally {
    await loop.stop();
    await pool.end();
  }
});
