/**
 * The side-by-side of bench:crawl part 2: Lantern's raw-throughput crawl beside crawlee's CheerioCrawler
 * on the same sites. Pure: the figures of a crawl from the sites' own request logs, and the table.
 */
import { isPageRequest, politenessEfficiency, type HostLog } from './bench-metrics.ts';
import type { CrawleeRun } from './crawlee-side.ts';

/** One crawler's figures on the side-by-side's sites. */
export interface SideRun {
  /** Row label, e.g. 'Lantern (2 workers)'. */
  name: string;
  /** Pages crawled (Lantern: stored; crawlee: request handler run). */
  pages: number;
  /** Pages the sites hold: a run with fewer is incomplete and gets no rate. */
  expected: number;
  /** Page requests in the sites' logs (robots.txt left out). */
  pageRequests: number;
  /** First page request's start (sites' logs) → last page crawled. */
  windowMs: number;
  /** The crawler's processes' CPU over the crawl (ms), undefined where it could not be read. */
  crawlerCpuMs: number | undefined;
  /** The test web's (the benchmark process's) CPU over the crawl (ms). */
  testWebCpuMs: number;
  /** Most requests one host had in flight at once (sites' logs). */
  maxInFlightPerHost: number;
  /**
   * The crawler's own count of requests in flight (sent → body parsed): the most for one host and over all hosts;
   * undefined where the crawler does not count them this way. On loopback the sites' logs cannot show overlap well:
   * the single-threaded test web serves each request in one go.
   */
  crawlerMaxInFlightPerHost: number | undefined;
  crawlerMaxInFlight: number | undefined;
  /** 1-minute load average when the crawl started. */
  loadStart: number;
}

/** A crawl's page requests, window (first page request's start → `lastCrawledAt`) and most in flight per host, from the sites' logs of that crawl alone. */
export function crawlWindow(
  hosts: readonly HostLog[],
  lastCrawledAt: number,
): { pageRequests: number; windowMs: number; maxInFlightPerHost: number; meanResponseMs: number } {
  const starts = hosts.flatMap((h) => h.log.filter(isPageRequest).map((r) => r.start));
  const first = starts.length === 0 ? Number.NaN : Math.min(...starts);
  const e = politenessEfficiency(hosts, 0);
  return {
    pageRequests: starts.length,
    windowMs: lastCrawledAt - first,
    maxInFlightPerHost: e.maxInFlight,
    meanResponseMs: e.meanResponseMs,
  };
}

/** A run's rate and CPU per page, and Lantern's lead over it (undefined where a figure is missing). */
export interface SideRow {
  run: SideRun;
  complete: boolean;
  /** Pages per second over the window; undefined for an incomplete run. */
  pagesPerSec: number | undefined;
  crawlerCpuMsPerPage: number | undefined;
  testWebCpuMsPerPage: number;
  /** Lantern's pages/s over this run's (1 for Lantern itself). */
  speedRatio: number | undefined;
  /** This run's crawler CPU per page over Lantern's (how many times more CPU a page cost it). */
  cpuRatio: number | undefined;
}

/** The rows of the table: Lantern first, then each other run measured against it. */
export function sideBySideRows(lantern: SideRun, others: readonly SideRun[]): SideRow[] {
  const figures = (run: SideRun) => {
    const complete = run.pages >= run.expected;
    return {
      run,
      complete,
      pagesPerSec: complete && run.windowMs > 0 ? (run.pages * 1000) / run.windowMs : undefined,
      crawlerCpuMsPerPage: run.crawlerCpuMs === undefined || run.pages === 0 ? undefined : run.crawlerCpuMs / run.pages,
      testWebCpuMsPerPage: run.pages === 0 ? Number.NaN : run.testWebCpuMs / run.pages,
    };
  };
  const base = figures(lantern);
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined || b === 0 ? undefined : a / b;
  return [lantern, ...others].map((run) => {
    const f = run === lantern ? base : figures(run);
    return {
      ...f,
      speedRatio: ratio(base.pagesPerSec, f.pagesPerSec),
      cpuRatio: ratio(f.crawlerCpuMsPerPage, base.crawlerCpuMsPerPage),
    };
  });
}

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : String(n));
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : String(n));
const opt = (n: number | undefined, fmt: (x: number) => string) => (n === undefined ? 'n/a' : fmt(n));

