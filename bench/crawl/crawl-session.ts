/**
 * Driving one benchmark crawl through the real harness: warm the cluster up on throw-away sites,
 * crawl the measured sites, wait by polling the database, and collect what the analysis needs (CPU
 * time per process group, the primary's worker-side timings of each request).
 */
import type { Server } from 'node:http';
import os from 'node:os';
import { startTestWeb, type TestSite } from '../../test-support/test-web.ts';
import { generatedDepth } from '../../test-support/generate.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import type { PrimaryToServer } from '../../crawler/common/protocol.ts';
import { DomainBook } from '../../server/domain-book.ts';
import { fetchSlots, type WorkerTiming } from './bench-metrics.ts';
import { benchSite } from './bench-pages.ts';
import { type BenchCrawler, startBenchCrawler } from './bench-crawler.ts';
import { machineCpuMs, treeCpuMs } from './proc-cpu.ts';

/** CPU used during a stretch of wall time, by process group (ms; undefined where /proc is unavailable). */
export interface CpuSplit {
  wallMs: number;
  benchMs: number;
  primaryMs: number | undefined;
  workersMs: number | undefined;
  /** CPU the whole machine used (all processes, ours and others', plus steal) and had (ms over all cores). */
  machineBusyMs: number | undefined;
  machineTotalMs: number | undefined;
  /** 1-minute load average at the start and the end. */
  loadStart: number;
  loadEnd: number;
}

/** A point to measure CPU from: call `stop()` to get what was used since. */
export function cpuMeter(primaryPid: number): { stop(): CpuSplit } {
  const wall0 = performance.now();
  const self0 = process.cpuUsage();
  const tree0 = treeCpuMs(primaryPid);
  const machine0 = machineCpuMs();
  const load0 = os.loadavg()[0];
  return {
    stop() {
      const self = process.cpuUsage(self0);
      const tree = treeCpuMs(primaryPid);
      const machine = machineCpuMs();
      return {
        machineBusyMs: machine && machine0 ? machine.busyMs - machine0.busyMs : undefined,
        machineTotalMs: machine && machine0 ? machine.totalMs - machine0.totalMs : undefined,
        loadStart: load0,
        loadEnd: os.loadavg()[0],
        wallMs: performance.now() - wall0,
        benchMs: (self.user + self.system) / 1000,
        primaryMs: tree && tree0 ? tree.selfMs - tree0.selfMs : undefined,
        workersMs: tree && tree0 && tree.children === tree0.children ? tree.childrenMs - tree0.childrenMs : undefined,
      };
    },
  };
}

/** Sites crawled before the measurement so that every worker has loaded and served requests. */
const WARMUP_SITES = 8;
const WARMUP_PAGES = 4;

/**
 * Starts a crawler with `env` (on SQLite unless `start` starts it elsewhere) and crawls WARMUP_SITES small
 * sites to completion, so worker start-up (loading tsx, undici, htmlparser2) is over before the measured
 * crawl: with more due hosts than workers, every worker that is ready gets jobs, and the warm-up lasts
 * several request delays.
 */
export async function startWarmCrawler(
  env: Record<string, string>,
  start: (env: Record<string, string>) => Promise<BenchCrawler> = (e) => startBenchCrawler('sqlite', e),
): Promise<{ crawler: BenchCrawler; warmPages: number; close(): Promise<void> }> {
  const warmWeb = await startTestWeb(
    Array.from({ length: WARMUP_SITES }, () => benchSite({ pagesPerSite: WARMUP_PAGES })),
  );
  let crawler: BenchCrawler;
  try {
    crawler = await start(env);
  } catch (err) {
    await warmWeb.close();
    throw err;
  }
  try {
    for (const s of warmWeb.sites) await crawler.addSeed(s.url('/'), { depth: generatedDepth(WARMUP_PAGES) });
    const warmPages = WARMUP_SITES * WARMUP_PAGES;
    await crawler.waitIdle({ minDone: warmPages, timeoutMs: 120_000 });
    await warmWeb.close();
    return { crawler, warmPages, close: () => crawler.close() };
  } catch (err) {
    await crawler.close();
    await warmWeb.close();
    throw err;
  }
}

