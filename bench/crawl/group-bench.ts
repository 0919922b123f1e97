/**
 * Part 1b of `npm run bench:crawl`: politeness per domain group. Several registrable domains, each
 * answering on four names of one server (virtual hosts on one loopback address, reached through
 * CRAWL_RESOLVE), crawled with the default grouping (`domain`): violations and efficiency are judged on
 * each group's merged request log (one request at a time, the delay between any two requests to any of
 * its names), the bound being Σ over groups 1 / (delay + mean response time).
 */
import { startNamedWeb, type SiteSpec } from '../../test-support/test-web.ts';
import { politenessEfficiency, type EfficiencyResult } from './bench-metrics.ts';
import { benchSite } from './bench-pages.ts';
import { crawlSites, startWarmCrawler } from './crawl-session.ts';

/** Results of part 1b. */
export interface GroupBench {
  groups: number;
  namesPerGroup: number;
  pagesPerName: number;
  workers: number;
  delayMs: number;
  /** Over each group's merged log. */
  byGroup: EfficiencyResult;
  /** Over each name's own log (what the old per-host rule would have checked). */
  byName: EfficiencyResult;
}

const NAMES = ['www', 'docs', 'blog', 'wiki'];

/** 5 domains × 4 names × 12 pages, CRAWL_DELAY_MS=100. */
export async function groupPolitenessBench(workers: number): Promise<GroupBench> {
  const groups = 5;
  const pagesPerName = 12;
  const delayMs = 100;
  const addresses: Array<Record<string, SiteSpec>> = Array.from({ length: groups }, (_, g) =>
    Object.fromEntries(NAMES.map((n) => [`${n}.domain${g}.test`, benchSite({ pagesPerSite: pagesPerName })])),
  );
  const web = await startNamedWeb(addresses);
  try {
    // Pacing off, as in part 1: the figure measures the groups' clock against the configured delay.
    const warm = await startWarmCrawler({
      CRAWL_WORKERS: String(workers),
      CRAWL_DELAY_MS: String(delayMs),
      CRAWL_RESOLVE: web.resolve,
      CRAWL_PACING_FACTOR: '0',
    });
    try {
      await crawlSites(warm.crawler, web.sites, {
        pagesPerSite: pagesPerName,
        alreadyDone: warm.warmPages,
        timeoutMs: 300_000,
        workers,
      });
      const byName = politenessEfficiency(
        web.sites.map((s) => ({ host: s.host, log: s.log })),
        delayMs,
      );
      const byGroup = politenessEfficiency(
        Array.from({ length: groups }, (_, g) => ({
          host: `domain${g}.test`,
          log: web.sites.filter((s) => s.host.includes(`.domain${g}.test:`)).flatMap((s) => s.log),
        })),
        delayMs,
      );
      return { groups, namesPerGroup: NAMES.length, pagesPerName, workers, delayMs, byGroup, byName };
    } finally {
      await warm.close();
    }
  } finally {
    await web.close();
  }
}

const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : String(n));
const f2 = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : String(n));

/** Part 1b as markdown. */
export function groupSection(r: GroupBench): string[] {
  const g = r.byGroup;
  const eff = g.perHost.map((h) => h.efficiency).sort((a, b) => a - b);
  return [
    '### 1b. Politeness per domain group',
    '',
    `${r.groups} registrable domains, each answering on ${r.namesPerGroup} names of one server (${NAMES.map((n) => `${n}.`).join(', ')}; ` +
      `virtual hosts on one loopback address, named through CRAWL_RESOLVE), ${r.pagesPerName} pages per name, one seed per name, ` +
      `CRAWL_WORKERS=${r.workers}, CRAWL_DELAY_MS=${r.delayMs}, CRAWL_POLITENESS_GROUP=domain (the default), CRAWL_PACING_FACTOR=0 (as in part 1).`,
    '',
    '| | |',
    '|---|---|',
    `| Violations over each domain's merged log (overlap, or a gap below the delay between any two of its names) | **${g.violations}** (most in flight per domain: ${g.maxInFlight}; smallest gap: ${f1(g.minGapMs)} ms) |`,
    `| Violations over each name's own log | ${r.byName.violations} (most in flight per name: ${r.byName.maxInFlight}) |`,
    `| Requests | ${g.pages} pages + ${g.robots} robots.txt (each name its own) |`,
    `| Bound Σ over domains 1 / (delay + mean response time) | ${f1(g.boundPerSec)} pages/s |`,
    `| Achieved | ${f1(g.achievedPerSec)} pages/s (${g.pages} pages in ${f2(g.windowMs / 1000)} s) |`,
    `| **Efficiency per domain group** | **${f2(g.efficiency)}** |`,
    `| Per-domain efficiency (min / median / max) | ${f2(eff[0])} / ${f2(eff[Math.floor(eff.length / 2)])} / ${f2(eff[eff.length - 1])} |`,
    '',
    'With one clock per host (`CRAWL_POLITENESS_GROUP=host`) the same crawl would send each server up to four requests at once; ' +
      'here each domain gets one at a time, at the rate one host used to.',
  ];
}
