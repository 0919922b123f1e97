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
import { sqliteCrawlStore } from '../../db/crawl-store.ts';

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
    let t = Date.now();
    await coordinator.start(t);
    let stored = 0;
    let flushes = 0;
    let pending = 0;
    const flush = async () => {
      stored += await coordinator.flush(t);
      flushes++;
      pending = 0;
    };
    const cpu0 = process.cpuUsage();
    for (;;) {
      t += 1;
      const out: FetchJob[] = [];
      for (let job = coordinator.dispatch(t); job; job = out.length < opts.slots ? coordinator.dispatch(t) : undefined)
        out.push(job);
      if (out.length === 0) {
        if (!coordinator.hasWrites()) break;
        await flush();
        continue;
      }
      for (const job of out) {
        const page = opts.parsed.get(job.url);
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
    if (stored !== opts.parsed.size) {
      throw new Error(
        `store-cost: ${stored} pages stored, expected ${opts.parsed.size}: the simulated crawl did not reach every page`,
      );
    }
    return { pagesStored: stored, flushes, cpuMsPerPage: (cpu.user + cpu.system) / 1000 / stored };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
