/**
 * Part 2 on both storage engines (issue 28): which engines and PostgreSQL clusters to crawl on, in what order
 * each round, and the side-by-side table of what each crawl measured. Pure: parsing, ordering and formatting
 * only; crawl-bench.ts runs the crawls.
 */
import type { BenchEngine } from './bench-crawler.ts';

/** The target of issue 28: PostgreSQL's pages/s at least this share of SQLite's. */
export const ENGINE_RATIO_TARGET = 0.7;

/** One configuration part 2 crawls on: SQLite, or PostgreSQL with its cluster's fsync on or off. */
export type EngineSide = { engine: 'sqlite' } | { engine: 'postgres'; fsync: boolean };

/** A side's name in the table. */
export function sideLabel(side: EngineSide): string {
  return side.engine === 'sqlite' ? 'SQLite' : `PostgreSQL, fsync ${side.fsync ? 'on' : 'off'}`;
}

/** A bad --engine or --pg-fsync value, or PostgreSQL asked for and not installed; the message says what to do. */
export class EngineOptionError extends Error {
  override name = 'EngineOptionError';
}

/**
 * The engines of --engine (`sqlite`, `postgres`, or both comma-separated). Without the option: both when
 * PostgreSQL's binaries are installed (`postgresMissing` undefined), else SQLite alone with `note` saying why.
 */
export function parseEngines(
  value: string | undefined,
  postgresMissing: string | undefined,
): { engines: BenchEngine[]; note?: string } {
  if (value === undefined) {
    return postgresMissing === undefined
      ? { engines: ['sqlite', 'postgres'] }
      : {
          engines: ['sqlite'],
          note: `part 2 runs on SQLite alone: PostgreSQL's server binaries were not found (${postgresMissing})`,
        };
  }
  const names = value.split(',').map((s) => s.trim());
  const engines: BenchEngine[] = [];
  for (const n of names) {
    if (n !== 'sqlite' && n !== 'postgres')
      throw new EngineOptionError(
        `engine-compare: --engine takes sqlite, postgres or sqlite,postgres, not ${JSON.stringify(value)}`,
      );
    if (!engines.includes(n)) engines.push(n);
  }
  if (engines.includes('postgres') && postgresMissing !== undefined)
    throw new EngineOptionError(
      `engine-compare: --engine=${value} asks for PostgreSQL, which is not installed: ${postgresMissing}`,
    );
  return { engines };
}

/** The fsync settings of --pg-fsync (`off`, `on`, or `off,on`): false for off, true for on. */
export function parseFsync(value: string): boolean[] {
  const out: boolean[] = [];
  for (const v of value.split(',').map((s) => s.trim())) {
    if (v !== 'off' && v !== 'on')
      throw new EngineOptionError(`engine-compare: --pg-fsync takes off, on or off,on, not ${JSON.stringify(value)}`);
    if (!out.includes(v === 'on')) out.push(v === 'on');
  }
  return out;
}

/** Every side to crawl: SQLite first, then PostgreSQL once per fsync setting. */
export function engineSides(engines: readonly BenchEngine[], fsyncs: readonly boolean[]): EngineSide[] {
  const sides: EngineSide[] = [];
  if (engines.includes('sqlite')) sides.push({ engine: 'sqlite' });
  if (engines.includes('postgres')) for (const fsync of fsyncs) sides.push({ engine: 'postgres', fsync });
  return sides;
}

/**
 * The sides in the order round `round` (from 0) crawls them: as given in even rounds, reversed in odd ones, so
 * no engine always goes first (a machine whose load drifts during a run does not favour one engine).
 */
export function roundOrder<T>(sides: readonly T[], round: number): T[] {
  return round % 2 === 0 ? [...sides] : [...sides].reverse();
}

/** What one crawl of part 2 measured on one side. */
export interface EngineRun {
  side: EngineSide;
  round: number;
  pagesStored: number;
  expected: number;
  /** First page request's start (sites' logs) to the last page's `fetched_at`. */
  windowMs: number;
  /** 1-minute load average as the crawl started. */
  loadStart: number;
  /** CPU from adding the seeds to idle (ms); undefined where /proc was unreadable. */
  primaryMs: number | undefined;
  workersMs: number | undefined;
  /** The PostgreSQL cluster's processes over the same time (undefined on SQLite, or unreadable). */
  postgresMs: number | undefined;
}

