/**
 * `npm run bench:frontier`: what the frontier costs the crawler primary, part by part, each in a child
 * process of its own (so each heap and RSS figure is its own and one part's garbage does not slow the
 * next). A part is a name and a function run in the child that returns JSON:
 *  - the pure scheduler's parts (scheduler-parts.ts): generated jobs, no I/O;
 *  - the database-backed parts (primary-parts.ts) on a generated database of 1,000,000 queued URLs over
 *    10,000 hosts: a restart, and a crawl through the real CrawlPrimary with instant fake workers, then the
 *    removal of a seed of 100,000 URLs; on each engine of --engine, one after the other part by part: SQLite
 *    (frontier-db.ts, generated once per run, or kept with --reuse) and PostgreSQL (frontier-pg.ts: the same
 *    rows in a throwaway cluster of test-support/postgres.ts, started for the run and removed after it);
 *  - a real-cluster run at 1,000 loopback hosts (cluster-part.ts), politeness judged from the sites' logs.
 *
 * Options: see USAGE (parsed by util.parseArgs; an unknown option stops it with USAGE).
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildSync } from 'esbuild';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { runSchedulerWorkload, SCHEDULER_WORKLOADS, type SchedulerFigures } from './scheduler-parts.ts';
import { formatFrontierSection, FRONTIER_MARKERS, type FrontierReport } from './frontier-report.ts';
import { frontierDatabase, MILLION, type FrontierShape } from './frontier-db.ts';
import { runCrawl, runRestart } from './primary-parts.ts';
import { frontierPgDatabase } from './frontier-pg.ts';
import { type Engine, ENGINES } from './part-storage.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import type { CrawlFigures, RestartFigures } from './primary-figures.ts';
import { runCluster, THOUSAND_SITES, type ClusterFigures, type ClusterShape } from './cluster-part.ts';
import { primaryExecArgv } from '../../crawler/primary-heap.ts';
import { DEFAULTS } from '../../shared/config.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DOC = path.join(HERE, '..', '..', 'docs', 'benchmarks.md');

/**
 * One part of the benchmark: runs in a child, returns JSON-able figures. A database-backed part (restart,
 * crawl) runs once per engine, given the generated database (SQLite's file, or PostgreSQL's URL).
 */
interface Part {
  name: string;
  kind: 'scheduler' | 'restart' | 'crawl' | 'cluster';
  run: (db: string, engine: Engine) => unknown;
}

/** How big the database-backed and cluster parts are: the issue's figures, or a quick try of the same code. */
interface Size {
  db: FrontierShape;
  crawl: { workers: number; warmupSeconds: number; seconds: number; removeSeed: number };
  cluster: ClusterShape;
}

const SIZES: Record<'full' | 'small', Size> = {
  // The crawl part's length: long enough for thousands of dispatches and several refills of every busy host.
  full: {
    db: MILLION,
    crawl: { workers: 4, warmupSeconds: 5, seconds: 20, removeSeed: MILLION.seeds },
    cluster: THOUSAND_SITES,
  },
  small: {
    db: { hosts: 1000, urlsPerHost: 100, seeds: 10 },
    crawl: { workers: 2, warmupSeconds: 1, seconds: 3, removeSeed: 10 },
    cluster: { sites: 50, pagesPerSite: 3, delayMs: 1000, workers: 2 },
  },
};

function parts(size: Size): Part[] {
  return [
    ...Object.entries(SCHEDULER_WORKLOADS).map(
      ([name, w]): Part => ({ name, kind: 'scheduler', run: () => runSchedulerWorkload(w) }),
    ),
    { name: 'primary-restart', kind: 'restart', run: (db, engine) => runRestart(db, engine, size.db) },
    { name: 'primary-crawl', kind: 'crawl', run: (db, engine) => runCrawl(db, engine, size.db, size.crawl) },
    { name: 'cluster-1000', kind: 'cluster', run: () => runCluster(size.cluster) },
  ];
}

