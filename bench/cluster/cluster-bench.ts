/**
 * `npm run bench:cluster`: crawler nodes on one PostgreSQL (issue 29), measured from the sites' own request logs
 * (a benchmark, not a test). (1) Scaling: the same slow sites crawled by 1, 2 and 3 nodes, each node held to the
 * same few fetch slots, so a node's slots bound its rate (not politeness, not the cores): pages/s against N x one
 * node's. (2) Handover: two nodes, one killed with SIGKILL mid-crawl; from the kill to each of its groups' next
 * request on the other node, against the lease plus the group's delay. Each node is a real crawler primary with its
 * workers and its own CRAWL_NODE_ID (and its own User-Agent, so the sites' logs say who asked), on a fresh database
 * of a throwaway cluster. (3) Lease work at 10,000 groups (lease-work-bench.ts): statements per second and the
 * primary's CPU per dispatch with one and two nodes holding every group, against leases off. Prints the figures and
 * writes the cluster section of docs/benchmarks.md (--no-write: print only); `--only leases` runs the third part
 * alone and writes its own subsection, `--only scaling` or `--only handover` print only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { politenessGroup } from '../../crawler/politeness/politeness-group.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { type CrawlerProcess, isIdle, startCrawlerProcess } from '../../test-support/crawler-harness.ts';
import { generatedDepth, politenessReport, startTestWeb, type TestSite, waitFor } from '../../test-support/test-web.ts';
import { benchSite } from '../crawl/bench-pages.ts';
import { startBenchPostgres } from '../crawl/bench-postgres.ts';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { clusterSection, type HandoverRun, pagesPerSecond, type ScalingRun } from './cluster-report.ts';
import { runLeaseWork, TEN_THOUSAND_GROUPS } from './lease-work-bench.ts';
import { ratesByKind, leaseWorkSection, statementTotals } from './lease-work-report.ts';

const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));
const MARKERS = { start: '<!-- cluster:start -->', end: '<!-- cluster:end -->' } as const;
const LEASE_MARKERS = { start: '<!-- cluster-leases:start -->', end: '<!-- cluster-leases:end -->' } as const;

/** The scaling part: many slow sites, few slots per node (one worker; fetch-limits.ts gives it 4 fetches). */
const SCALING = { sites: 60, pagesPerSite: 20, responseMs: 200, workers: 1 } as const;
/** The handover part: a short lease, so the bench waits seconds, not the default 90 s. */
const HANDOVER = { sites: 16, pagesPerSite: 40, responseMs: 50, delayMs: 500, leaseMs: 6000, marginMs: 1000 } as const;

/** One crawler node: a primary and its workers, named in CRAWL_NODE_ID and in its User-Agent. */
interface Node {
  id: string;
  proc: CrawlerProcess;
  dataDir: string;
}

