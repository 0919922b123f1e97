/**
 * `npm run bench:crawl`: the crawler benchmark (not a test). Against generated loopback sites it
 * measures (1) politeness efficiency: violations and achieved pages/s over the politeness bound,
 * and (2) raw throughput at delay 0 beside the parse-only limit of the same pages on all cores, and
 * the other parts of a page's way measured alone (fetch and send, serve and receive, store), whose
 * sum bounds the ratio any crawler could reach on shared cores, and, side by side, crawlee's CheerioCrawler on the
 * same sites (its defaults, and held to one request in flight per host; crawlee-side.ts).
 * Prints the results and writes them to the crawl section of docs/benchmarks.md.
 *
 * Options: see USAGE (parsed by util.parseArgs; an unknown option or a bad value stops it with USAGE).
 */
import os from 'node:os';
import { DEFAULTS } from '../../shared/config.ts';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { startTestWeb, type RequestRecord } from '../../test-support/test-web.ts';
import { fetchSlots, overheadBreakdown, politenessEfficiency, summarize, type WorkerTiming } from './bench-metrics.ts';
import { benchPages, benchSite, pagesDigest, parseLikeWorker } from './bench-pages.ts';
import { CRAWL_MARKERS, ENGINE_MARKERS, machineInfo, REFRESH_MARKERS, writeSection } from './benchmarks-doc.ts';
import { groupPolitenessBench, type GroupBench } from './group-bench.ts';
import { refreshBench, refreshSection, type RefreshBench } from './refresh-bench.ts';
import { formatReport, type PolitenessBench, type ThroughputBench } from './bench-report.ts';
import { crawlSites, startWarmCrawler, workerTimings } from './crawl-session.ts';
import { postgresMissing } from './bench-postgres.ts';
import { engineBench } from './engine-bench.ts';
import {
  EngineOptionError,
  type EngineSide,
  engineSection,
  engineSides,
  parseEngines,
  parseFsync,
} from './engine-compare.ts';
import { measureFetchCost, type FetchCost } from './fetch-cost.ts';
import { measureParseLimit } from './parse-limit.ts';
import { measureStoreCost } from './store-cost.ts';
import { generatedDepth } from '../../test-support/generate.ts';
import { measureCrawlee, type CrawleeRun } from './crawlee-side.ts';

const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

/** Part 1: 20 sites × 50 pages, 4 workers, CRAWL_DELAY_MS=100. */
async function politenessBench(workers: number, pacingFactor: number): Promise<PolitenessBench> {
  const sites = 20;
  const pagesPerSite = 50;
  const delayMs = 100;
  const site = { pagesPerSite };
  const web = await startTestWeb(Array.from({ length: sites }, () => benchSite(site)));
  try {
    const warm = await startWarmCrawler({
      CRAWL_WORKERS: String(workers),
      CRAWL_DELAY_MS: String(delayMs),
      CRAWL_PACING_FACTOR: String(pacingFactor),
    });
    try {
      const { cpu, snapshots, connections } = await crawlSites(warm.crawler, web.sites, {
        pagesPerSite,
        alreadyDone: warm.warmPages,
        timeoutMs: 180_000,
        workers,
      });
      const efficiency = politenessEfficiency(
        web.sites.map((s) => ({ host: s.host, log: s.log })),
        delayMs,
      );
      const timed: Array<{ host: string; log: RequestRecord[]; timings: WorkerTiming[] }> = [];
      for (const s of web.sites)
        timed.push({ host: s.host, log: s.log, timings: await workerTimings(warm.crawler, s.origin) });
      const breakdown = overheadBreakdown(timed, delayMs);
      // A violation in a site's log is real only if the worker could have had the earlier body less than
      // the delay before the next request started: the worker's body end (ISO ms, so up to 1 ms early;
      // allow 1 ms more for clock differences between processes)
      // is after the true end of the response, so workerEnd + 2 + delay <= next.start rules it out.
      const violationWorkerLagMs = efficiency.violationList.map((v) => {
        const t = timed.find((x) => x.host === v.host)?.timings.find((x) => x.path === v.prev.path);
        return t === undefined ? undefined : t.endedAt - v.prev.end;
      });
      const unexplainedViolations = efficiency.violationList.filter((v, i) => {
        const lag = violationWorkerLagMs[i];
        return lag === undefined || v.prev.end + lag + 2 + delayMs > v.next.start;
      }).length;
      // The parse part of the round trip: the same small pages, parsed here one after another (warm).
      const pages = benchPages(
        web.sites.map((s) => s.origin),
        site,
      );
      for (const p of pages) parseLikeWorker(p);
      const times = pages.map((p) => {
        const t0 = performance.now();
        parseLikeWorker(p);
        return performance.now() - t0;
      });
      return {
        sites,
        pagesPerSite,
        workers,
        delayMs,
        pacingFactor,
        efficiency,
        violationWorkerLagMs,
        unexplainedViolations,
        breakdown,
        parseMs: summarize(times),
        cpu,
        snapshots,
        connections,
      };
    } finally {
      await warm.close();
    }
  } finally {
    await web.close();
  }
}