const PART_NAMES = parts(SIZES.full).map((p) => p.name);

const USAGE = `Options: --only=<part,...> runs some parts (${PART_NAMES.join(', ')}), --engine=<engine,...> the engines
the restart and crawl parts run on (${ENGINES.join(', ')}; default both), --reuse keeps the generated SQLite
database of 1,000,000 URLs for the next run and uses the one kept (${os.tmpdir()}/lantern-frontier-bench-*), --small tries
the same code at 1,000 hosts x 100 URLs and 50 sites (never written), --no-write prints only (docs/benchmarks.md is
rewritten only by a full run).`;

interface Options {
  only: string[] | undefined;
  engines: Engine[];
  reuse: boolean;
  small: boolean;
  write: boolean;
  child: string | undefined;
  db: string;
}

function options(): Options {
  // biome-ignore lint/suspicious/noImplicitAnyLet: set in the try below; its type is the one inferred there
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        only: { type: 'string' },
        engine: { type: 'string', default: ENGINES.join(',') },
        reuse: { type: 'boolean', default: false },
        small: { type: 'boolean', default: false },
        'no-write': { type: 'boolean', default: false },
        child: { type: 'string' },
        db: { type: 'string', default: '' },
      },
    }));
  } catch (err) {
    if (err instanceof TypeError) throw new Error(`frontier-bench: ${err.message}\n${USAGE}`); // ERR_PARSE_ARGS_*
    throw err;
  }
  const only = values.only?.split(',');
  const unknown = only?.filter((n) => !PART_NAMES.includes(n)) ?? [];
  if (unknown.length > 0)
    throw new Error(`frontier-bench: --only names unknown parts (${unknown.join(', ')})\n${USAGE}`);
  const engines = values.engine.split(',') as Engine[];
  const unknownEngines = engines.filter((e) => !ENGINES.includes(e));
  if (unknownEngines.length > 0 || engines.length === 0)
    throw new Error(`frontier-bench: --engine names unknown engines (${unknownEngines.join(', ')})\n${USAGE}`);
  return {
    only,
    engines: ENGINES.filter((e) => engines.includes(e)),
    reuse: values.reuse,
    small: values.small,
    write: !values['no-write'] && !values.small,
    child: values.child,
    db: values.db,
  };
}

/**
 * Where this benchmark is bundled for the parts that run the primary (see runInChild): dist/<folder>/<name>.js,
 * the depth shared/project-root.ts expects of a bundle.
 */
const BUNDLE = path.join(HERE, '..', '..', 'dist', 'bench', 'frontier-bench.js');

/**
 * Bundles this benchmark as `npm run build:app` bundles the primary (package.json: esbuild, ESM for node 20,
 * better-sqlite3 left outside, `require` made for it), so that the primary's parts run compiled, as in production.
 */