function startNode(id: string, url: string, env: Record<string, string>): Node {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lantern-node-${id}-`));
  const proc = startCrawlerProcess(dataDir, {
    ...env,
    DATABASE_URL: url,
    CRAWL_NODE_ID: id,
    CRAWL_USER_AGENT: `LanternBench-${id}/1.0`,
  });
  return { id, proc, dataDir };
}

async function stopNodes(nodes: Node[]): Promise<void> {
  await Promise.all(nodes.map((n) => n.proc.stop()));
  for (const n of nodes) rmSync(n.dataDir, { recursive: true, force: true });
}

/** Which node asked, from the User-Agent it sent. */
function askedBy(userAgent: string): string | undefined {
  return /^LanternBench-([\w-]+)\//.exec(userAgent)?.[1];
}

/** Crawls `sites` with nodes on a fresh database of `createDatabase`; answers the nodes' record and its pool. */
async function crawl(
  createDatabase: () => Promise<string>,
  ids: string[],
  sites: TestSite[],
  pagesPerSite: number,
  env: Record<string, string>,
  during?: (nodes: Node[], pool: ReturnType<typeof openPgPool>) => Promise<void>,
): Promise<{ storedOnce: number }> {
  const url = await createDatabase();
  const pool = openPgPool(url, { max: 2 });
  try {
    await migratePg(pool);
    const nodes = ids.map((id) => startNode(id, url, env));
    try {
      await waitFor(() => nodes.every((n) => n.proc.messages.some((m) => m.type === 'started')), {
        timeoutMs: 120_000,
        message: () => `cluster-bench: every node to start${nodes.map((n) => n.proc.diagnosis()).join('')}`,
      });
      const seeds = pgSeedStore(pool);
      for (const site of sites) {
        const u = new URL(site.url('/'));
        const depth = generatedDepth(pagesPerSite);
        await seeds.upsertSeed({ url: u.href, origin: u.origin, depth, scope: 'host' }, Date.now());
      }
      for (const n of nodes) if (n.proc.primary.connected) n.proc.primary.send({ type: 'seeds-changed' });
      const idle = (async () => {
        let last: Record<string, number> = {};
        await waitFor(
          async () => {
            last = {};
            const rows = await pool.query<{ state: string; n: string }>(
              'SELECT state, COUNT(*) AS n FROM frontier GROUP BY state',
            );
            for (const r of rows.rows) last[r.state] = Number(r.n);
            return isIdle(last, sites.length * pagesPerSite);
          },
          {
            timeoutMs: 600_000,
            intervalMs: 200,
            message: () => `cluster-bench: the crawl to finish (states ${JSON.stringify(last)})`,
          },
        );
      })();
      if (during !== undefined) await during(nodes, pool);
      await idle;
      const r = await pool.query<{ n: string }>(
        'SELECT COUNT(*) AS n FROM (SELECT url FROM pages GROUP BY url HAVING COUNT(*) = 1) AS once',
      );
      return { storedOnce: Number(r.rows[0].n) };
    } finally {
      await stopNodes(nodes);
    }
  } finally {
    await pool.end();
  }
}

const pageLog = (site: TestSite) => site.log.filter((r) => r.path !== '/robots.txt');

async function scalingRun(createDatabase: () => Promise<string>, n: number): Promise<ScalingRun> {
  const spec = { ...benchSite({ pagesPerSite: SCALING.pagesPerSite }), defaultDelayMs: SCALING.responseMs };
  const web = await startTestWeb(Array.from({ length: SCALING.sites }, () => spec));
  try {
    const load = os.loadavg()[0];
    const ids = Array.from({ length: n }, (_, i) => `node${i + 1}`);
    await crawl(createDatabase, ids, web.sites, SCALING.pagesPerSite, {
      CRAWL_WORKERS: String(SCALING.workers),
      CRAWL_DELAY_MS: '0',
      CRAWL_PACING_FACTOR: '0',
    });
    const pages = web.sites.flatMap(pageLog);
    const perNode = ids.map((id) => pages.filter((r) => askedBy(r.userAgent) === id).length);
    const duplicates = web.sites.reduce(
      (sum, s) => sum + pageLog(s).length - new Set(pageLog(s).map((r) => r.path)).size,
      0,
    );
    const overlaps = web.sites.reduce((sum, s) => sum + (politenessReport(s.log, 0).maxInFlight > 1 ? 1 : 0), 0);
    const t0 = Math.min(...pages.map((r) => r.start));
    const windowMs = Math.max(...pages.map((r) => r.end)) - t0;
    const spans = ids.map((id): [number, number] => {
      const starts = pages.filter((r) => askedBy(r.userAgent) === id).map((r) => (r.start - t0) / 1000);
      return starts.length === 0 ? [Number.NaN, Number.NaN] : [Math.min(...starts), Math.max(...starts)];
    });
    return { nodes: n, pages: pages.length - duplicates, windowMs, overlaps, duplicates, perNode, spans, load };
  } finally {
    await web.close();
  }
}

async function handoverRun(createDatabase: () => Promise<string>): Promise<HandoverRun> {
  const spec = { ...benchSite({ pagesPerSite: HANDOVER.pagesPerSite }), defaultDelayMs: HANDOVER.responseMs };
  const web = await startTestWeb(Array.from({ length: HANDOVER.sites }, () => spec));
  const load = os.loadavg()[0];
  const waitsMs: number[] = [];
  try {
    const counts = await crawl(
      createDatabase,
      ['node1', 'node2'],
      web.sites,
      HANDOVER.pagesPerSite,
      {
        CRAWL_WORKERS: '1',
        CRAWL_DELAY_MS: String(HANDOVER.delayMs),
        CRAWL_PACING_FACTOR: '0',
        CRAWL_LEASE_MS: String(HANDOVER.leaseMs),
        CRAWL_LEASE_MARGIN_MS: String(HANDOVER.marginMs),
        CRAWL_TIMEOUT_MS: '1000',
      },
      async (nodes, pool) => {
        // Once both nodes have fetched pages of several sites, node1 dies holding its groups.
        const asked = (id: string) => web.sites.filter((s) => pageLog(s).some((r) => askedBy(r.userAgent) === id));
        await waitFor(() => asked('node1').length >= 3 && asked('node2').length >= 3, {
          timeoutMs: 120_000,
          message: 'cluster-bench: both nodes crawling before the kill',
        });
        const held = await pool.query<{ group_key: string }>(
          "SELECT group_key FROM group_leases WHERE owner = 'node1'",
        );
        await nodes[0].proc.kill('SIGKILL');
        const killedAt = performance.timeOrigin + performance.now();
        const groups = new Set(held.rows.map((r) => r.group_key));
        const theirs = web.sites.filter((s) => groups.has(politenessGroup(s.origin, 'domain')));
        const nextAfter = (s: TestSite) => s.log.find((r) => r.start > killedAt)?.start;
        await waitFor(
          () => theirs.every((s) => nextAfter(s) !== undefined || pageLog(s).length >= HANDOVER.pagesPerSite),
          {
            timeoutMs: 120_000,
            message: "cluster-bench: the killed node's groups to be crawled again",
          },
        );
        for (const s of theirs) {
          const next = nextAfter(s);
          if (next !== undefined) waitsMs.push(next - killedAt);
        }
      },
    );
    const violations = web.sites.reduce(
      (sum, s) => sum + politenessReport(s.log, HANDOVER.delayMs).violations.length,
      0,
    );
    return {
      leaseMs: HANDOVER.leaseMs,
      delayMs: HANDOVER.delayMs,
      waitsMs,
      violations,
      storedOnce: counts.storedOnce,
      expected: HANDOVER.sites * HANDOVER.pagesPerSite,
      load,
    };
  } finally {
    await web.close();
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { 'no-write': { type: 'boolean', default: false }, only: { type: 'string' } },
  });
  const only = values.only;
  if (only !== undefined && only !== 'scaling' && only !== 'handover' && only !== 'leases')
    throw new Error(`cluster-bench: --only must be scaling, handover or leases, not ${JSON.stringify(only)}`);
  const started = new Date();
  const machine = machineInfo();
  if (only === undefined || only === 'leases') await leaseWork(started, !values['no-write']);
  if (only === 'leases') return;
  const cluster = await startBenchPostgres(false);
  try {
    const createDatabase = () => cluster.createDatabase();
    const scaling: ScalingRun[] = [];
    if (only !== 'handover') {
      for (const n of [1, 2, 3]) {
        console.log(`cluster-bench: scaling, ${n} node(s) ...`);
        const run = await scalingRun(createDatabase, n);
        console.log(
          `  ${pagesPerSecond(run).toFixed(1)} pages/s, per node ${run.perNode.join(' / ')}, overlaps ${run.overlaps}`,
        );
        scaling.push(run);
      }
    }
    let handover: HandoverRun | undefined;
    if (only !== 'scaling') {
      console.log('cluster-bench: handover after kill -9 ...');
      handover = await handoverRun(createDatabase);
    }
    const section = clusterSection({
      measuredLine: `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:cluster\` on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}.`,
      setup: `Scaling: ${SCALING.sites} sites of ${SCALING.pagesPerSite} pages, each response held ${SCALING.responseMs} ms, CRAWL_DELAY_MS=0, no pacing; each node a primary with ${SCALING.workers} worker (4 fetch slots), so a node's slots bound its rate; the nodes on one throwaway PostgreSQL (fsync off) on this machine, a fresh database per run, the sites' own logs timed (first page request's start to the last one's end). Handover: ${HANDOVER.sites} sites of ${HANDOVER.pagesPerSite} pages, CRAWL_DELAY_MS=${HANDOVER.delayMs}, CRAWL_LEASE_MS=${HANDOVER.leaseMs}, CRAWL_LEASE_MARGIN_MS=${HANDOVER.marginMs}, CRAWL_TIMEOUT_MS=1000, two nodes.`,
      scaling,
      handover,
    });
    console.log(`\n${section}`);
    if (!values['no-write'] && only === undefined) writeSection(DOC, MARKERS, section);
    else console.log('cluster-bench: docs/benchmarks.md not written (--only or --no-write)');
  } finally {
    cluster.stop();
  }
}

