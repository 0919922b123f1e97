/**
 * The crawl benchmark's results as markdown: printed to the console and written as the crawl
 * section of docs/benchmarks.md. Pure: formats what it is given.
 */
import {
  fetchSlots,
  pipelineCeiling,
  type EfficiencyResult,
  type PartCosts,
  type OverheadBreakdown,
  type Summary,
} from './bench-metrics.ts';
import type { FetchCost } from './fetch-cost.ts';
import type { StoreCost } from './store-cost.ts';
import type { MachineInfo } from './benchmarks-doc.ts';
import type { CpuSplit, SnapshotStats } from './crawl-session.ts';
import type { ParseLimit } from './parse-limit.ts';
import { FETCH_DEFAULTS } from '../../crawler/fetch/fetcher.ts';
import { groupSection, type GroupBench } from './group-bench.ts';
import { sideBySideNote, sideBySideRows, sideBySideSection, type SideRun } from './side-by-side.ts';
import type { CrawleeRun } from './crawlee-side.ts';

/** Results of part 1 (politeness efficiency). */
export interface PolitenessBench {
  sites: number;
  pagesPerSite: number;
  workers: number;
  delayMs: number;
  /** CRAWL_PACING_FACTOR of this run (0: the configured delay alone, so the figure measures the scheduler against it). */
  pacingFactor: number;
  efficiency: EfficiencyResult;
  /** The same crawl with pacing at its default factor, if it was run. */
  paced?: EfficiencyResult;
  /** Per violation sample: worker's body end minus the end the site logged (ms), if the worker's timing was found. */
  violationWorkerLagMs: Array<number | undefined>;
  /** Violations that the worker's own timing does not rule out (see crawl-bench.ts). */
  unexplainedViolations: number;
  breakdown: OverheadBreakdown;
  /** processPage time of the same pages in one warm process (ms per page). */
  parseMs: Summary;
  cpu: CpuSplit;
  snapshots: SnapshotStats;
  /** TCP connections the sites accepted during the crawl (undefined if not countable). */
  connections: number | undefined;
}

/** Results of part 2 (raw throughput). */
export interface ThroughputBench {
  sites: number;
  pagesPerSite: number;
  workers: number;
  meanBodyBytes: number;
  pagesStored: number;
  pageRequests: number;
  /** First page request start (site logs) → last page stored (pages.fetched_at). */
  windowMs: number;
  endToEndPerSec: number;
  meanResponseMs: number;
  maxInFlightPerHost: number;
  cpu: CpuSplit;
  snapshots: SnapshotStats;
  connections: number | undefined;
  parse: ParseLimit;
  ratio: number;
  /** The other parts of a page's way, each measured alone. */
  parts: { fetch: FetchCost; store: StoreCost };
  /** This crawl's figures for the side-by-side. */
  lanternSide: SideRun;
  /** crawlee's CheerioCrawler on the same sites (undefined: not run, --no-crawlee). */
  crawlee?: CrawleeRun[];
}

export const EFFICIENCY_TARGET = 0.9;

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : String(n));
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : String(n));
const verdict = (value: number, target: number) =>
  value >= target ? `meets the target (≥ ${target})` : `**below the target** (≥ ${target})`;

function row(label: string, s: Summary): string {
  return `| ${label} | ${f1(s.min)} | ${f1(s.mean)} | ${f1(s.p50)} | ${f1(s.p95)} | ${f1(s.max)} |`;
}

function cpuLine(cpu: CpuSplit, cores: number): string {
  const pct = (ms: number | undefined) =>
    ms === undefined ? 'n/a' : `${Math.round((ms / (cpu.wallMs * cores)) * 100)} %`;
  const ours =
    cpu.primaryMs !== undefined && cpu.workersMs !== undefined
      ? cpu.benchMs + cpu.primaryMs + cpu.workersMs
      : undefined;
  const others =
    ours !== undefined && cpu.machineBusyMs !== undefined && cpu.machineTotalMs !== undefined
      ? `${Math.round(((cpu.machineBusyMs - ours) / cpu.machineTotalMs) * 100)} %`
      : 'n/a';
  const busy =
    cpu.machineBusyMs !== undefined && cpu.machineTotalMs
      ? `${Math.round((cpu.machineBusyMs / cpu.machineTotalMs) * 100)} %`
      : 'n/a';
  return (
    `CPU from adding the seeds to idle (${f1(cpu.wallMs / 1000)} s), as a share of all ${cores} cores: ` +
    `benchmark process (test web) ${pct(cpu.benchMs)}, primary ${pct(cpu.primaryMs)}, workers ${pct(cpu.workersMs)}; ours ${pct(ours)}; ` +
    `other processes on the machine (and steal) ${others}; the machine was ${busy} busy; load average ${f1(cpu.loadStart)} → ${f1(cpu.loadEnd)}.`
  );
}

