/**
 * The lease-work part of `npm run bench:cluster` (issue 29's third target): what holding the politeness leases
 * costs at 10,000 groups, against the single-machine primary on PostgreSQL. One throwaway cluster
 * (test-support/postgres.ts) restarted with pg_stat_statements loaded, bench/frontier's generated crawl in it
 * (frontier-pg.ts: 1,000,000 queued URLs over 10,000 hosts; host-mode groups, so 10,000 groups with work), and
 * each run on a copy of its own: leases off (the primary as bench:frontier runs it), one node holding every group,
 * two nodes sharing them. Each node is a child process (lease-work-node.ts: the real primary with instant fake
 * workers). Once the nodes hold every group (steady state after the takes) and a warm-up has passed, the counters
 * are reset and every node measures the same window: PostgreSQL counts the statements (pg_stat_statements, by
 * kind: lease-work-report.ts) and transactions (pg_stat_database), each node its hand-outs' CPU, its CPU per job,
 * its lease rounds' CPU on its thread, and its event loop's longest delay.
 */
import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { primaryExecArgv } from '../../crawler/primary-heap.ts';
import { DEFAULTS } from '../../shared/config.ts';
import { restartPostgres } from '../../test-support/pg-restart.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import type { FrontierShape } from '../frontier/frontier-db.ts';
import { copyOfPgDatabase, frontierPgDatabase } from '../frontier/frontier-pg.ts';
import type { LeaseNodeFigures, LeaseNodeOptions, LeaseNodeStatus, ToLeaseNode } from './lease-work-node.ts';
import { type CountedStatement, type LeaseWorkRun, ratesByKind } from './lease-work-report.ts';

const CHILD = fileURLToPath(new URL('./lease-work-child.ts', import.meta.url));

/** How the part runs: the crawl generated, each window's length, the warm-up, the wait for the takes. */
export interface LeaseWorkShape {
  db: FrontierShape;
  /** Fake workers per node (4 fetch slots each). */
  workers: number;
  warmupSeconds: number;
  seconds: number;
  /** The longest wait for the nodes to hold every group before measuring anyway (flagged in the figures). */
  takeTimeoutSeconds: number;
  /** The runs: node counts, 0 for leases off. */
  runs: readonly number[];
}

/** The issue's figures: 10,000 groups, a window longer than a renewal interval (30 s by default). */
export const TEN_THOUSAND_GROUPS: LeaseWorkShape = {
  db: { hosts: 10_000, urlsPerHost: 100, seeds: 10 },
  workers: 4,
  warmupSeconds: 5,
  seconds: 40,
  takeTimeoutSeconds: 300,
  runs: [0, 1, 2],
};

/** A node's child process and the messages it sent. */
interface NodeChild {
  id: string | null;
  child: ChildProcess;
  messages: Array<{ type: string }>;
}

/** The same node options the primary runs with under `npm start` (its young generation and heap options). */
const NODE_ARGS = ['--import', 'tsx', ...primaryExecArgv(['--max-semi-space-size=1'], DEFAULTS.crawlPrimaryHeapMb)];

