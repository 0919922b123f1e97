/**
 * GroupLeases (a crawler node's groups, issue 29) over a real scheduler and frontier window on a SQLite frontier:
 * nothing starts without a lease; a group taken is read from its queue's start and only its own hosts are; a
 * request or a write not yet committed keeps the group "in flight" for the loop; a group lost leaves the scheduler
 * at once (its URLs stay queued in the database), and taken again at a new epoch it is read afresh.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { openDatabase } from '../../db/open.ts';
import { frontierQueries } from '../../db/frontier.ts';
import type { HostRow } from '../../db/hosts.ts';
import { Scheduler } from '../politeness/scheduler.ts';
import { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { GroupLeases, type LocalGroupClock } from './group-leases.ts';

const A = 'https://a.example';
const B = 'https://b.example';
const CLOCK: LocalGroupClock = {
  nextStartAt: 0,
  gapMs: 0,
  crawlDelayMs: null,
  backoffUntil: null,
  backoffMs: 0,
  backoffReason: null,
  pace: { responseMs: null, slowdown: 1, strained: 0 },
};

let dir: string;
let db: Database;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-group-leases-'));
  db = openDatabase(dir);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A node's scheduler, window and groups over `db`, with three queued URLs on each of A and B. */
function node() {
  db.prepare(
    `INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at) VALUES (1, ?, ?, 3, 'any', 1, 1)`,
  ).run(`${A}/`, A);
  const frontier = frontierQueries(db);
  for (const origin of [A, B])
    for (const p of ['/1', '/2', '/3'])
      frontier.addUrl({ url: `${origin}${p}`, origin, seedId: 1, depth: 1, redirects: 0 }, 1);
  const scheduler = new Scheduler<CrawlJob>(0, { leased: true, grouping: 'host' });
  const unsettled = new Map<string, number>();
  const seen: string[] = [];
  let leases: GroupLeases | undefined;
  const window = new FrontierWindow({
    scheduler,
    isLive: () => true,
    isHeld: (origin) => leases?.holdsOrigin(origin) ?? false,
    source: {
      queuedAfterMany: async (reads) => frontier.queuedAfterMany(reads),
      queuedCount: async (origin) => frontier.queuedCount(origin),
      read: async (read) => read(),
    },
  });
  leases = new GroupLeases({
    scheduler,
    window,
    hosts: {
      see: (origin) => {
        seen.push(origin);
        return {} as HostRow; // the host's row is not read here
      },
    },
    unsettled: (group) => unsettled.get(group) ?? 0,
  });
  return { frontier, scheduler, window, leases, unsettled, seen };
}

test('nothing starts without a lease; a group taken is read and crawled, the others wait in the database', async () => {
  const n = node();
  await n.window.load(n.frontier.countsByOrigin().filter((c) => c.state === 'queued'));
  assert.equal(n.scheduler.next(10), undefined, 'no lease: no job, no read');
  assert.equal(n.window.entryCount(), 0);

  const taken = n.leases.apply([
    { group: A, epoch: 1, startsUntil: 1e9, sendsUntil: 1e9, clock: { ...CLOCK, nextStartAt: 5 } },
  ]);
  assert.deepEqual(taken, [{ group: A, epoch: 1 }]);
  assert.equal(n.leases.facts(A).hasWork, true, 'not loaded yet: counted as having work');
  assert.equal(
    n.leases.loaded({ group: A, epoch: 1 }, [
      { origin: A, n: 3 },
      { origin: B, n: 3 },
    ]),
    true,
  );
  assert.deepEqual(n.seen, [A], "only the group's own hosts are seen");
  await n.window.committed();
  assert.equal(n.scheduler.next(4), undefined, "the takeover clock's next start holds the first request");
  const d = n.scheduler.next(5)!;
  assert.equal(d.origin, A);
  assert.equal(n.leases.facts(A).inFlight, true, 'a request running');
  n.scheduler.complete(A, 6);
  n.unsettled.set(A, 1);
  assert.equal(n.leases.facts(A).inFlight, true, 'its writes not yet committed: still not to be released');
  n.unsettled.delete(A);
  assert.equal(n.leases.facts(A).inFlight, false);
  assert.equal(n.leases.facts(A).hasWork, true);
  for (;;) {
    const j = n.scheduler.next(100);
    if (j === undefined) break;
    assert.equal(j.origin, A, 'B is never dispatched: its group is not held');
    n.scheduler.complete(A, 100);
  }
});

test('a group lost leaves the scheduler at once; taken again at a new epoch it is read from its start', async () => {
  const n = node();
  await n.window.load(n.frontier.countsByOrigin().filter((c) => c.state === 'queued'));
  n.leases.apply([{ group: A, epoch: 1, startsUntil: 1e9, sendsUntil: 1e9, clock: CLOCK }]);
  n.leases.loaded({ group: A, epoch: 1 }, [{ origin: A, n: 3 }]);
  await n.window.committed();
  const first = n.scheduler.next(0)!;
  n.frontier.leaseUrl(first.job.frontierId, 'run', 0);
  n.scheduler.complete(A, 1);

  n.leases.apply([]); // lost
  assert.equal(n.leases.holds(A), false);
  assert.equal(n.scheduler.next(10_000), undefined, 'nothing of A starts after the loss');
  assert.equal(n.scheduler.hasQueued(A), false, "A's queued jobs left this node's memory");
  assert.equal(n.frontier.queuedCount(A), 2, 'they stay queued in the database for the node that holds A');
  assert.equal(
    n.leases.loaded({ group: A, epoch: 1 }, [{ origin: A, n: 2 }]),
    false,
    'a late load of the old epoch is ignored',
  );

  n.frontier.finishUrl(first.job.frontierId, 'done', null, 2); // say another node fetched it meanwhile
  const again = n.leases.apply([{ group: A, epoch: 2, startsUntil: 1e9, sendsUntil: 1e9, clock: CLOCK }]);
  assert.deepEqual(again, [{ group: A, epoch: 2 }]);
  n.leases.loaded({ group: A, epoch: 2 }, [{ origin: A, n: 2 }]);
  await n.window.committed();
  const ids = new Set<number>();
  for (;;) {
    const j = n.scheduler.next(20_000);
    if (j === undefined) break;
    ids.add(j.job.frontierId);
    n.scheduler.complete(A, 20_000);
  }
  assert.equal(ids.size, 2, 'the two URLs still queued, read afresh');
  assert.equal(ids.has(first.job.frontierId), false, 'not the one fetched before');
});

test("a held group's send limit follows its renewals; a group not held has none", () => {
  const n = node();
  assert.equal(n.leases.sendsUntil(A), undefined, 'not held');
  n.leases.apply([{ group: A, epoch: 1, startsUntil: 400, sendsUntil: 500, clock: CLOCK }]);
  assert.equal(n.leases.sendsUntil(A), 500);
  n.leases.apply([{ group: A, epoch: 1, startsUntil: 700, sendsUntil: 800, clock: CLOCK }]);
  assert.equal(n.leases.sendsUntil(A), 800, 'moved by the renewal');
  n.leases.apply([]);
  assert.equal(n.leases.sendsUntil(A), undefined, 'lost: none');
});