/**
 * Part 2: 50 sites of ~30 KB pages, delay 0, end to end vs the parse-only limit of the same pages; with
 * `crawlee`, crawlee's CheerioCrawler then crawls the same sites for the side-by-side.
 */
async function throughputBench(workers: number, crawlee: boolean): Promise<ThroughputBench> {
  const sites = 50;
  const pagesPerSite = 30;
  const site = { pagesPerSite, bodyBytes: 30_000 };
  const spec = benchSite(site);
  const web = await startTestWeb(Array.from({ length: sites }, () => spec));
  const origins = web.sites.map((s) => s.origin);
  let crawl: Omit<ThroughputBench, 'parse' | 'ratio' | 'parts' | 'crawlee'>;
  let fetchCost: FetchCost;
  const crawleeRuns: CrawleeRun[] = [];
  try {
    // Pacing off: raw speed, as measured before pacing existed (at its default it holds each host 5 x its response time).
    const warm = await startWarmCrawler({
      CRAWL_WORKERS: String(workers),
      CRAWL_DELAY_MS: '0',
      CRAWL_PACING_FACTOR: '0',
    });
    try {
      const { cpu, snapshots, connections } = await crawlSites(warm.crawler, web.sites, {
        pagesPerSite,
        alreadyDone: warm.warmPages,
        timeoutMs: 300_000,
        workers,
      });
      const stored = await warm.crawler.storedPages(origins);
      const pageRecords = web.sites.flatMap((s) => s.log.filter((r) => r.path !== '/robots.txt'));
      const firstPageStart = Math.min(...pageRecords.map((r) => r.start));
      const windowMs = stored.lastStoredAt - firstPageStart;
      const efficiency = politenessEfficiency(
        web.sites.map((s) => ({ host: s.host, log: s.log })),
        0,
      );
      crawl = {
        sites,
        pagesPerSite,
        workers,
        meanBodyBytes: benchPages(origins.slice(0, 1), site).reduce((s, p) => s + p.body.length, 0) / pagesPerSite,
        pagesStored: stored.count,
        pageRequests: pageRecords.length,
        windowMs,
        endToEndPerSec: (stored.count * 1000) / windowMs,
        meanResponseMs: efficiency.meanResponseMs,
        maxInFlightPerHost: efficiency.maxInFlight,
        cpu,
        snapshots,
        connections,
        lanternSide: {
          name: `Lantern, CRAWL_WORKERS=${workers} (the run above)`,
          pages: stored.count,
          expected: sites * pagesPerSite,
          pageRequests: pageRecords.length,
          windowMs,
          crawlerCpuMs:
            cpu.primaryMs !== undefined && cpu.workersMs !== undefined ? cpu.primaryMs + cpu.workersMs : undefined,
          testWebCpuMs: cpu.benchMs,
          maxInFlightPerHost: efficiency.maxInFlight,
          crawlerMaxInFlightPerHost: undefined,
          crawlerMaxInFlight: undefined,
          loadStart: cpu.loadStart,
        },
      };
    } finally {
      await warm.close();
    }
    // The parts alone, after the crawl (nothing else running): fetch and hand-over against the same sites ...
    fetchCost = await measureFetchCost({ origins, site, rounds: 2 });
    // ... and crawlee on the same sites, for the side-by-side (each crawl's own records of the sites' logs).
    if (crawlee) {
      for (const variant of ['default', 'one-per-host'] as const) {
        console.log(`crawl-bench: 2/3 side by side: crawlee CheerioCrawler (${variant}) on the same sites ...`);
        crawleeRuns.push(await measureCrawlee({ sites: web.sites, pagesPerSite, variant, timeoutMs: 300_000 }));
      }
    }
  } finally {
    await web.close();
  }
  // ... the primary's work on the same pages, parsed here beforehand ...
  const parsed = new Map(benchPages(origins, site).map((p) => [p.url, parseLikeWorker(p)!]));
  const store = await measureStoreCost({
    origins,
    parsed,
    depth: generatedDepth(pagesPerSite),
    slots: fetchSlots(workers),
  });
  // ... and the parse itself, on all cores.
  const parse = await measureParseLimit({
    origins,
    site,
    processes: os.availableParallelism(),
    durationMs: 4_000,
    expectDigest: pagesDigest(benchPages(origins, site)),
  });
  return {
    ...crawl,
    parse,
    ratio: crawl.endToEndPerSec / parse.pagesPerSec,
    parts: { fetch: fetchCost, store },
    crawlee: crawlee ? crawleeRuns : undefined,
  };
}