/** CPU ms per page of each process group, and their sum (undefined where /proc was unavailable). */
export function cpuPerPage(
  cpu: CpuSplit,
  pages: number,
): { bench: number; primary?: number; workers?: number; total?: number } {
  const per = (ms: number | undefined) => (ms === undefined ? undefined : ms / pages);
  const total =
    cpu.primaryMs !== undefined && cpu.workersMs !== undefined
      ? (cpu.benchMs + cpu.primaryMs + cpu.workersMs) / pages
      : undefined;
  return { bench: cpu.benchMs / pages, primary: per(cpu.primaryMs), workers: per(cpu.workersMs), total };
}

const ms = (n: number | undefined) => (n === undefined ? 'n/a' : `${f2(n)} ms`);

function connectionsLine(connections: number | undefined, requests: number, sites: number, workers: number): string {
  if (connections === undefined) return 'TCP connections: not countable.';
  return (
    `TCP connections the sites accepted: ${connections} for ${requests} requests (${f2(connections / requests)} per request; ` +
    `${sites} sites × ${workers} workers = ${sites * workers} would do if every worker kept one connection to every site).`
  );
}

/** One sentence on what set the pace: the worker pool, the host clocks, or a machine busy with other work. */
function readingLine(s: SnapshotStats, cpu: CpuSplit): string {
  const pool =
    s.allBusyShare >= 0.8
      ? 'every fetch slot was busy in most samples while hosts were due, so the worker pool, not the host clocks, set the pace'
      : "fetch slots were often idle, so the host clocks and the primary's dispatch set the pace";
  const ours =
    cpu.primaryMs !== undefined && cpu.workersMs !== undefined
      ? cpu.benchMs + cpu.primaryMs + cpu.workersMs
      : undefined;
  const saturated =
    cpu.machineBusyMs !== undefined &&
    cpu.machineTotalMs &&
    ours !== undefined &&
    cpu.machineBusyMs / cpu.machineTotalMs >= 0.9
      ? `; the machine was saturated and this crawl got only ${Math.round((ours / cpu.machineTotalMs) * 100)} % of its CPU, so a job held a worker far longer than its own CPU work`
      : '';
  return `Reading: ${pool}${saturated}.`;
}

function snapshotLine(s: SnapshotStats, workers: number, ratePerSec: number): string {
  const serviceMs = (s.meanInFlight / ratePerSec) * 1000;
  const slots = fetchSlots(workers);
  return (
    `The primary's own snapshots (${s.samples}, every 0.5 s): on average ${f2(s.meanInFlight)} of ${slots} fetch slots busy ` +
    `(${workers} workers × ${FETCH_DEFAULTS.fetchesPerWorker}; all busy in ${Math.round(s.allBusyShare * 100)} % of samples) and ${f2(s.meanDueWaiting)} hosts due but waiting for a slot; ` +
    `by Little's law a job holds its slot for about ${f1(serviceMs)} ms (busy slots / rate).`
  );
}

