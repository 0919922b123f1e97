/**
 * Pure figures for the crawl benchmark, computed from the test sites' own request logs (and, for
 * the breakdown, from the worker-side timings the primary keeps): politeness violations, the
 * achieved rate against the politeness bound, and where the time between two requests to a host
 * goes. No I/O, no clock: everything comes in as arguments.
 */
import { politenessReport } from '../../test-support/politeness.ts';
import type { RequestRecord } from '../../test-support/test-web.ts';
import { FETCH_DEFAULTS } from '../../crawler/fetch/fetcher.ts';

/** The fetch slots of a crawl with `workers` workers (each runs FETCH_DEFAULTS.fetchesPerWorker fetches at once). */
export function fetchSlots(workers: number): number {
  return workers * FETCH_DEFAULTS.fetchesPerWorker;
}

/** One site's log, named by its host. */
export interface HostLog {
  host: string;
  log: readonly RequestRecord[];
}

/** Mean, median, 95th percentile and extremes of a sample (NaN when empty). */
export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  min: number;
  max: number;
}

/** Summarizes a sample; percentiles are nearest-rank on the sorted values. */
export function summarize(values: readonly number[]): Summary {
  if (values.length === 0) return { n: 0, mean: NaN, p50: NaN, p95: NaN, min: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
  return {
    n: sorted.length,
    mean: sorted.reduce((s, v) => s + v, 0) / sorted.length,
    p50: rank(0.5),
    p95: rank(0.95),
    min: sorted[0],
    max: sorted[sorted.length - 1],
  };
}

/** Whether a record is a page request (anything but robots.txt). */
export function isPageRequest(r: RequestRecord): boolean {
  return r.path !== '/robots.txt';
}

/** Per-host figures of the politeness run. */
export interface HostEfficiency {
  host: string;
  pages: number;
  meanResponseMs: number;
  /** (pages - 1) / (last page start - first page start): the host's own steady rate, pages/s. */
  ratePerSec: number;
  /** 1 / (delay + mean response time), pages/s. */
  boundPerSec: number;
  efficiency: number;
}

/** What `politenessEfficiency` found. */
export interface EfficiencyResult {
  delayMs: number;
  hosts: number;
  pages: number;
  robots: number;
  /** Violations of the politeness rule (overlap or gap below delayMs) over every request, robots included. */
  violations: number;
  /** Every violation, with its host. */
  violationList: Array<{ host: string; prev: RequestRecord; next: RequestRecord; gapMs: number }>;
  maxInFlight: number;
  minGapMs: number;
  /** First page request start, and last page request end plus the delay, over all hosts (ms, wall clock). */
  windowStart: number;
  windowEnd: number;
  windowMs: number;
  /** Mean response time (end - start in the site's log) over all page requests. */
  meanResponseMs: number;
  /** pages / window, pages/s. */
  achievedPerSec: number;
  /** Σ over hosts of 1 / (delay + that host's mean page response time), pages/s. */
  boundPerSec: number;
  efficiency: number;
  perHost: HostEfficiency[];
  /** Gap between consecutive page requests of a host minus the delay: the time the crawler adds. */
  overheadMs: Summary;
  /** The same for the gap from the root page to the next page (links found on '/' wait for a flush). */
  afterRootOverheadMs: Summary;
  /** The same for the gap from robots.txt to the first page. */
  afterRobotsOverheadMs: Summary;
}

/**
 * Politeness efficiency of a crawl: violations from the logs, and the achieved page rate divided by
 * the bound Σ 1 / (delay + mean response time). The rate is page requests over the window from the
 * first page request's start to the last one's end plus one delay (each page occupies its host for
 * its response time and the delay after it, so a perfect crawl of one host scores exactly 1);
 * robots.txt fetches and worker start-up before the first page fall outside it. Hosts without page
 * requests count for nothing.
 */
export function politenessEfficiency(hosts: readonly HostLog[], delayMs: number): EfficiencyResult {
  let violations = 0;
  const violationList: EfficiencyResult['violationList'] = [];
  let maxInFlight = 0;
  let minGapMs = Infinity;
  let windowStart = Infinity;
  let windowEnd = -Infinity;
  let pages = 0;
  let robots = 0;
  let responseSum = 0;
  let boundPerSec = 0;
  const perHost: HostEfficiency[] = [];
  const overhead: number[] = [];
  const afterRoot: number[] = [];
  const afterRobots: number[] = [];
  for (const { host, log } of hosts) {
    const report = politenessReport(log, delayMs);
    violations += report.violations.length;
    for (const v of report.violations) violationList.push({ host, ...v });
    maxInFlight = Math.max(maxInFlight, report.maxInFlight);
    minGapMs = Math.min(minGapMs, report.minGapMs);
    const sorted = [...log].sort((a, b) => a.start - b.start);
    const pageLog = sorted.filter(isPageRequest);
    robots += sorted.length - pageLog.length;
    if (pageLog.length === 0) continue;
    const hostResponse = pageLog.reduce((s, r) => s + (r.end - r.start), 0);
    responseSum += hostResponse;
    pages += pageLog.length;
    windowStart = Math.min(windowStart, pageLog[0].start);
    windowEnd = Math.max(windowEnd, ...pageLog.map((r) => r.end));
    const meanResponseMs = hostResponse / pageLog.length;
    const hostBound = 1000 / (delayMs + meanResponseMs);
    boundPerSec += hostBound;
    const span = pageLog[pageLog.length - 1].start - pageLog[0].start;
    const ratePerSec = pageLog.length > 1 && span > 0 ? ((pageLog.length - 1) * 1000) / span : NaN;
    perHost.push({
      host,
      pages: pageLog.length,
      meanResponseMs,
      ratePerSec,
      boundPerSec: hostBound,
      efficiency: ratePerSec / hostBound,
    });
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1];
      const next = sorted[i];
      if (!isPageRequest(next)) continue;
      const extra = next.start - prev.end - delayMs;
      if (!isPageRequest(prev)) afterRobots.push(extra);
      else if (prev.path === '/') afterRoot.push(extra);
      else overhead.push(extra);
    }
  }
  windowEnd += delayMs;
  const windowMs = windowEnd - windowStart;
  const achievedPerSec = pages > 0 && windowMs > 0 ? (pages * 1000) / windowMs : NaN;
  return {
    delayMs,
    hosts: hosts.length,
    pages,
    robots,
    violations,
    violationList,
    maxInFlight,
    minGapMs,
    windowStart,
    windowEnd,
    windowMs,
    meanResponseMs: pages > 0 ? responseSum / pages : NaN,
    achievedPerSec,
    boundPerSec,
    efficiency: achievedPerSec / boundPerSec,
    perHost,
    overheadMs: summarize(overhead),
    afterRootOverheadMs: summarize(afterRoot),
    afterRobotsOverheadMs: summarize(afterRobots),
  };
}