/**
 * Part 2 runs with the workers a crawl gets by default (shared/config.ts): measured on 2 cores, 2 workers
 * crawled the most pages per second; 4 cost 28 % more CPU per page on a quiet machine (5.54 against
 * 4.32 ms) and more under load; 1 cost about as little but crawled fewer pages per second (README's
 * CRAWL_WORKERS).
 */
const RAW_WORKERS = DEFAULTS.crawlWorkers();

/** The options (printed with an error about them). */
const USAGE = `Options: --raw-workers=N (CRAWL_WORKERS of part 2, default ${RAW_WORKERS}: CRAWL_WORKERS's own default
here) and --politeness-workers=N (of part 1, default 4: 16 fetch slots for its 20 hosts, as its figures have always
been taken), other values for experiments; --only=politeness|throughput|refresh, --no-write (print only),
--no-crawlee (part 2 without the side-by-side with crawlee's CheerioCrawler, about a minute shorter).
Part 2 on each storage engine (2b): --engine=sqlite,postgres (default: both when PostgreSQL's server binaries are
installed, else SQLite alone, said plainly), --pg-fsync=off,on (PostgreSQL's throwaway cluster with fsync off, as
the tests run it, and/or on, as a real server; default off,on), --rounds=N (crawls per side, default 2, the sides
taking turns; 0 skips 2b).
The crawl section is written after a full run; the engines section (2b) after any run of it that crawled on
PostgreSQL; the refresh section after any run that includes it.`;

/** The command line, checked: a bad option throws `crawl-bench: <what was wrong>` and USAGE. */
type Part = 'politeness' | 'throughput' | 'refresh';

function options(): {
  rawWorkers: number;
  politeWorkers: number;
  only: Part | undefined;
  write: boolean;
  crawlee: boolean;
  sides: EngineSide[];
  rounds: number;
  engineNote: string | undefined;
} {
  const bad = (why: string): Error => new Error(`crawl-bench: ${why}\n${USAGE}`);
  // biome-ignore lint/suspicious/noImplicitAnyLet: set in the try below; its type is the one inferred there
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        'raw-workers': { type: 'string', default: String(RAW_WORKERS) },
        'politeness-workers': { type: 'string', default: '4' },
        only: { type: 'string' },
        'no-write': { type: 'boolean', default: false },
        'no-crawlee': { type: 'boolean', default: false },
        engine: { type: 'string' },
        'pg-fsync': { type: 'string', default: 'off,on' },
        rounds: { type: 'string', default: '2' },
      },
    }));
  } catch (err) {
    if (err instanceof TypeError) throw bad(err.message); // ERR_PARSE_ARGS_*: unknown option, missing value
    throw err;
  }
  const workers = (name: 'raw-workers' | 'politeness-workers'): number => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1 || n > 64) throw bad(`--${name} must be an integer from 1 to 64`);
    return n;
  };
  const only = values.only;
  if (only !== undefined && only !== 'politeness' && only !== 'throughput' && only !== 'refresh')
    throw bad(`--only must be politeness, throughput or refresh, not ${JSON.stringify(only)}`);
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 0 || rounds > 20) throw bad('--rounds must be an integer from 0 to 20');
  let engines: ReturnType<typeof parseEngines>;
  let fsyncs: boolean[];
  try {
    engines = parseEngines(values.engine, postgresMissing());
    fsyncs = parseFsync(values['pg-fsync']);
  } catch (err) {
    throw err instanceof EngineOptionError ? bad(err.message) : err;
  }
  return {
    sides: engineSides(engines.engines, fsyncs),
    rounds,
    engineNote: engines.note,
    rawWorkers: workers('raw-workers'),
    politeWorkers: workers('politeness-workers'),
    only,
    write: !values['no-write'],
    crawlee: !values['no-crawlee'],
  };
}

