/**
 * The figures of the lease-work part of `npm run bench:cluster` (issue 29's third target: the lease work at 10,000
 * groups, against the single-machine primary), pure: which kind each statement PostgreSQL counted is
 * (pg_stat_statements' normalized text), the statements per second by kind, and the markdown section. Formatting
 * only: the runs are lease-work-bench.ts's.
 */
import type { LeaseNodeFigures } from './lease-work-node.ts';

/** A statement as pg_stat_statements counted it over the window. */
export interface CountedStatement {
  query: string;
  calls: number;
  /** Server time in all (ms). */
  totalMs: number;
}

/** A kind of statement, and whether it is the lease work's (absent with leases off) or the crawl's own. */
export interface StatementKind {
  kind: string;
  lease: boolean;
}

/**
 * How statements are told apart, first match wins: the lease statements (db/pg/pg-leases.ts, pg-group-work.ts),
 * the seed poll, and the crawl's own batches and reads. Matched on pg_stat_statements' text (parameters as $n).
 */
const KINDS: ReadonlyArray<{ test: RegExp } & StatementKind> = [
  { test: /^\s*(BEGIN|START TRANSACTION)\b/i, kind: 'BEGIN', lease: false },
  { test: /^\s*(COMMIT|END)\b/i, kind: 'COMMIT', lease: false },
  { test: /^\s*ROLLBACK\b/i, kind: 'ROLLBACK', lease: false },
  { test: /UPDATE group_leases l SET expires_at = now\(\)/i, kind: 'lease renewal', lease: true },
  { test: /WITH free AS \(/i, kind: 'lease take', lease: true },
  { test: /FOR UPDATE$|ORDER BY group_key FOR UPDATE/i, kind: 'lease release (lock)', lease: true },
  { test: /UPDATE group_leases l SET owner = NULL/i, kind: 'lease release', lease: true },
  { test: /UPDATE crawl_nodes SET left_at|left_node AS/i, kind: 'node leave', lease: true },
  { test: /UPDATE crawl_nodes SET heartbeat_at/i, kind: 'heartbeat', lease: true },
  { test: /INSERT INTO crawl_nodes/i, kind: 'node register', lease: true },
  { test: /FROM crawl_nodes n/i, kind: 'live nodes', lease: true },
  { test: /FROM group_leases WHERE has_work/i, kind: 'groups with work', lease: true },
  { test: /INSERT INTO group_leases/i, kind: 'work noted', lease: true },
  { test: /FOR SHARE OF l/i, kind: 'fence (leases still held)', lease: true },
  { test: /UPDATE group_leases SET next_start_at/i, kind: 'clock record', lease: true },
  { test: /SELECT owner, epoch FROM group_leases/i, kind: 'fence (one lease)', lease: true },
  {
    test: /UPDATE frontier SET state = 'queued', lease_owner = NULL[\s\S]*origin = ANY/i,
    kind: 'taken hosts: leased URLs returned',
    lease: true,
  },
  {
    test: /FILTER \(WHERE state = 'queued'\)[\s\S]*GROUP BY origin/i,
    kind: 'taken hosts: queued origins',
    lease: true,
  },
  { test: /\bFROM seeds\b|\bUPDATE seeds\b/i, kind: 'seeds (poll, lifecycle)', lease: false },
  { test: /^\s*SELECT[\s\S]*\bFROM frontier\b|LATERAL[\s\S]*frontier/i, kind: 'frontier reads', lease: false },
  { test: /\b(UPDATE|INSERT INTO|DELETE FROM) frontier\b/i, kind: 'frontier writes', lease: false },
  { test: /\bhosts\b/i, kind: 'hosts', lease: false },
  { test: /\bpages\b|\blink_targets\b/i, kind: 'pages and links', lease: false },
];

/** The kind of a statement's text (see KINDS); 'other' when none matches. */
export function statementKind(query: string): StatementKind {
  const k = KINDS.find((x) => x.test.test(query));
  return k === undefined ? { kind: 'other', lease: false } : { kind: k.kind, lease: k.lease };
}

/** Statements per second by kind over `seconds`, most first; with the server's ms per second they took. */
export interface KindRate extends StatementKind {
  perSecond: number;
  msPerSecond: number;
}

/** Sums `counted` by kind (statementKind) into rates over `seconds`, most calls first. */
export function ratesByKind(counted: readonly CountedStatement[], seconds: number): KindRate[] {
  const by = new Map<string, KindRate>();
  for (const c of counted) {
    const k = statementKind(c.query);
    const r = by.get(k.kind) ?? { ...k, perSecond: 0, msPerSecond: 0 };
    r.perSecond += c.calls / seconds;
    r.msPerSecond += c.totalMs / seconds;
    by.set(k.kind, r);
  }
  return [...by.values()].sort((a, b) => b.perSecond - a.perSecond || (a.kind < b.kind ? -1 : 1));
}

/** One run of the part: leases off, or N nodes holding the groups, measured over one steady window. */
export interface LeaseWorkRun {
  label: string;
  /** Nodes with leases (0: leases off, the single-machine primary). */
  nodes: number;
  /** Groups with work, and groups held (all nodes) when the window began. */
  groups: number;
  held: number;
  /** Seconds from the nodes' start until they held every group (NaN: leases off, or never in the wait). */
  takenAfterS: number;
  seconds: number;
  /** Statements per second PostgreSQL counted (pg_stat_statements), by kind; and transactions per second. */
  kinds: KindRate[];
  transactionsPerSecond: number;
  /** Each node's figures over the window. */
  perNode: LeaseNodeFigures[];
  load: number;
  /** What pg_stat_statements counted over the window, each statement. */
  statements: CountedStatement[];
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const f0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
const us = (ms: number) => (Number.isFinite(ms) ? `${(ms * 1000).toFixed(1)} µs` : 'n/a');
const msf = (ms: number) => (Number.isFinite(ms) ? `${ms.toFixed(ms < 10 ? 2 : 1)} ms` : 'n/a');

/** Statements per second of a run, all of them and the lease work's alone. */
export function statementTotals(run: LeaseWorkRun): { all: number; lease: number } {
  let all = 0;
  let lease = 0;
  for (const k of run.kinds) {
    all += k.perSecond;
    if (k.lease) lease += k.perSecond;
  }
  return { all, lease };
}

/** The nodes' hand-outs of a run, in all, and per second. */
function jobs(run: LeaseWorkRun): { n: number; perSecond: number } {
  const n = run.perNode.reduce((s, f) => s + f.dispatches, 0);
  return { n, perSecond: n / run.seconds };
}

/** The markdown of the part (the subsection of docs/benchmarks.md, and what the benchmark prints). */
export function leaseWorkSection(opts: { measuredLine: string; setup: string; runs: readonly LeaseWorkRun[] }): string {
  const lines = [
    '### Lease work at 10,000 groups (`npm run bench:cluster -- --only leases`)',
    '',
    opts.measuredLine,
    '',
    opts.setup,
    '',
  ];
  lines.push(
    '| run | load | groups held | jobs/s | statements/s (lease work) | transactions/s | dispatch CPU p50 / p99 | dispatch wall p99 | primary CPU per job | lease rounds: CPU p50 / p99 / max | longest round stretch | facts of all groups p50 | event loop delay max |',
    '|---|---:|---:|---:|---:|---:|---|---:|---:|---|---:|---:|---:|',
  );
  for (const r of opts.runs) {
    const t = statementTotals(r);
    for (const n of r.perNode) {
      const leased = r.nodes > 0;
      lines.push(
        `| ${r.label}${r.perNode.length > 1 ? `, ${n.node}` : ''} | ${f1(r.load)} | ${leased ? `${n.held} of ${r.groups}` : '(no leases)'} | ${f0(n.dispatches / n.seconds)} | ${n === r.perNode[0] ? `**${f0(t.all)}** (${f0(t.lease)})` : '″'} | ${n === r.perNode[0] ? f0(r.transactionsPerSecond) : '″'} | ${us(n.cpu.p50)} / **${us(n.cpu.p99)}** | ${us(n.wall.p99)} | ${msf(n.cpuPerJobMs)} | ${leased ? `${msf(n.roundCpu.p50)} / ${msf(n.roundCpu.p99)} / **${msf(n.roundCpu.max)}** (${n.rounds} rounds)` : '-'} | ${leased ? msf(n.longestRoundBlockMs) : '-'} | ${leased ? msf(n.factsCpu.p50) : '-'} | ${msf(n.loopDelayMaxMs)} |`,
      );
    }
  }
  lines.push('');
  for (const r of opts.runs) {
    const t = statementTotals(r);
    const top = r.kinds
      .slice(0, 8)
      .map((k) => `${k.kind}${k.lease ? ' (lease)' : ''} ${f1(k.perSecond)}/s`)
      .join(', ');
    const lease = r.kinds
      .filter((k) => k.lease)
      .map((k) => `${k.kind} ${f1(k.perSecond)}/s`)
      .join(', ');
    lines.push(
      `**${r.label}**: ${f0(t.all)} statements/s over ${f0(r.seconds)} s (${f1(jobs(r).perSecond)} jobs/s, ${f1(t.all / Math.max(1e-9, jobs(r).perSecond))} statements a job)${Number.isFinite(r.takenAfterS) ? `; every group held ${f1(r.takenAfterS)} s after the start` : ''}. Most: ${top}.${r.nodes > 0 ? ` The lease work alone: ${f1(t.lease)}/s (${lease || 'none'}).` : ''}`,
      '',
    );
  }
  return lines.join('\n');
}
