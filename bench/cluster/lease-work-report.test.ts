import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LeaseNodeFigures } from './lease-work-node.ts';
import {
  type LeaseWorkRun,
  leaseWorkSection,
  ratesByKind,
  statementKind,
  statementTotals,
} from './lease-work-report.ts';

const p = (x: number) => ({ p50: x, p99: x * 4, max: x * 10, mean: x });

const node = (id: string | null, dispatches: number): LeaseNodeFigures => ({
  type: 'figures',
  node: id,
  seconds: 40,
  held: id === null ? 0 : 5000,
  dispatches,
  cpu: p(0.01),
  wall: p(0.008),
  cpuPerJobMs: 0.2,
  rounds: 40,
  roundCpu: p(20),
  roundWall: p(30),
  longestRoundBlockMs: 45,
  factsCpu: p(9),
  loopDelayMaxMs: 60,
  loopDelayP99Ms: 20,
});

test('statements are told apart by kind, the lease work apart from the crawl', () => {
  assert.deepEqual(statementKind('BEGIN'), { kind: 'BEGIN', lease: false });
  assert.deepEqual(statementKind('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'), { kind: 'BEGIN', lease: false });
  assert.deepEqual(
    statementKind(
      'UPDATE group_leases l SET expires_at = now() + ($4::float8 * interval $5) FROM unnest($2::text[], $3::bigint[]) AS r(group_key, epoch)',
    ),
    { kind: 'lease renewal', lease: true },
  );
  assert.equal(
    statementKind('WITH free AS ( SELECT group_key, next_start_at, owner, expires_at FROM group_leases').kind,
    'lease take',
  );
  assert.equal(
    statementKind('SELECT l.group_key AS "group", l.epoch FROM group_leases l JOIN unnest($1) FOR SHARE OF l').kind,
    'fence (leases still held)',
  );
  assert.equal(
    statementKind('UPDATE crawl_nodes SET heartbeat_at = now(), doing = $2 WHERE node_id = $1').kind,
    'heartbeat',
  );
  assert.deepEqual(statementKind('UPDATE frontier SET state = $1, lease_owner = $2, leased_at = $3 WHERE id = $4'), {
    kind: 'frontier writes',
    lease: false,
  });
  assert.equal(
    statementKind('SELECT id, url, origin FROM seeds s WHERE updated_at > $1').kind,
    'seeds (poll, lifecycle)',
  );
  assert.deepEqual(statementKind('VACUUM'), { kind: 'other', lease: false });
});

test('rates sum the statements of a kind over the window, most first', () => {
  const rates = ratesByKind(
    [
      { query: 'BEGIN', calls: 100, totalMs: 1 },
      { query: 'UPDATE crawl_nodes SET heartbeat_at = now() WHERE node_id = $1', calls: 40, totalMs: 8 },
      { query: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY', calls: 20, totalMs: 1 },
    ],
    40,
  );
  assert.deepEqual(
    rates.map((r) => [r.kind, r.perSecond, r.lease]),
    [
      ['BEGIN', 3, false],
      ['heartbeat', 1, true],
    ],
  );
  assert.equal(rates[1].msPerSecond, 0.2);
});

test('the section puts each run and node in a row, with the lease work apart from all statements', () => {
  const off: LeaseWorkRun = {
    label: 'leases off',
    nodes: 0,
    groups: 10_000,
    held: 0,
    takenAfterS: Number.NaN,
    seconds: 40,
    kinds: ratesByKind([{ query: 'UPDATE frontier SET state = $1 WHERE id = $2', calls: 80_000, totalMs: 400 }], 40),
    transactionsPerSecond: 10,
    perNode: [node(null, 80_000)],
    load: 3,
    statements: [],
  };
  const two: LeaseWorkRun = {
    ...off,
    label: '2 nodes',
    nodes: 2,
    held: 10_000,
    takenAfterS: 12.5,
    kinds: ratesByKind(
      [
        { query: 'UPDATE frontier SET state = $1 WHERE id = $2', calls: 78_000, totalMs: 400 },
        { query: 'UPDATE crawl_nodes SET heartbeat_at = now() WHERE node_id = $1', calls: 80, totalMs: 2 },
      ],
      40,
    ),
    perNode: [node('node1', 40_000), node('node2', 38_000)],
  };
  assert.deepEqual(statementTotals(two), { all: 1952, lease: 2 });
  const text = leaseWorkSection({ measuredLine: 'Measured now.', setup: 'Set up.', runs: [off, two] });
  assert.match(
    text,
    /\| leases off \| 3\.0 \| \(no leases\) \| 2000 \| \*\*2000\*\* \(0\) \| 10 \| 10\.0 µs \/ \*\*40\.0 µs\*\* \|/,
  );
  assert.match(
    text,
    /\| 2 nodes, node1 \| 3\.0 \| 5000 of 10000 \| 1000 \| \*\*1952\*\* \(2\) \| 10 \| .* \| 20\.0 ms \/ 80\.0 ms \/ \*\*200\.0 ms\*\* \(40 rounds\) \| 45\.0 ms \|/,
  );
  assert.match(text, /\| 2 nodes, node2 \| 3\.0 \| 5000 of 10000 \| 950 \| ″ \| ″ \|/);
  assert.match(
    text,
    /\*\*2 nodes\*\*: 1952 statements\/s over 40 s \(1950\.0 jobs\/s, 1\.0 statements a job\); every group held 12\.5 s after the start\./,
  );
  assert.match(text, /The lease work alone: 2\.0\/s \(heartbeat 2\.0\/s\)\./);
});