/** Pages per second end to end; NaN for a crawl that stored fewer pages than it should have. */
export function pagesPerSec(r: EngineRun): number {
  return r.pagesStored < r.expected ? Number.NaN : (r.pagesStored * 1000) / r.windowMs;
}

/** CPU ms per stored page, or undefined. */
function perPage(ms: number | undefined, r: EngineRun): number | undefined {
  return ms === undefined ? undefined : ms / r.pagesStored;
}

/** Mean of the defined, finite values; undefined when there is none. */
function mean(values: Array<number | undefined>): number | undefined {
  const v = values.filter((x): x is number => x !== undefined && Number.isFinite(x));
  return v.length === 0 ? undefined : v.reduce((s, x) => s + x, 0) / v.length;
}

/** Per side, over its rounds: mean pages/s and mean CPU per page of each process group. */
export interface SideSummary {
  side: EngineSide;
  rounds: number;
  pagesPerSec: number | undefined;
  primaryMsPerPage: number | undefined;
  workersMsPerPage: number | undefined;
  postgresMsPerPage: number | undefined;
  /** This side's mean pages/s over SQLite's (undefined without a SQLite side). */
  ratio: number | undefined;
  /** Primary + workers + PostgreSQL server CPU per page: what a page costs the machine on this engine. */
  totalMsPerPage: number | undefined;
  /** SQLite's total CPU per page over this side's: the pages/s ratio a machine limited by CPU alone would give. */
  cpuRatio: number | undefined;
}

/** Primary + workers (+ the PostgreSQL server, on PostgreSQL) CPU per page; undefined where one is unknown. */
function totalPerPage(s: Omit<SideSummary, 'ratio' | 'totalMsPerPage' | 'cpuRatio'>): number | undefined {
  if (s.primaryMsPerPage === undefined || s.workersMsPerPage === undefined) return undefined;
  if (s.side.engine === 'postgres' && s.postgresMsPerPage === undefined) return undefined;
  return s.primaryMsPerPage + s.workersMsPerPage + (s.postgresMsPerPage ?? 0);
}

const same = (a: EngineSide, b: EngineSide) =>
  a.engine === b.engine && (a.engine === 'sqlite' || (b.engine === 'postgres' && a.fsync === b.fsync));

/** The summary of each side that has runs, in the order of `sides`. */
export function summarizeSides(sides: readonly EngineSide[], runs: readonly EngineRun[]): SideSummary[] {
  const base = (side: EngineSide): Omit<SideSummary, 'ratio' | 'totalMsPerPage' | 'cpuRatio'> => {
    const mine = runs.filter((r) => same(r.side, side));
    return {
      side,
      rounds: mine.length,
      pagesPerSec: mean(mine.map(pagesPerSec)),
      primaryMsPerPage: mean(mine.map((r) => perPage(r.primaryMs, r))),
      workersMsPerPage: mean(mine.map((r) => perPage(r.workersMs, r))),
      postgresMsPerPage: mean(mine.map((r) => perPage(r.postgresMs, r))),
    };
  };
  const all = sides.map(base).filter((s) => s.rounds > 0);
  const sqliteSide = all.find((s) => s.side.engine === 'sqlite');
  const sqlite = sqliteSide?.pagesPerSec;
  const sqliteTotal = sqliteSide === undefined ? undefined : totalPerPage(sqliteSide);
  return all.map((s) => {
    const total = totalPerPage(s);
    return {
      ...s,
      ratio: sqlite === undefined || s.pagesPerSec === undefined ? undefined : s.pagesPerSec / sqlite,
      totalMsPerPage: total,
      cpuRatio: sqliteTotal === undefined || total === undefined ? undefined : sqliteTotal / total,
    };
  });
}

