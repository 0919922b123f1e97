/**
 * The frontier benchmark's real-cluster part: 1,000 loopback sites (test-support's test web, each on an
 * address of its own in 127.0.0.0/8 with its own request log), the real crawler primary and its workers
 * (test-support/crawler-harness.ts), one seed per site. Politeness is judged from the sites' own logs
 * (bench/crawl/bench-metrics.ts): violations (two requests to a site closer than the delay, or
 * overlapping) and efficiency (pages achieved over the bound the delay allows). The delay is long enough
 * that the hosts' clocks, not the workers, set the pace (the bound is 1,000 sites / delay), so the figure
 * says whether the primary keeps a thousand hosts' clocks busy. The primary's resident memory is sampled.
 */
import { startTestWeb } from '../../test-support/test-web.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { generatedDepth } from '../../test-support/generate.ts';
import { sampleMemory } from '../../test-support/memory-sampler.ts';
import { politenessEfficiency, summarize, type Summary } from '../crawl/bench-metrics.ts';
import { benchSite } from '../crawl/bench-pages.ts';

/** The shape of the run. */
export interface ClusterShape {
  sites: number;
  pagesPerSite: number;
  delayMs: number;
  workers: number;
}

/** The figure: 1,000 loopback hosts; 5 pages each, 10 s apart, so that politeness is the bound. */
export const THOUSAND_SITES: ClusterShape = { sites: 1000, pagesPerSite: 5, delayMs: 10_000, workers: 4 };

/** What the real-cluster part measured. */
export interface ClusterFigures extends ClusterShape {
  pages: number;
  robots: number;
  violations: number;
  minGapMs: number;
  maxInFlight: number;
  boundPerSec: number;
  achievedPerSec: number;
  efficiency: number;
  perHostEfficiency: Summary;
  /** From adding the seeds to every page fetched. */
  crawlMs: number;
  primaryPeakRssMiB: number;
}

/** Crawls `shape.sites` generated sites through the real cluster and judges it from the sites' logs. */
export async function runCluster(shape: ClusterShape): Promise<ClusterFigures> {
  const web = await startTestWeb(
    Array.from({ length: shape.sites }, () => benchSite({ pagesPerSite: shape.pagesPerSite })),
  );
  try {
    const crawler = startCrawler({ CRAWL_WORKERS: String(shape.workers), CRAWL_DELAY_MS: String(shape.delayMs) });
    const memory = sampleMemory(() => (crawler.primary.pid ? [crawler.primary.pid] : []), 250);
    try {
      const t0 = performance.now();
      for (const s of web.sites) crawler.addSeed(s.url('/'), { depth: generatedDepth(shape.pagesPerSite) });
      const expected = shape.sites * shape.pagesPerSite;
      await crawler.waitIdle({ minDone: expected, timeoutMs: 30 * shape.pagesPerSite * shape.delayMs });
      const crawlMs = performance.now() - t0;
      const e = politenessEfficiency(
        web.sites.map((s) => ({ host: s.host, log: s.log })),
        shape.delayMs,
      );
      return {
        ...shape,
        pages: e.pages,
        robots: e.robots,
        violations: e.violations,
        minGapMs: e.minGapMs,
        maxInFlight: e.maxInFlight,
        boundPerSec: e.boundPerSec,
        achievedPerSec: e.achievedPerSec,
        efficiency: e.efficiency,
        perHostEfficiency: summarize(e.perHost.map((h) => h.efficiency)),
        crawlMs,
        primaryPeakRssMiB: memory.report().peakRssMiB,
      };
    } finally {
      memory.stop();
      await crawler.close();
    }
  } finally {
    await web.close();
  }
}