async function main(): Promise<void> {
  const { rawWorkers, politeWorkers, only, write, crawlee, sides, rounds, engineNote } = options();
  const started = new Date();
  const machine = machineInfo();
  console.log(`crawl-bench: ${machine.cpu}, ${machine.cores} cores, ${machine.ramGiB} GiB RAM, Node ${machine.node}`);
  let p1: PolitenessBench | undefined;
  let p1b: GroupBench | undefined;
  let p2: ThroughputBench | undefined;
  let p3: RefreshBench | undefined;
  if (only === undefined || only === 'politeness') {
    console.log(
      `crawl-bench: 1/3 politeness efficiency (20 sites × 50 pages, ${politeWorkers} workers, CRAWL_DELAY_MS=100) ...`,
    );
    p1 = await politenessBench(politeWorkers, 0);
    console.log(
      `crawl-bench: 1/3 again with pacing at its default (CRAWL_PACING_FACTOR=${DEFAULTS.crawlPacingFactor}) ...`,
    );
    p1.paced = (await politenessBench(politeWorkers, DEFAULTS.crawlPacingFactor)).efficiency;
    console.log(
      `crawl-bench: 1b/3 politeness per domain group (5 domains × 4 names × 12 pages, ${politeWorkers} workers, CRAWL_DELAY_MS=100) ...`,
    );
    p1b = await groupPolitenessBench(politeWorkers);
  }
  if (only === undefined || only === 'throughput') {
    console.log(
      `crawl-bench: 2/3 raw throughput (50 sites × 30 pages of ~30 KB, ${rawWorkers} workers, CRAWL_DELAY_MS=0) ...`,
    );
    p2 = await throughputBench(rawWorkers, crawlee);
  }
  let engines: string | undefined;
  if ((only === undefined || only === 'throughput') && rounds > 0) {
    if (engineNote !== undefined) console.log(`crawl-bench: ${engineNote}`);
    console.log(
      `crawl-bench: 2b raw throughput on each engine (${sides.length} sides × ${rounds} rounds, ${rawWorkers} workers) ...`,
    );
    const { runs, settings } = await engineBench({ sides, rounds, workers: rawWorkers });
    const body = engineSection({ sides, runs, workers: rawWorkers, settings, note: engineNote }).join('\n');
    if (sides.some((s) => s.engine === 'postgres'))
      engines = [
        '## Crawl: SQLite and PostgreSQL side by side',
        '',
        `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:crawl\` (part 2b; \`--only=throughput\` runs it with part 2) on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}.`,
        '',
        body,
      ].join('\n');
    else console.log(`\n${body}`);
  }
  if (only === undefined || only === 'refresh') {
    console.log(
      'crawl-bench: 3/3 refresh cost (a 500-page site, 10 refreshes, unchanged and 5 % changing; about 2 minutes) ...',
    );
    p3 = await refreshBench();
  }
  const report = formatReport({ date: started, machine, politeness: p1, groups: p1b, throughput: p2 });
  console.log(`\n${report}`);
  const refresh = p3
    ? [
        '## Refresh cost',
        '',
        `Measured ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run bench:crawl\` (part 3; \`--only=refresh\` alone) on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}.`,
        '',
        ...refreshSection(p3, '### 3. Refreshes: requests and freshness'),
      ].join('\n') + '\n'
    : undefined;
  if (refresh) console.log(`\n${refresh}`);
  if (engines) console.log(`\n${engines}`);
  if (write && p1 && p2) {
    writeSection(DOC, CRAWL_MARKERS, report);
    console.log(`crawl-bench: wrote the crawl section of ${DOC}`);
  } else {
    console.log('crawl-bench: the crawl section of docs/benchmarks.md not written (partial run or --no-write)');
  }
  if (write && engines) {
    writeSection(DOC, ENGINE_MARKERS, engines);
    console.log(`crawl-bench: wrote the engines section of ${DOC}`);
  }
  if (write && refresh) {
    writeSection(DOC, REFRESH_MARKERS, refresh);
    console.log(`crawl-bench: wrote the refresh section of ${DOC}`);
  }
}

await main();