const f1 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(1));
const f2 = (n: number | undefined) => (n === undefined || !Number.isFinite(n) ? 'n/a' : n.toFixed(2));
const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${f2(n)} ms`);

/** The ratio cell: the figure and the verdict against ENGINE_RATIO_TARGET (SQLite's own row has none). */
function ratioCell(s: SideSummary): string {
  if (s.side.engine === 'sqlite' || s.ratio === undefined) return s.side.engine === 'sqlite' ? '1' : 'n/a';
  return `**${f2(s.ratio)}** (${s.ratio >= ENGINE_RATIO_TARGET ? 'meets' : '**below**'} ≥ ${ENGINE_RATIO_TARGET})`;
}

/**
 * The side-by-side as markdown: a row per crawl (in the order they ran, with the load as each started), then the
 * mean of each side and its ratio to SQLite. `settings` describes the clusters; `note` says why a side is absent.
 */
export function engineSection(opts: {
  sides: readonly EngineSide[];
  runs: readonly EngineRun[];
  workers: number;
  settings: string;
  note?: string;
}): string[] {
  const { runs } = opts;
  const sqliteOf = (round: number) => runs.find((r) => r.round === round && r.side.engine === 'sqlite');
  const crawlRows = runs.map((r) => {
    const base = sqliteOf(r.round);
    const vs = r.side.engine === 'sqlite' || base === undefined ? '' : f2(pagesPerSec(r) / pagesPerSec(base));
    const missing = r.pagesStored < r.expected ? ` (only ${r.pagesStored} of ${r.expected} stored)` : '';
    return (
      `| ${r.round + 1} | ${sideLabel(r.side)} | ${f1(r.loadStart)} | ${f1(pagesPerSec(r))}${missing} | ${vs} | ` +
      `${ms(perPage(r.primaryMs, r))} | ${ms(perPage(r.workersMs, r))} | ${ms(perPage(r.postgresMs, r))} |`
    );
  });
  const summaries = summarizeSides(opts.sides, runs).map(
    (s) =>
      `| ${sideLabel(s.side)} | ${s.rounds} | **${f1(s.pagesPerSec)}** | ${ratioCell(s)} | ${ms(s.primaryMsPerPage)} | ` +
      `${ms(s.workersMsPerPage)} | ${ms(s.postgresMsPerPage)} | ${ms(s.totalMsPerPage)} | ${f2(s.cpuRatio)} |`,
  );
  return [
    '### 2b. Raw throughput on each storage engine',
    '',
    `Part 2's crawl (the same 50 sites × 30 pages, CRAWL_DELAY_MS=0, CRAWL_PACING_FACTOR=0, CRAWL_WORKERS=${opts.workers}, ` +
      'after the same warm-up) on each engine, a fresh crawler and a fresh database each time, the engines taking turns ' +
      '(each round in the reverse order of the one before). PostgreSQL runs on this machine, in a throwaway cluster ' +
      `started by the benchmark: ${opts.settings}.` +
      (opts.note === undefined ? '' : ` Note: ${opts.note}.`),
    '',
    '| side | rounds | pages/s (mean) | ÷ SQLite | primary CPU per page | workers CPU per page | PostgreSQL server CPU per page | total CPU per page | SQLite ÷ it: total CPU per page |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|',
    ...summaries,
    '',
    'Each crawl, in the order they ran (load: the 1-minute load average as it started, on 2 cores shared with other work):',
    '',
    '| round | side | load | pages/s | ÷ SQLite, same round | primary CPU per page | workers CPU per page | PostgreSQL server CPU per page |',
    '|---:|---|---:|---:|---:|---:|---:|---:|',
    ...crawlRows,
    '',
    "How it is measured: pages/s as part 2 (stored pages, counted through the engine, over the window from the first page request's start to the " +
      "last page's `fetched_at`). CPU from /proc, from adding the seeds to idle: the crawler primary, its workers, and on PostgreSQL " +
      "the cluster's processes (postmaster, backends, WAL writer and the ones it reaped), which do the storage work SQLite does inside the primary. " +
      "Total CPU per page is what a page costs the machine on each engine; SQLite's over another side's is the pages/s ratio a machine whose " +
      "only limit is CPU would give (on a loaded machine each process gets a share of the cores, and PostgreSQL's server is one process more " +
      'taking a share, which can flatter its pages/s). ' +
      "The benchmark polls the record for idle every 100 ms by a query the engine answers: SQLite's in the benchmark's own process, PostgreSQL's in the server (counted in its CPU).",
  ];
}
