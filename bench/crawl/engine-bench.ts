/**
 * Part 2's crawl on each storage engine, side by side (engine-compare.ts): starts the PostgreSQL clusters the
 * sides need, then crawls round after round, a fresh test web, crawler and database per crawl, the sides taking
 * turns, and measures each crawl as part 2 does, plus the CPU of the PostgreSQL cluster.
 */
import { startTestWeb } from '../../test-support/test-web.ts';
import { benchSite } from './bench-pages.ts';
import { type BenchCrawler, startBenchCrawler } from './bench-crawler.ts';
import { type BenchPostgres, clusterCpuMs, SHARED_SETTINGS, startBenchPostgres } from './bench-postgres.ts';
import { crawlSites, startWarmCrawler } from './crawl-session.ts';
import { type EngineRun, type EngineSide, pagesPerSec, roundOrder, sideLabel } from './engine-compare.ts';

const SITES = 50;
const PAGES_PER_SITE = 30;

/** One crawl of part 2's sites on `side` (a database of `cluster` on PostgreSQL). */
async function crawlOnce(
  side: EngineSide,
  round: number,
  workers: number,
  cluster: BenchPostgres | undefined,
): Promise<EngineRun> {
  const site = { pagesPerSite: PAGES_PER_SITE, bodyBytes: 30_000 };
  const spec = benchSite(site);
  const web = await startTestWeb(Array.from({ length: SITES }, () => spec));
  try {
    const start = async (env: Record<string, string>): Promise<BenchCrawler> => {
      if (cluster === undefined) return startBenchCrawler('sqlite', env);
      return startBenchCrawler('postgres', env, await cluster.createDatabase());
    };
    const warm = await startWarmCrawler(
      { CRAWL_WORKERS: String(workers), CRAWL_DELAY_MS: '0', CRAWL_PACING_FACTOR: '0' },
      start,
    );
    try {
      const pg0 = cluster && clusterCpuMs(cluster.folder);
      const { cpu } = await crawlSites(warm.crawler, web.sites, {
        pagesPerSite: PAGES_PER_SITE,
        alreadyDone: warm.warmPages,
        timeoutMs: 300_000,
        workers,
      });
      const pg1 = cluster && clusterCpuMs(cluster.folder);
      const stored = await warm.crawler.storedPages(web.sites.map((s) => s.origin));
      const starts = web.sites.flatMap((s) => s.log.filter((r) => r.path !== '/robots.txt').map((r) => r.start));
      return {
        side,
        round,
        pagesStored: stored.count,
        expected: SITES * PAGES_PER_SITE,
        windowMs: stored.lastStoredAt - Math.min(...starts),
        loadStart: cpu.loadStart,
        primaryMs: cpu.primaryMs,
        workersMs: cpu.workersMs,
        postgresMs: pg0 !== undefined && pg1 !== undefined ? pg1 - pg0 : undefined,
      };
    } finally {
      await warm.close();
    }
  } finally {
    await web.close();
  }
}

/** Crawls part 2's sites `rounds` times on every side (see the module comment); answers the crawls in order. */
export async function engineBench(opts: {
  sides: readonly EngineSide[];
  rounds: number;
  workers: number;
}): Promise<{ runs: EngineRun[]; settings: string }> {
  const clusters = new Map<boolean, BenchPostgres>();
  const runs: EngineRun[] = [];
  try {
    for (const side of opts.sides)
      if (side.engine === 'postgres' && !clusters.has(side.fsync))
        clusters.set(side.fsync, await startBenchPostgres(side.fsync));
    for (let round = 0; round < opts.rounds; round++) {
      for (const side of roundOrder(opts.sides, round)) {
        const cluster = side.engine === 'postgres' ? clusters.get(side.fsync) : undefined;
        const run = await crawlOnce(side, round, opts.workers, cluster);
        runs.push(run);
        console.log(
          `crawl-bench: 2b round ${round + 1}/${opts.rounds} ${sideLabel(side)}: ${pagesPerSec(run).toFixed(1)} pages/s ` +
            `(${run.pagesStored} pages, load ${run.loadStart.toFixed(1)} at start)`,
        );
      }
    }
  } finally {
    for (const c of clusters.values()) c.stop();
  }
  const settings =
    `fsync off (the test harness's cluster: fsync and full_page_writes off, so a commit waits for no disk flush, ` +
    `which a real server does) or on (the same settings with fsync and full_page_writes on, as a real server runs); ${SHARED_SETTINGS}; ` +
    'the crawler reaches it over TCP on 127.0.0.1';
  return { runs, settings };
}