/** What the primary's own snapshots (every 500 ms) said during a crawl, averaged over the samples. */
export interface SnapshotStats {
  samples: number;
  /** Jobs handed to workers and not yet reported: busy fetch slots. */
  meanInFlight: number;
  /** Hosts with work whose clock allows a request now but that have none in flight. */
  meanDueWaiting: number;
  /** Share of samples with every fetch slot busy. */
  allBusyShare: number;
}

/** Starts recording the primary's snapshots; `stop()` averages those that arrived until then. */
export function snapshotSampler(crawler: BenchCrawler, slots: number): { stop(): SnapshotStats } {
  const samples: Array<{ inFlight: number; due: number }> = [];
  const child = crawler.primary;
  const book = new DomainBook(); // each snapshot carries the hosts that changed; the book keeps them all
  const listener = (m: PrimaryToServer) => {
    if (m.type !== 'snapshot') return;
    book.apply(m);
    const due = book.rows().filter((d) => d.state === 'waiting' && d.stateText === 'due now').length;
    samples.push({ inFlight: m.status.inFlight, due });
  };
  child.on('message', listener);
  return {
    stop() {
      child.off('message', listener);
      const n = samples.length;
      const mean = (f: (x: { inFlight: number; due: number }) => number) =>
        n === 0 ? NaN : samples.reduce((s, x) => s + f(x), 0) / n;
      return {
        samples: n,
        meanInFlight: mean((x) => x.inFlight),
        meanDueWaiting: mean((x) => x.due),
        allBusyShare: mean((x) => (x.inFlight >= slots ? 1 : 0)),
      };
    },
  };
}

/**
 * Counts the TCP connections the sites accept from now on. The test web does not export its servers,
 * so this reads the `server` field its sites carry; undefined when a site has none.
 */
export function connectionCounter(sites: readonly TestSite[]): { count(): number | undefined } {
  let n = 0;
  const servers = sites.map((s) => (s as unknown as { server?: Server }).server);
  if (servers.some((sv) => sv === undefined || typeof sv.on !== 'function')) return { count: () => undefined };
  for (const sv of servers) sv!.on('connection', () => n++);
  return { count: () => n };
}

/** Adds one seed per site (depth enough to reach every generated page) and waits until the crawl is idle. */
export async function crawlSites(
  crawler: BenchCrawler,
  sites: readonly TestSite[],
  opts: { pagesPerSite: number; alreadyDone: number; timeoutMs: number; workers: number },
): Promise<{ cpu: CpuSplit; snapshots: SnapshotStats; connections: number | undefined }> {
  const meter = cpuMeter(crawler.primary.pid!);
  const connections = connectionCounter(sites);
  const sampler = snapshotSampler(crawler, fetchSlots(opts.workers));
  for (const s of sites) await crawler.addSeed(s.url('/'), { depth: generatedDepth(opts.pagesPerSite) });
  const expected = sites.length * opts.pagesPerSite;
  await crawler.waitIdle({ minDone: opts.alreadyDone + expected, timeoutMs: opts.timeoutMs });
  const origins = sites.map((s) => s.origin);
  await waitFor(async () => (await crawler.storedPages(origins)).count >= expected, {
    timeoutMs: 10_000,
    message: `all ${expected} pages stored`,
  });
  return { cpu: meter.stop(), snapshots: sampler.stop(), connections: connections.count() };
}

let nextReqId = 1;

/** The primary's worker-side timings of a host's last requests (start and body end as the worker saw them). */
export async function workerTimings(crawler: BenchCrawler, origin: string): Promise<WorkerTiming[]> {
  const reqId = nextReqId++;
  crawler.primary.send({ type: 'requests', reqId, origin });
  const reply = await waitFor(
    () =>
      crawler.messages.find(
        (m): m is Extract<typeof m, { type: 'requests' }> => m.type === 'requests' && m.reqId === reqId,
      ),
    { timeoutMs: 10_000, intervalMs: 5, message: `the primary's request log of ${origin}` },
  );
  return reply.requests.map((r) => {
    const u = new URL(r.url);
    const startedAt = Date.parse(r.startedAt);
    return { path: u.pathname + u.search, startedAt, endedAt: startedAt + r.durationMs };
  });
}