function startNode(url: string, id: string | null, workers: number): NodeChild {
  const opts: LeaseNodeOptions = { url, node: id, workers };
  const child = fork(CHILD, [JSON.stringify(opts)], {
    execArgv: NODE_ARGS,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const n: NodeChild = { id, child, messages: [] };
  child.on('message', (m: { type: string }) => n.messages.push(m));
  return n;
}

/** Sends `m` and answers the node's next message of `type`. */
async function ask<T extends { type: string }>(
  n: NodeChild,
  m: ToLeaseNode,
  type: string,
  timeoutMs: number,
): Promise<T> {
  const from = n.messages.length;
  n.child.send(m);
  let found: T | undefined;
  await waitFor(
    () => {
      found = n.messages.slice(from).find((x) => x.type === type) as T | undefined;
      if (n.child.exitCode !== null)
        throw new Error(`lease-work-bench: node ${n.id ?? 'off'} exited (${n.child.exitCode})`);
      return found !== undefined;
    },
    { timeoutMs, intervalMs: 50, message: `lease-work-bench: node ${n.id ?? 'off'} to answer ${m.type}` },
  );
  return found as T;
}

async function stopNode(n: NodeChild): Promise<void> {
  if (n.child.exitCode !== null) return;
  const exited = new Promise((resolve) => n.child.once('exit', resolve));
  n.child.send({ type: 'stop' } satisfies ToLeaseNode);
  await exited;
}

/** Runs `work` on one connection to `url`. */
async function onConnection<T>(url: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await work(c);
  } finally {
    await c.end();
  }
}

/** Restarts the cluster with pg_stat_statements loaded (ALTER SYSTEM, then pg_ctl restart) and creates the view. */
async function loadStatementCounts(cluster: TestPostgres): Promise<void> {
  await onConnection(cluster.adminUrl, (c) =>
    c.query(`ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`),
  );
  await restartPostgres(cluster);
  await onConnection(cluster.adminUrl, async (c) => {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await c.query(`ALTER SYSTEM SET pg_stat_statements.max = 10000`);
  });
}

/** Transactions committed and rolled back in database `name` so far (pg_stat_database). */
async function transactions(admin: pg.Client, name: string): Promise<number> {
  const r = await admin.query<{ n: string }>(
    'SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1',
    [name],
  );
  return Number(r.rows[0]?.n ?? 0);
}

/** One run: `nodes` nodes (0: leases off) on a copy of the generated crawl, measured over one window. */
async function leaseRun(
  cluster: TestPostgres,
  template: string,
  nodes: number,
  shape: LeaseWorkShape,
): Promise<LeaseWorkRun> {
  const name = `lease_work_${nodes}`;
  const copy = await copyOfPgDatabase(template, name);
  const admin = new pg.Client({ connectionString: cluster.adminUrl });
  await admin.connect();
  const ids = nodes === 0 ? [null] : Array.from({ length: nodes }, (_, i) => `node${i + 1}`);
  const children: NodeChild[] = [];
  try {
    const t0 = performance.now();
    for (const id of ids) children.push(startNode(copy.url, id, shape.workers));
    for (const n of children)
      await waitFor(() => n.messages.some((m) => m.type === 'started'), {
        timeoutMs: 300_000,
        message: `lease-work-bench: node ${n.id ?? 'off'} to start`,
      });
    let held = 0;
    let takenAfterS = Number.NaN;
    const groups = shape.db.hosts;
    if (nodes > 0) {
      const deadline = performance.now() + shape.takeTimeoutSeconds * 1000;
      while (performance.now() < deadline) {
        const st = await Promise.all(
          children.map((n) => ask<LeaseNodeStatus>(n, { type: 'status' }, 'status', 600_000)),
        );
        held = st.reduce((s, x) => s + x.held, 0);
        if (held >= groups) {
          takenAfterS = (performance.now() - t0) / 1000;
          break;
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      console.log(
        `  ${held} of ${groups} groups held${Number.isFinite(takenAfterS) ? ` ${takenAfterS.toFixed(1)} s after the start` : ` after ${shape.takeTimeoutSeconds} s (measuring anyway)`}`,
      );
    }
    await new Promise((r) => setTimeout(r, shape.warmupSeconds * 1000));
    const load = os.loadavg()[0];
    await admin.query('SELECT pg_stat_statements_reset()');
    const x0 = await transactions(admin, name);
    const w0 = performance.now();
    const perNode = await Promise.all(
      children.map((n) =>
        ask<LeaseNodeFigures>(n, { type: 'measure', seconds: shape.seconds }, 'figures', (shape.seconds + 600) * 1000),
      ),
    );
    const seconds = (performance.now() - w0) / 1000;
    const x1 = await transactions(admin, name);
    const counted = await admin.query<{ query: string; calls: string; total_ms: number }>(
      `SELECT s.query, s.calls, s.total_exec_time AS total_ms FROM pg_stat_statements s
       JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = $1`,
      [name],
    );
    const rows: CountedStatement[] = counted.rows.map((r) => ({
      query: r.query,
      calls: Number(r.calls),
      totalMs: r.total_ms,
    }));
    return {
      label:
        nodes === 0 ? 'leases off (single-machine primary)' : `${nodes} node${nodes > 1 ? 's' : ''} holding the groups`,
      nodes,
      groups,
      held,
      takenAfterS,
      seconds,
      kinds: ratesByKind(rows, seconds),
      transactionsPerSecond: (x1 - x0) / seconds,
      perNode,
      load,
      statements: rows,
    };
  } finally {
    await Promise.all(children.map(stopNode));
    await admin.end();
    await copy.dispose();
  }
}

/** Runs the part (see the module comment): starts its cluster, generates the crawl, runs each run, stops the cluster. */
export async function runLeaseWork(shape: LeaseWorkShape): Promise<{ runs: LeaseWorkRun[]; generatedMs: number }> {
  const cluster = await startTestPostgres();
  try {
    await loadStatementCounts(cluster);
    console.log(
      `cluster-bench: leases: generating ${(shape.db.hosts * shape.db.urlsPerHost).toLocaleString('en')} queued URLs over ${shape.db.hosts.toLocaleString('en')} hosts ...`,
    );
    const { url, generatedMs } = await frontierPgDatabase(cluster.adminUrl, shape.db);
    console.log(`  generated in ${(generatedMs / 1000).toFixed(0)} s`);
    const runs: LeaseWorkRun[] = [];
    for (const nodes of shape.runs) {
      console.log(`cluster-bench: leases: ${nodes === 0 ? 'leases off' : `${nodes} node(s)`} ...`);
      runs.push(await leaseRun(cluster, url, nodes, shape));
    }
    return { runs, generatedMs };
  } finally {
    cluster.stop();
  }
}