/** The side-by-side table and how it was measured, as markdown lines. */
export function sideBySideSection(rows: readonly SideRow[], note: string): string[] {
  return [
    '#### Side by side: crawlee',
    '',
    "| crawler | pages/s | crawler CPU per page | test web CPU per page | most in flight per host: sites' logs / crawler's count | most in flight, all hosts: crawler's count | Lantern ÷ it: pages/s | it ÷ Lantern: CPU per page | load at start |",
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const rate = r.complete
        ? `**${opt(r.pagesPerSec, f1)}**`
        : `incomplete: ${r.run.pages} of ${r.run.expected} pages`;
      return (
        `| ${r.run.name} | ${rate} | ${opt(r.crawlerCpuMsPerPage, (x) => `${f2(x)} ms`)} | ${f2(r.testWebCpuMsPerPage)} ms | ` +
        `${r.run.maxInFlightPerHost} / ${opt(r.run.crawlerMaxInFlightPerHost, String)} | ${opt(r.run.crawlerMaxInFlight, String)} | ${opt(r.speedRatio, (x) => `${f2(x)}×`)} | ${opt(r.cpuRatio, (x) => `${f2(x)}×`)} | ${f1(r.run.loadStart)} |`
      );
    }),
    '',
    note,
  ];
}

/** How the crawlee rows were measured, and what each crawl showed beyond the table. */
export function sideBySideNote(runs: readonly CrawleeRun[]): string {
  const version = runs[0]?.version ?? 'n/a';
  const each = runs
    .map(
      (r) =>
        `${r.variant}: ${r.pageRequests} page requests for ${r.pages} pages, ${r.failed} failed` +
        `${r.firstError ? ` (first: ${r.firstError})` : ''}, mean response ${f2(r.meanResponseMs)} ms, CPU from ${r.cpuSource}`,
    )
    .join('; ');
  return (
    `How it is measured: @crawlee/cheerio ${version} (a devDependency; only bench/ imports it), a plain CheerioCrawler in a ` +
    "child process of its own, after a warm-up crawl of 8 throw-away sites of 4 pages as Lantern's; from each site's root, " +
    "enqueueLinks of same-origin links; its request handler takes the title and the body's text. Storage: MemoryStorage " +
    'with persistStorage off (its directory is checked to stay empty). crawlee does not fetch robots.txt (respectRobotsTxtFile ' +
    "is off by default). Pages/s: pages crawled over the window from the first page request's start (sites' logs) to the " +
    "last request handler's end (Lantern: the last page stored); a run short of every page is incomplete and gets no rate. " +
    "Crawler CPU: crawlee's process (its threads and the `ps` it runs to read memory) over crawler.run(); Lantern's primary " +
    'and workers from adding the seeds to idle. Test web: the benchmark process over the same time. Held to one request in ' +
    'flight per host: crawlee has no setting for it (maxConcurrency bounds the whole crawler; sameDomainDelaySecs spaces request ' +
    'starts per registrable domain, none for 127.x addresses, without waiting for the response), so a subclass takes the host in delayRequest (the hook ' +
    'sameDomainDelaySecs uses) and frees it when the task ends, putting back one request of that host parked meanwhile; the ' +
    "sites' logs give the most in flight, but on loopback the single-threaded test web serves each request in one go, so " +
    "they can hardly show an overlap: crawlee's own count (from just before a request is sent, in preNavigationHooks, to " +
    'the start of its handler, after the body is parsed: an upper bound) is the evidence. Lantern has no such count: its ' +
    "primary hands a host to one fetch at a time (its politeness tests) out of its workers' fetch slots (the snapshots " +
    "above). crawlee's default concurrency is autoscaled from 1 while its snapshots find CPU and memory free: the " +
    `"all hosts" column shows what it reached. ${each}.`
  );
}