function bundle(): string {
  buildSync({
    entryPoints: [fileURLToPath(import.meta.url)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['better-sqlite3', 'esbuild'], // esbuild: this file's own builder, not bundled into itself
    banner: {
      js: "import { createRequire as lanternRequire } from 'node:module'; const require = lanternRequire(import.meta.url);",
    },
    outfile: BUNDLE,
    logLevel: 'warning',
  });
  return BUNDLE;
}

/**
 * The node options `npm start` runs the server with (package.json's `start`, read here so that there is one
 * place for them), which the primary it forks inherits (server/crawler-link.ts) with its own heap limit added
 * (crawler/primary-heap.ts, as runInChild adds it): its memory is measured with them.
 */
function productionNodeOptions(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(HERE, '..', '..', 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const run = pkg.scripts.start
    .split('&&')
    .at(-1)!
    .trim()
    .replace(/^exec\s+/, '')
    .split(/\s+/);
  if (run[0] !== 'node')
    throw new Error(`frontier-bench: npm start does not end by running node: ${pkg.scripts.start}`);
  return run.slice(1).filter((a) => a.startsWith('-'));
}

/**
 * Runs a part in a child. The primary's parts (restart, crawl) run the compiled bundle with production's
 * node options, as `npm start` runs the primary; the others run the TypeScript under tsx with gc exposed.
 */
function runInChild(name: string, db: string, engine: Engine, small: boolean, kind: Part['kind']): Promise<unknown> {
  const compiled = kind === 'restart' || kind === 'crawl';
  return new Promise((resolve, reject) => {
    const entry = compiled ? bundle() : fileURLToPath(import.meta.url);
    const args = ['--child', name, '--db', db, '--engine', engine, ...(small ? ['--small'] : [])];
    const child = fork(entry, args, {
      execArgv: compiled
        ? primaryExecArgv(productionNodeOptions(), DEFAULTS.crawlPrimaryHeapMb)
        : ['--import', 'tsx', '--expose-gc', '--max-old-space-size=4096'],
    });
    let result: unknown;
    child.once('message', (m) => {
      result = m;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code === 0 && result !== undefined) resolve(result);
      else reject(new Error(`frontier-bench: part ${name} exited with code ${code} before sending its figures`));
    });
  });
}

/** The start's storage calls that took longest, as `name xN ms`. */
const startCalls = (r: RestartFigures) =>
  r.startCalls
    .slice(0, 6)
    .map((c) => `${c.call} x${c.n} ${c.ms.toFixed(0)} ms`)
    .join(', ');

const ms = (x: number) => (x < 0.01 ? `${(x * 1000).toFixed(2)} µs` : `${x.toFixed(3)} ms`);

/** The dispatches' CPU split by GC pauses met (dispatch-gc.ts), in a few words. */
const gcSplit = (c: CrawlFigures) => {
  const s = c.cpuSplit;
  return `CPU p99 without a GC pause ${ms(s.cpuNoGc.p99 ?? Number.NaN)}, with one ${ms(s.cpuMetGc.p99 ?? Number.NaN)} (${s.metGc} dispatches met one of ${s.gcPauses} pauses, ${s.gcPauseMs.toFixed(0)} ms); at p99 or above ${s.top}: ${s.topMetGc} met a GC pause, ${s.topOverWall} CPU above wall and timing cost (${ms(s.overheadMs)}) by > 5 µs, CPU - wall p50 ${ms(s.topExcessMs)}; CPU bounded by wall p50 ${ms(s.ownCpu.p50)} p99 ${ms(s.ownCpu.p99)}`;
};

/** One line per part, as it finishes. */
function summary(part: Part, f: unknown): string {
  switch (part.kind) {
    case 'scheduler': {
      const s = f as SchedulerFigures;
      return `${s.label}: add ${s.queued.toLocaleString('en')} jobs ${s.addMs.toFixed(0)} ms (CPU ${s.addCpuMs.toFixed(0)} ms); next() p50 ${ms(s.next.p50)}, p99 ${ms(s.next.p99)}, max ${ms(s.next.max)} over ${s.dispatches.toLocaleString('en')}; complete() p99 ${ms(s.complete.p99)}; heap: jobs ${s.jobsHeapMiB.toFixed(0)} MiB + scheduler ${s.schedulerHeapMiB.toFixed(0)} MiB`;
    }
    case 'restart': {
      const r = f as RestartFigures;
      return `${r.engine}: restart at ${r.queued.toLocaleString('en')} queued: first dispatch ${r.totalMs.toFixed(0)} ms after opening the database (start ${r.startMs.toFixed(0)} ms; first host due ${r.firstDueAfterMs.toFixed(0)} ms after the start); RSS ${r.rssMiB.toFixed(0)} MiB; the start's storage calls: ${startCalls(r)}`;
    }
    case 'crawl': {
      const c = f as CrawlFigures;
      const trips = c.roundTripsPerFlush
        ? `; round trips per flush p50 ${c.roundTripsPerFlush.p50.toFixed(0)} p99 ${c.roundTripsPerFlush.p99.toFixed(0)}`
        : '';
      return `${c.engine}: crawl (${c.runtime}): snapshots p50 ${ms(c.snapshotWall.p50)} max ${ms(c.snapshotWall.max)} wall, CPU p50 ${ms(c.snapshotCpu.p50)} max ${ms(c.snapshotCpu.max)}, ${c.snapshotHosts.p50.toFixed(0)} hosts p50; the first (full) ${ms(c.fullSnapshot.wallMs)}; RSS after ${c.rssAfterMiB.toFixed(0)} MiB, heap max ${c.heapMaxMiB.toFixed(0)} MiB; ${c.dispatches.toLocaleString('en')} dispatches (${c.dispatchesPerSec.toFixed(0)}/s); dispatch CPU p50 ${ms(c.cpu.p50)} p99 ${ms(c.cpu.p99)}; wall p99 ${ms(c.wall.p99)}; ${gcSplit(c)}; flush wall p50 ${ms(c.flushWall.p50)} p99 ${ms(c.flushWall.p99)}${trips}; CPU per job ${c.cpuPerDispatchMs.toFixed(3)} ms; RSS max ${c.rssMaxMiB.toFixed(0)} MiB; removal of ${c.removal.urls.toLocaleString('en')} URLs ${(c.removal.totalMs / 1000).toFixed(1)} s, longest delay behind it ${c.removal.longestDelayMs.toFixed(1)} ms (CPU ${c.removal.longestDelayCpuMs.toFixed(1)} ms; sync ${c.removal.syncMs.toFixed(1)}, chunk ${c.removal.longestChunkMs.toFixed(1)}, pass-over dispatch ${c.removal.longestPassOverMs.toFixed(1)}, refill ${c.removal.longestRefillMs.toFixed(1)} ms), longest flush ${c.removal.longestStepMs.toFixed(1)} ms (CPU ${c.removal.longestStepCpuMs.toFixed(1)} ms; before ${c.removal.longestFlushBeforeMs.toFixed(1)} ms)`;
    }
    case 'cluster': {
      const c = f as ClusterFigures;
      return `cluster: ${c.sites} sites, ${c.pages} pages in ${(c.crawlMs / 1000).toFixed(0)} s; violations ${c.violations}; efficiency ${c.efficiency.toFixed(2)} (per host median ${c.perHostEfficiency.p50.toFixed(2)}); primary RSS peak ${c.primaryPeakRssMiB.toFixed(0)} MiB`;
    }
  }
}

/**
 * The generated databases the restart and crawl parts copy, one per engine of `engines`: SQLite's file, and
 * PostgreSQL's template database in a throwaway cluster started here (the caller stops it).
 */
async function generatedDatabases(
  size: Size,
  opts: Options,
): Promise<{
  sources: Partial<Record<Engine, string>>;
  cluster?: TestPostgres;
  postgres?: FrontierReport['postgres'];
}> {
  const sources: Partial<Record<Engine, string>> = {};
  const what = `${(size.db.hosts * size.db.urlsPerHost).toLocaleString('en')} queued URLs over ${size.db.hosts.toLocaleString('en')} hosts`;
  if (opts.engines.includes('sqlite')) {
    console.log(`frontier-bench: the SQLite database of ${what} ...`);
    const { file, generatedMs } = frontierDatabase(size.db, { reuse: opts.reuse });
    sources.sqlite = file;
    console.log(
      `  ${generatedMs > 0 ? `generated in ${(generatedMs / 1000).toFixed(0)} s` : 'kept from an earlier run (--reuse)'}: ${file}`,
    );
  }
  if (!opts.engines.includes('postgres')) return { sources };
  console.log(`frontier-bench: a throwaway PostgreSQL cluster and its database of ${what} ...`);
  const cluster = await startTestPostgres();
  try {
    const { url, generatedMs } = await frontierPgDatabase(cluster.adminUrl, size.db);
    sources.postgres = url;
    const server = await serverDescription(cluster.adminUrl);
    console.log(`  generated in ${(generatedMs / 1000).toFixed(0)} s on ${server}`);
    return { sources, cluster, postgres: { server, generatedMs } };
  } catch (err) {
    cluster.stop();
    throw err;
  }
}

/** The server's version and the settings that bear on the figures, as the report names them. */
async function serverDescription(adminUrl: string): Promise<string> {
  const pool = openPgPool(adminUrl, { max: 1 });
  try {
    const { rows } = await pool.query<{ name: string; setting: string }>(
      `SELECT name, current_setting(name) AS setting FROM unnest(ARRAY['server_version', 'shared_buffers', 'fsync', 'synchronous_commit']) AS name`,
    );
    const of = (n: string) => rows.find((r) => r.name === n)?.setting ?? '?';
    return `PostgreSQL ${of('server_version').split(' ')[0]} (shared_buffers ${of('shared_buffers')}, fsync ${of('fsync')}, synchronous_commit ${of('synchronous_commit')}) on loopback`;
  } finally {
    await pool.end();
  }
}

async function main(): Promise<void> {
  const opts = options();
  const size = SIZES[opts.small ? 'small' : 'full'];
  const PARTS = parts(size);
  if (opts.child !== undefined) {
    const part = PARTS.find((p) => p.name === opts.child);
    if (!part) throw new Error(`frontier-bench: no part named ${opts.child}`);
    const figures = await part.run(opts.db, opts.engines[0]);
    process.send!(figures as object, () => process.exit(0));
    return;
  }
  const m = machineInfo();
  const started = new Date();
  const loadAtStart = os.loadavg()[0];
  console.log(`frontier-bench: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}`);
  const chosen = PARTS.filter((p) => !opts.only || opts.only.includes(p.name));
  const generated = chosen.some((p) => p.kind === 'restart' || p.kind === 'crawl')
    ? await generatedDatabases(size, opts)
    : { sources: {} };
  const report: FrontierReport = {
    date: started,
    machine: m,
    loadAtStart,
    loadAtEnd: 0,
    scheduler: [],
    restarts: [],
    crawls: [],
    postgres: generated.postgres,
    loads: {},
  };
  try {
    for (const part of chosen) {
      // The database-backed parts once per engine, the engines one after the other (SQLite, then PostgreSQL).
      const engines: Array<Engine | undefined> =
        part.kind === 'restart' || part.kind === 'crawl' ? opts.engines : [undefined];
      for (const engine of engines) {
        const label = engine === undefined ? part.name : `${part.name}@${engine}`;
        console.log(`frontier-bench: ${label} ... (1-minute load average ${os.loadavg()[0].toFixed(1)})`);
        report.loads[label] = os.loadavg()[0];
        const db = engine === undefined ? '' : generated.sources[engine]!;
        const f = await runInChild(part.name, db, engine ?? 'sqlite', opts.small, part.kind);
        console.log(`  ${summary(part, f)}`);
        if (part.kind === 'scheduler') report.scheduler.push(f as SchedulerFigures);
        else if (part.kind === 'restart') report.restarts.push(f as RestartFigures);
        else if (part.kind === 'crawl') report.crawls.push(f as CrawlFigures);
        else report.cluster = f as ClusterFigures;
      }
    }
  } finally {
    generated.cluster?.stop();
  }
  report.loadAtEnd = os.loadavg()[0];
  const section = formatFrontierSection(report);
  console.log(`\n${section}`);
  if (!opts.write || opts.only || opts.engines.length < ENGINES.length) {
    console.log('frontier-bench: docs/benchmarks.md not written (--no-write, --small, --only or one --engine)');
    return;
  }
  writeSection(DOC, FRONTIER_MARKERS, section);
  console.log(`frontier-bench: wrote the frontier section of ${path.relative(process.cwd(), DOC)}`);
}

await main();