function politenessSection(p: PolitenessBench, cores: number): string[] {
  const e = p.efficiency;
  const hostEff = e.perHost.map((h) => h.efficiency).sort((a, b) => a - b);
  const b = p.breakdown;
  return [
    '### 1. Politeness efficiency',
    '',
    `${p.sites} sites × ${p.pagesPerSite} pages (generated, ~2 KB each), robots.txt allows all, ` +
      `CRAWL_WORKERS=${p.workers}, CRAWL_DELAY_MS=${p.delayMs}, CRAWL_PACING_FACTOR=${p.pacingFactor}. The cluster first crawls 8 throw-away sites, so worker start-up is over.`,
    '',
    'Pacing is off here so that the figure measures the scheduler against the configured delay, as before pacing existed; ' +
      'the same crawl with pacing at its default is the last row. On loopback the response time a worker measures is mostly its own ' +
      'wait for a CPU (4 workers, the sites and the primary share 2 cores), tens of milliseconds under this load, and 5 × that is above a ' +
      '100 ms delay; at the default CRAWL_DELAY_MS=1000 pacing takes over only for answers slower than 200 ms.',
    '',
    '| | |',
    '|---|---|',
    `| Politeness violations (from the sites' own logs, robots.txt included) | **${e.violations}** (most in flight per host: ${e.maxInFlight}; smallest gap: ${f1(e.minGapMs)} ms) |`,
    ...(e.violations > 0
      ? [
          `| … of which not ruled out by the worker's own timing | **${p.unexplainedViolations}** (the others: the site logged the end of the earlier response late, after the worker already had its whole body; see below) |`,
        ]
      : []),
    ...e.violationList.slice(0, 5).map((v, i) => {
      const lag = p.violationWorkerLagMs[i];
      return (
        `| … violation on ${v.host} | ${v.prev.path} (${f1(v.prev.end - v.prev.start)} ms${v.prev.aborted ? ', aborted' : ''}) ` +
        `ended, ${v.next.path} started ${f1(v.gapMs)} ms later` +
        (lag === undefined
          ? ''
          : `; the worker had the whole body ${f1(Math.abs(lag))} ms ${lag < 0 ? 'before' : 'after'} the end the site logged`) +
        ' |'
      );
    }),
    `| Requests | ${e.pages} pages + ${e.robots} robots.txt |`,
    `| Mean response time (site logs) | ${f2(e.meanResponseMs)} ms |`,
    `| Bound Σ over hosts 1 / (delay + mean response time) | ${f1(e.boundPerSec)} pages/s |`,
    `| Achieved | ${f1(e.achievedPerSec)} pages/s (${e.pages} pages in ${f2(e.windowMs / 1000)} s) |`,
    `| **Efficiency** | **${f2(e.efficiency)}**: ${verdict(e.efficiency, EFFICIENCY_TARGET)} |`,
    `| Per-host efficiency (min / median / max) | ${f2(hostEff[0])} / ${f2(hostEff[Math.floor(hostEff.length / 2)])} / ${f2(hostEff[hostEff.length - 1])} |`,
    ...(p.paced
      ? [
          `| The same crawl with pacing at its default factor | ${p.paced.violations} violations; ${f1(p.paced.achievedPerSec)} pages/s, ` +
            `${f2(p.paced.efficiency)} of the bound above (the pacing held the hosts longer than the delay) |`,
        ]
      : []),
    '',
    ...(e.violations > 0
      ? [
          'About the violations: a site logs the end of a response when Node emits `finish` for it, which runs after the ' +
            'bytes were written; when the benchmark process is kept off the CPU in between, the logged end is late and the ' +
            'gap looks shorter than it was. The worker stamps the moment it had the whole body (necessarily after the true ' +
            'end); a violation is ruled out when that moment, plus 2 ms (its 1 ms resolution and clock differences between processes), plus the delay, is still before ' +
            'the next request started.',
          '',
        ]
      : []),
    "How it is measured: achieved = page requests / window, where the window runs from the first page request's start to " +
      "the last page request's end plus one delay, over all sites, in the sites' own logs (each page occupies its host for " +
      'its response time and the delay after it, so a perfect crawl scores 1); the robots.txt fetches and worker start-up ' +
      'come before it. Per host: (pages − 1) / (last page start − first page start), times (delay + its mean response time).',
    '',
    `Where the time between two page requests of a host goes beyond the ${p.delayMs} ms delay (ms; ${b.pairs} pairs matched with the primary's worker-side timings, which have 1 ms resolution):`,
    '',
    '| | min | mean | p50 | p95 | max |',
    '|---|---|---|---|---|---|',
    row('gap − delay (site log)', e.overheadMs),
    row('… site sent the last byte → worker has the body', b.receiveMs),
    row('… worker parses and reports → primary waits the delay, dispatches → worker starts', b.primaryRoundTripMs),
    row('… worker starts the request → site sees it', b.sendMs),
    row('processPage of these pages (one warm process)', p.parseMs),
    row("gap − delay after '/' (its links are queued by the next flush)", e.afterRootOverheadMs),
    row('gap − delay after robots.txt', e.afterRobotsOverheadMs),
    '',
    snapshotLine(p.snapshots, p.workers, e.achievedPerSec),
    '',
    readingLine(p.snapshots, p.cpu),
    '',
    connectionsLine(p.connections, e.pages + e.robots, p.sites, p.workers),
    '',
    cpuLine(p.cpu, cores),
    '',
    (() => {
      const c = cpuPerPage(p.cpu, e.pages);
      const need = c.total === undefined ? 'n/a' : f2((e.boundPerSec * c.total) / 1000);
      return (
        `CPU per page (robots.txt and the idle tail included): test web ${ms(c.bench)}, primary ${ms(c.primary)}, ` +
        `workers ${ms(c.workers)}, total ${ms(c.total)}. Running at the bound (${f1(e.boundPerSec)} pages/s) takes about ` +
        `${need} cores of CPU out of ${cores}.`
      );
    })(),
  ];
}

