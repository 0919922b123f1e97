/**
 * crawlee's CheerioCrawler on the sites of bench:crawl part 2, for the side-by-side: one child process
 * per variant (crawlee-child.ts) crawls throw-away warm-up sites first, as Lantern's cluster does, then
 * the measured sites from their roots. Its CPU is read from /proc like the crawler's processes (the
 * child's own report where /proc is unavailable); this process's CPU over the crawl is the test web's.
 * The figures come from the sites' own request logs of that crawl alone.
 */
import { fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTestWeb, type TestSite } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { benchSite } from './bench-pages.ts';
import type { CrawleeVariant, FromCrawleeChild, ToCrawleeChild } from './crawlee-child.ts';
import { processAndReapedCpuMs } from './proc-cpu.ts';
import { crawlWindow, type SideRun } from './side-by-side.ts';

const CHILD = fileURLToPath(new URL('./crawlee-child.ts', import.meta.url));

/** Warm-up as Lantern's (crawl-session.ts): 8 throw-away sites of 4 pages. */
const WARMUP_SITES = 8;
const WARMUP_PAGES = 4;

/** The row labels of the variants. */
export const CRAWLEE_VARIANTS: Record<CrawleeVariant, string> = {
  default: 'crawlee CheerioCrawler, its defaults (autoscaled concurrency), MemoryStorage',
  'one-per-host': 'crawlee CheerioCrawler held to one request in flight per host, MemoryStorage',
};

/** The version of @crawlee/cheerio installed (a devDependency: the benchmark's only user of it). */
export function crawleeVersion(): string {
  return (createRequire(import.meta.url)('@crawlee/cheerio/package.json') as { version: string }).version;
}

/** A variant's run: the side-by-side's figures plus what else the crawl showed. */
export interface CrawleeRun extends SideRun {
  variant: CrawleeVariant;
  /** @crawlee/cheerio's version. */
  version: string;
  failed: number;
  firstError: string | undefined;
  meanResponseMs: number;
  /** Where the crawler CPU came from: /proc (process, threads and reaped children) or the child's own count. */
  cpuSource: '/proc' | 'process.cpuUsage';
}

/**
 * Crawls `sites` (each serving `pagesPerSite` generated pages, served by this process) with crawlee in
 * a fresh child, after a warm-up crawl; throws `crawlee-side: ...` when the child fails, stalls past
 * `timeoutMs`, or writes to disk.
 */
export async function measureCrawlee(opts: {
  sites: readonly TestSite[];
  pagesPerSite: number;
  variant: CrawleeVariant;
  timeoutMs: number;
  /** crawlee's minConcurrency for both crawls (undefined: its default, as the benchmark runs it). */
  minConcurrency?: number;
}): Promise<CrawleeRun> {
  const storageDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawlee-'));
  const inbox: FromCrawleeChild[] = [];
  let failure: string | undefined;
  const child = fork(CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('message', (m: FromCrawleeChild) => inbox.push(m));
  child.on('exit', (code, signal) => {
    failure ??= `the crawlee child exited (${signal ?? `code ${code}`})`;
  });
  const answer = async <T extends FromCrawleeChild['type']>(type: T, timeoutMs: number) =>
    waitFor(
      () => {
        const m = inbox.find((x): x is Extract<FromCrawleeChild, { type: T }> => x.type === type);
        if (m) inbox.splice(inbox.indexOf(m), 1);
        else if (failure) throw new Error(`crawlee-side: ${failure}`);
        return m;
      },
      { timeoutMs, intervalMs: 5, message: `the crawlee child to answer ${type}` },
    );
  const crawl = async (roots: string[], timeoutMs: number) => {
    child.send({
      type: 'crawl',
      roots,
      variant: opts.variant,
      storageDir,
      minConcurrency: opts.minConcurrency,
    } satisfies ToCrawleeChild);
    return answer('crawled', timeoutMs);
  };
  try {
    await answer('ready', 60_000);
    const warm = await startTestWeb(
      Array.from({ length: WARMUP_SITES }, () => benchSite({ pagesPerSite: WARMUP_PAGES })),
    );
    try {
      const w = await crawl(
        warm.sites.map((s) => s.url('/')),
        120_000,
      );
      if (w.handled !== WARMUP_SITES * WARMUP_PAGES)
        throw new Error(`crawlee-side: the warm-up crawled ${w.handled} of ${WARMUP_SITES * WARMUP_PAGES} pages`);
    } finally {
      await warm.close();
    }
    const marks = opts.sites.map((s) => s.log.length);
    const load = os.loadavg()[0];
    const proc0 = processAndReapedCpuMs(child.pid!);
    const self0 = process.cpuUsage();
    const done = await crawl(
      opts.sites.map((s) => s.url('/')),
      opts.timeoutMs,
    );
    const self = process.cpuUsage(self0);
    const proc1 = processAndReapedCpuMs(child.pid!);
    if (done.parked > 0)
      throw new Error(`crawlee-side: ${done.parked} requests were still parked for their host when the crawl ended`);
    const written = readdirSync(storageDir);
    if (written.length > 0)
      throw new Error(`crawlee-side: crawlee wrote to disk (${written.join(', ')} in ${storageDir}); it must not`);
    const logs = opts.sites.map((s, i) => ({ host: s.host, log: s.log.slice(marks[i]) }));
    const window = crawlWindow(logs, done.lastHandledAt);
    const fromProc = proc0 !== undefined && proc1 !== undefined;
    return {
      name: CRAWLEE_VARIANTS[opts.variant],
      variant: opts.variant,
      version: crawleeVersion(),
      pages: done.handled,
      expected: opts.sites.length * opts.pagesPerSite,
      pageRequests: window.pageRequests,
      windowMs: window.windowMs,
      crawlerCpuMs: fromProc ? proc1 - proc0 : done.cpuMs,
      cpuSource: fromProc ? '/proc' : 'process.cpuUsage',
      testWebCpuMs: (self.user + self.system) / 1000,
      maxInFlightPerHost: window.maxInFlightPerHost,
      crawlerMaxInFlightPerHost: done.maxInFlightPerHost,
      crawlerMaxInFlight: done.maxInFlight,
      meanResponseMs: window.meanResponseMs,
      loadStart: load,
      failed: done.failed,
      firstError: done.firstError,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      failure = 'stopped';
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(storageDir, { recursive: true, force: true });
  }
}
