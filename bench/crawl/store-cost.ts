/**
 * The primary's own work per page, alone: the real Coordinator on a real SQLite file, driven by hand
 * with results whose pages were parsed beforehand. Each page costs what the primary spends on it in a
 * crawl (handing the job out with its lease and host start committed, judging the result and its
 * links, storing the page with its full-text entries, queueing the links) minus the IPC. No network,
 * no workers, no waiting: the host clocks run at CRAWL_DELAY_MS=0 and time is passed in.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../db/open.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { emptyResult } from '../../crawler/fetch/fetcher.ts';
import { Coordinator } from '../../crawler/coordination/coordinator.ts';
import type { FetchJob, FetchResult, ParsedPage } from '../../crawler/common/protocol.ts';
import { BENCH_CONTENT_TYPE, BENCH_ROBOTS } from './bench-pages.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';

/** What `measureStoreCost` found. */
export interface StoreCost {
  pagesStored: number;
  /** Transactions of stored results (as the primary batches them). */
  flushes: number;
  /** CPU time per stored page (ms): the whole loop's, robots.txt jobs included. */
  cpuMsPerPage: number;
}

/** Results stored per transaction: what the primary's 50 ms batches held at the crawl's pace. */
const BATCH = 20;

function result(job: FetchJob, part: Partial<FetchResult>): FetchResult {
  return { ...emptyResult(job, 0), status: 200, contentType: BENCH_CONTENT_TYPE, ...part };
}

/** What a simulated crawl through a Coordinator did: pages stored, each flush's wall time, this process's CPU and wall. */
export interface SimulatedCrawl {
  stored: number;
  flushWallMs: number[];
  cpuMs: number;
  wallMs: number;
}

/**
 * Crawls through `coordinator` (started at `t0`) by hand: at most `slots` jobs out at once, each answered at
 * once from `parsed` (robots.txt with BENCH_ROBOTS, a page not in it with a 404), a flush every BATCH results or
 * when the primary asks for one, until nothing is due or waiting to be written. Each flush is timed.
 */
export async function simulateCrawl(
  coordinator: Coordinator,
  parsed: ReadonlyMap<string, ParsedPage>,
  slots: number,
  t0: number,
): Promise<SimulatedCrawl> {
  let t = t0;
  let stored = 0;
  let pending = 0;
  const flushWallMs: number[] = [];
  const flush = async () => {
    const started = performance.now();
    stored += await coordinator.flush(t);
    flushWallMs.push(performance.now() - started);
    pending = 0;
  };
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  for (;;) {
    t += 1;
    const out: FetchJob[] = [];
    for (let job = coordinator.dispatch(t); job; job = out.length < slots ? coordinator.dispatch(t) : undefined)
      out.push(job);
    if (out.length === 0) {
      if (!coordinator.hasWrites()) break;
      await flush();
      continue;
    }
    for (const job of out) {
      const page = parsed.get(job.url);
      const r =
        job.kind === 'robots'
          ? result(job, { contentType: 'text/plain', robotsBody: BENCH_ROBOTS })
          : page
            ? result(job, { page })
            : result(job, { status: 404 });
      coordinator.onResult(r, t, 0);
      pending++;
    }
    if (coordinator.takeUrgent() || pending >= BATCH) await flush();
  }
  const cpu = process.cpuUsage(cpu0);
  return { stored, flushWallMs, cpuMs: (cpu.user + cpu.system) / 1000, wallMs: performance.now() - wall0 };
}

/**
 * Crawls `parsed` (page URL → what processPage made of it) from one seed per origin at depth
 * `depth`, through a Coordinator on a fresh database, with as many jobs out at once as a crawl's
 * fetch slots. Throws if not every page was stored once: the cost must be of the same work.
 */
export async function measureStoreCost(opts: {
  origins: readonly string[];
  parsed: ReadonlyMap<string, ParsedPage>;
  depth: number;
  slots: number;
}): Promise<StoreCost> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-store-cost-'));
  const db = openDatabase(dir);
  try {
    const seeds = seedQueries(db);
    for (const origin of opts.origins)
      seeds.upsertSeed({ url: `${origin}/`, origin, depth: opts.depth, scope: 'host' }, 1);
    const config = loadConfig({ DATA_DIR: dir, CRAWL_DELAY_MS: '0', CRAWL_ALLOW_PRIVATE: '1' });
    const coordinator = new Coordinator(sqliteCrawlStore(db), config, 'store-cost');
    const t = Date.now();
    await coordinator.start(t);
    const { stored, flushWallMs, cpuMs } = await simulateCrawl(coordinator, opts.parsed, opts.slots, t);
    if (stored !== opts.parsed.size) {
      throw new Error(
        `store-cost: ${stored} pages stored, expected ${opts.parsed.size}: the simulated crawl did not reach every page`,
      );
    }
    return { pagesStored: stored, flushes: flushWallMs.length, cpuMsPerPage: cpuMs / stored };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