/** CPU per page of each part of a page's way, as part 2 measured them alone. */
function partCosts(t: ThroughputBench): PartCosts {
  return {
    parse: t.parse.cpuMsPerPage,
    fetchSend: t.parts.fetch.fetchSendMs,
    serveReceive: t.parts.fetch.serveReceiveMs,
    store: t.parts.store.cpuMsPerPage,
  };
}

/**
 * The throughput ratio read against the parts' own ceiling (pipelineCeiling: parse / the sum of the parts,
 * the most any crawler could reach on shared cores), not against a fixed target: what share of the reachable
 * the crawl reached.
 */
export function ratioReading(ratio: number, ceiling: number): string {
  return `**${f2(ratio)}** of the parse-only limit: ${f2(ratio / ceiling)} of the ${f2(ceiling)} the parts alone allow (see "The parts alone" below)`;
}

function throughputSection(t: ThroughputBench, cores: number): string[] {
  const ceiling = pipelineCeiling(partCosts(t));
  return [
    '### 2. Raw throughput',
    '',
    `${t.sites} sites × ${t.pagesPerSite} pages of ${f1(t.meanBodyBytes / 1000)} KB, CRAWL_DELAY_MS=0, CRAWL_PACING_FACTOR=0, CRAWL_WORKERS=${t.workers} ` +
      '(still one request in flight per host; no pacing, so the figure is the raw speed, as before pacing existed), after the same warm-up.',
    '',
    '| | |',
    '|---|---|',
    `| End to end (fetched, parsed, stored) | **${f1(t.endToEndPerSec)} pages/s** (${t.pagesStored} pages stored in ${f2(t.windowMs / 1000)} s; ${t.pageRequests} page requests; mean response ${f2(t.meanResponseMs)} ms; most in flight per host ${t.maxInFlightPerHost}) |`,
    `| Parse-only limit (processPage, ${t.parse.processes} processes, no network, no storage) | **${f1(t.parse.pagesPerSec)} pages/s** (${f2(t.parse.msPerPage)} ms per page per process, over ${f1(t.parse.durationMs / 1000)} s) |`,
    `| **Ratio** | ${ratioReading(t.ratio, ceiling.ratio)} |`,
    '',
    "End to end is measured from the first page request's start (sites' logs) to the moment the last page was written " +
      '(its `fetched_at`); stored pages over that window. The parse-only limit runs after the crawl, alone, on the same ' +
      'pages (checked by digest), each process parsing its share round and round until a common deadline.',
    '',
    snapshotLine(t.snapshots, t.workers, t.endToEndPerSec),
    '',
    readingLine(t.snapshots, t.cpu),
    '',
    connectionsLine(t.connections, t.pageRequests + t.sites, t.sites, t.workers),
    '',
    cpuLine(t.cpu, cores),
    '',
    (() => {
      const c = cpuPerPage(t.cpu, t.pagesStored);
      const p = t.parse.cpuMsPerPage;
      const crawler = c.primary !== undefined && c.workers !== undefined ? c.primary + c.workers : undefined;
      return (
        `CPU per page: end to end ${ms(c.total)} (test web ${ms(c.bench)}, primary ${ms(c.primary)}, workers ${ms(c.workers)}); ` +
        `parse only ${ms(p)} (the parse processes were on a core ${Math.round(t.parse.onCpuShare * 100)} % of their window). ` +
        `Ratio of CPU costs, the throughput ratio a machine of our own would allow if CPU were the only limit: ` +
        `${c.total === undefined ? 'n/a' : f2(p / c.total)} with the test web, ${crawler === undefined ? 'n/a' : f2(p / crawler)} without it.`
      );
    })(),
    '',
    ...partsSection(t, cores),
    ...(t.crawlee
      ? ['', ...sideBySideSection(sideBySideRows(t.lanternSide, t.crawlee), sideBySideNote(t.crawlee))]
      : []),
  ];
}