/** The lease-work part (lease-work-bench.ts): measured, printed, and written as its own subsection unless `write` is false. */
async function leaseWork(started: Date, write: boolean): Promise<void> {
  const machine = machineInfo();
  const shape = TEN_THOUSAND_GROUPS;
  const loadAtStart = os.loadavg()[0];
  const { runs, generatedMs } = await runLeaseWork(shape);
  for (const r of runs) {
    const t = statementTotals(r);
    console.log(`  ${r.label}: ${t.all.toFixed(0)} statements/s (lease work ${t.lease.toFixed(1)}/s)`);
    for (const s of [...r.statements].sort((a, b) => b.calls - a.calls).slice(0, 25))
      console.log(
        `    ${(s.calls / r.seconds).toFixed(2)}/s ${ratesByKind([s], 1)[0].kind}: ${s.query.replace(/\s+/g, ' ').slice(0, 140)}`,
      );
  }
  const section = leaseWorkSection({
    measuredLine: `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:cluster -- --only leases\` on ${machine.cpu}, ${machine.cores} cores, ${machine.ramGiB} GiB RAM, Node ${machine.node}; 1-minute load average ${loadAtStart.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end (each run's at its window's start in the table).`,
    setup: `bench/frontier's generated crawl on PostgreSQL (frontier-pg.ts: ${(shape.db.hosts * shape.db.urlsPerHost).toLocaleString('en')} queued URLs over ${shape.db.hosts.toLocaleString('en')} hosts, generated in ${(generatedMs / 1000).toFixed(0)} s) with CRAWL_POLITENESS_GROUP=host, so ${shape.db.hosts.toLocaleString('en')} groups with work, in a throwaway cluster (test-support/postgres.ts: fsync off, shared_buffers 32MB) restarted with pg_stat_statements; each run on a copy of its own. Each node is the real primary in a process of its own (bench/cluster/lease-work-node.ts: CrawlPrimary, its Coordinator and timers, the storage \`npm start\` opens, ${shape.workers} fake workers answering every fetch at once as in bench:frontier's crawl part, node ${NODE_FLAGS}); with leases it is wired as crawler/primary.ts wires a node on PostgreSQL (NodeLeases, the default 90 s leases renewed a third in, the 1 s survey, the seed poll every 500 ms, every batch fenced), with leases off it is the primary bench:frontier measures (no lease loop, no seed poll, no fence). Once the nodes hold every group (the takes over) and ${shape.warmupSeconds} s more, PostgreSQL's counters are reset and every node measures the same ${shape.seconds} s window: statements counted by pg_stat_statements (track = top, so BEGIN and COMMIT count), transactions by pg_stat_database; a hand-out is DispatchLoop.handOutOne, timed in CPU (process.cpuUsage) and wall; the primary's CPU per job is the process's CPU over the window over the jobs handed out, lease loop included; a lease round's CPU is the sum of its synchronous stretches on the primary's thread (from its start to its first statement, between each answer and the next statement, to its end), and its longest stretch the longest the round blocked the event loop.`,
    runs,
  });
  console.log(`\n${section}`);
  if (write) writeSection(DOC, LEASE_MARKERS, section);
  else console.log('cluster-bench: docs/benchmarks.md not written (--no-write)');
}

const NODE_FLAGS = '--max-semi-space-size=1 --max-old-space-size=768 --heap-growing-percent=30 under tsx';

await main();