/** A request as the worker saw it (from the primary's per-host request log). */
export interface WorkerTiming {
  /** Request target (path with query), to match the site's log. */
  path: string;
  /** When the worker started the request and when it had read the whole body (ms, wall clock). */
  startedAt: number;
  endedAt: number;
}

/** Where the crawler's added time between two page requests of a host goes (all in ms). */
export interface OverheadBreakdown {
  /** Pairs of consecutive page requests matched in both logs. */
  pairs: number;
  /** Site sent the last byte → worker had the whole body. */
  receiveMs: Summary;
  /** Worker (parse, report) → primary (host clock, timer, dispatch) → worker starts the next request. */
  primaryRoundTripMs: Summary;
  /** Worker starts the request → the site sees it. */
  sendMs: Summary;
}

/**
 * Splits each gap (next page start − previous page end − delay, in a site's log) into: the body
 * reaching the worker, the trip through the worker's parse and the primary back to a worker, and
 * the request reaching the site. The middle part is the gap minus the other two. Samples of all
 * hosts are pooled; requests missing from a host's `timings` (matched by path) are left out.
 */
export function overheadBreakdown(
  hosts: ReadonlyArray<{ log: readonly RequestRecord[]; timings: readonly WorkerTiming[] }>,
  delayMs: number,
): OverheadBreakdown {
  const receive: number[] = [];
  const middle: number[] = [];
  const send: number[] = [];
  for (const { log, timings } of hosts) {
    const byPath = new Map<string, WorkerTiming>();
    for (const t of timings) byPath.set(t.path, t);
    const pageLog = log.filter(isPageRequest).sort((a, b) => a.start - b.start);
    for (let i = 1; i < pageLog.length; i++) {
      const prev = pageLog[i - 1];
      const next = pageLog[i];
      const tp = byPath.get(prev.path);
      const tn = byPath.get(next.path);
      if (!tp || !tn) continue;
      const rcv = tp.endedAt - prev.end;
      const snd = next.start - tn.startedAt;
      receive.push(rcv);
      send.push(snd);
      middle.push(next.start - prev.end - delayMs - rcv - snd);
    }
  }
  return {
    pairs: middle.length,
    receiveMs: summarize(receive),
    primaryRoundTripMs: summarize(middle),
    sendMs: summarize(send),
  };
}

/** CPU time per page of each part of the crawl pipeline, each measured alone (ms). */
export interface PartCosts {
  /** processPage: decode, parse, extract, judge links (the parse-only limit's own figure). */
  parse: number;
  /** A worker's work besides parsing: request, response, body, result, IPC send. */
  fetchSend: number;
  /** The sites serving the page, and the primary receiving the result over IPC (one process in the measurement). */
  serveReceive: number;
  /** The primary's work: lease and host start committed, result judged, page and full-text entries stored, links queued. */
  store: number;
}

/**
 * The highest throughput ratio (end to end over the parse-only limit) that CPU allows when every part
 * shares the cores with parsing, as in the benchmark: a page costs at least the sum of its parts, and
 * the parse-only limit costs the parse alone, so the ratio is at most parse / sum, whatever the
 * number of cores, with zero contention and zero waiting. `sitesElsewhere` leaves out serving and
 * receiving (a machine whose sites are on other computers; it errs high, as receiving stays with us).
 */
export function pipelineCeiling(c: PartCosts): { sum: number; ratio: number; sitesElsewhere: number } {
  const sum = c.parse + c.fetchSend + c.serveReceive + c.store;
  return { sum, ratio: c.parse / sum, sitesElsewhere: c.parse / (c.parse + c.fetchSend + c.store) };
}