/** The parts of a page's way measured alone, their sum, and the ratio that sum allows. */
function partsSection(t: ThroughputBench, cores: number): string[] {
  const { fetch, store } = t.parts;
  const costs = partCosts(t);
  const ceiling = pipelineCeiling(costs);
  const total = cpuPerPage(t.cpu, t.pagesStored).total;
  return [
    '#### The parts alone, and the ratio they allow',
    '',
    "After the crawl, each part of a page's way ran alone on the same pages (CPU time per page; nothing else running):",
    '',
    '| part | measured as | CPU per page |',
    '|---|---|---:|',
    `| parse | the parse-only limit above | ${ms(costs.parse)} |`,
    `| fetch and send | one process fetching every page ${fetch.pages / (t.sites * t.pagesPerSite)} times through the worker's fetch code (${FETCH_DEFAULTS.fetchesPerWorker} at once), sending each result over IPC as a worker does | ${ms(costs.fetchSend)} |`,
    `| serve and receive | the test web serving those requests and this process receiving the results | ${ms(costs.serveReceive)} |`,
    `| store | the real Coordinator on a fresh SQLite file, driven by hand with the parsed pages: ${store.pagesStored} pages, ${store.flushes} write transactions plus one per hand-out | ${ms(costs.store)} |`,
    `| **sum** | | **${ms(ceiling.sum)}** |`,
    '',
    `A page therefore costs at least ${ms(ceiling.sum)} of CPU end to end, against ${ms(costs.parse)} to parse it. With the sites on these cores, ` +
      `as here, no crawler could exceed **${f2(ceiling.ratio)}** of the parse-only limit on any number of cores, even with no contention, ` +
      `no waiting and no overhead beyond the parts (${f2(ceiling.sitesElsewhere)} with the sites on other machines). ` +
      (total === undefined
        ? ''
        : `The crawl spent ${ms(total)} per page: ${ms(total - ceiling.sum)} more than the parts, the cost of ` +
          `running them together (${t.workers + 2} processes — sites, primary, workers — taking turns on ${cores} cores, colder caches, the hand-out messages, the timers).`),
  ];
}

/** The crawl section: date, machine, both parts (whichever were run). */
export function formatReport(r: {
  date: Date;
  machine: MachineInfo;
  politeness?: PolitenessBench;
  groups?: GroupBench;
  throughput?: ThroughputBench;
}): string {
  const m = r.machine;
  const lines = [
    '## Crawl',
    '',
    `Measured ${r.date.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:crawl\` on ${m.cpu}, ${m.cores} cores, ` +
      `${m.ramGiB} GiB RAM, Node ${m.node}, ${m.platform}.`,
    '',
    `The loopback sites run inside the benchmark process, so on this ${m.cores}-core machine the sites, the crawler primary ` +
      "and its workers all share the same cores (and other people's work may share them too): the figures are a floor, not a ceiling.",
    '',
  ];
  if (r.politeness) lines.push(...politenessSection(r.politeness, m.cores), '');
  if (r.groups) lines.push(...groupSection(r.groups), '');
  if (r.throughput) lines.push(...throughputSection(r.throughput, m.cores), '');
  return lines.join('\n').trimEnd() + '\n';
}
