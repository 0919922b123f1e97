/**
 * The figures of `npm run bench:cluster` and how they read, pure: the scaling runs (pages/s with 1, 2, 3 crawler
 * nodes against N x one node's rate) and the handover (from a node's kill -9 to each of its groups' next request
 * on another node, against the lease plus the group's delay). Formatting only: the runs are cluster-bench.ts's.
 */

/** One crawl of the scaling part. */
export interface ScalingRun {
  nodes: number;
  pages: number;
  /** From the first page request's start to the last page's end, in the sites' own logs. */
  windowMs: number;
  /** Requests that overlapped another of the same site (the sites' logs; 0 is the only correct figure). */
  overlaps: number;
  /** Pages requested more than once. */
  duplicates: number;
  /** Pages each node fetched (the sites' logs, by User-Agent), in node order. */
  perNode: number[];
  /** Each node's first and last page request, in seconds from the run's first (the sites' logs), in node order. */
  spans: Array<[first: number, last: number]>;
  /** The 1-minute load average as the crawl started. */
  load: number;
}

/** The handover part: one node killed mid-crawl, its groups taken over. */
export interface HandoverRun {
  leaseMs: number;
  delayMs: number;
  /** For each group the killed node held: ms from the kill to that group's next request start. */
  waitsMs: number[];
  /** Gaps below the delay (or overlaps) within any group, across both nodes, over the whole crawl. */
  violations: number;
  /** Pages stored exactly once, and pages expected. */
  storedOnce: number;
  expected: number;
  load: number;
}

/** Pages per second of a run. */
export function pagesPerSecond(run: ScalingRun): number {
  return run.windowMs > 0 ? (run.pages * 1000) / run.windowMs : 0;
}

/** The p-th quantile (0..1) of `values`, nearest rank; NaN for none. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

/** Each run's speed-up over the one-node run: its pages/s over N x one node's (the target is >= 0.9). */
export function scalingEfficiency(runs: readonly ScalingRun[]): Map<number, number> {
  const one = runs.find((r) => r.nodes === 1);
  const out = new Map<number, number>();
  if (one === undefined) return out;
  const base = pagesPerSecond(one);
  for (const r of runs) out.set(r.nodes, base > 0 ? pagesPerSecond(r) / (r.nodes * base) : Number.NaN);
  return out;
}

const f1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const f2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');

/** The markdown section of docs/benchmarks.md (and what the benchmark prints). */
export function clusterSection(opts: {
  measuredLine: string;
  setup: string;
  scaling: readonly ScalingRun[];
  handover: HandoverRun | undefined;
}): string {
  const eff = scalingEfficiency(opts.scaling);
  const lines = [
    '## Crawler nodes on one PostgreSQL (`npm run bench:cluster`)',
    '',
    opts.measuredLine,
    '',
    opts.setup,
    '',
  ];
  if (opts.scaling.length > 0) {
    lines.push(
      '| nodes | load | pages | pages/s | ÷ (N × one node) | pages per node | each node from–to s | overlaps | pages fetched twice |',
      '|---:|---:|---:|---:|---|---|---|---:|---:|',
    );
    for (const r of opts.scaling) {
      const e = eff.get(r.nodes) ?? Number.NaN;
      const verdict = r.nodes === 1 ? '1' : `**${f2(e)}** (${e >= 0.9 ? 'meets' : 'misses'} ≥ 0.9)`;
      lines.push(
        `| ${r.nodes} | ${f1(r.load)} | ${r.pages} | **${f1(pagesPerSecond(r))}** | ${verdict} | ${r.perNode.join(' / ')} | ${r.spans.map(([a, b]) => `${f1(a)}–${f1(b)}`).join(' / ')} | ${r.overlaps} | ${r.duplicates} |`,
      );
    }
    lines.push('');
  }
  const h = opts.handover;
  if (h !== undefined) {
    const bound = h.leaseMs + h.delayMs;
    const max = Math.max(...h.waitsMs);
    lines.push(
      `**Handover** (load ${f1(h.load)}): a node killed with SIGKILL held ${h.waitsMs.length} groups; from the kill to each one's next request on the other node: p50 ${Math.round(quantile(h.waitsMs, 0.5))} ms, max ${Math.round(max)} ms, against a bound of the lease plus the delay, ${bound} ms (${max <= bound ? 'meets' : 'misses'}). Gaps below the delay or overlaps within any group, across both nodes: ${h.violations}. Pages stored exactly once: ${h.storedOnce} of ${h.expected}.`,
      '',
    );
  }
  return lines.join('\n');
}
