/**
 * Part 3 of `npm run bench:crawl` (also `--only=refresh`): what refreshes cost a site, and how fresh they
 * keep the index, with each page's own revisit interval (crawler/frontier/revisit.ts). One 500-page site
 * ('/' links to every page; each page answers its ETag with a 304 when unchanged), crawled once, then
 * refreshed 10 times (CRAWL_REFRESH=5s, CRAWL_REVISIT_MAX=40s: eight periods, as 60 days are about eight
 * weeks). Two sites: one that never changes, one where 5 % of the pages change before each refresh.
 * Requests are counted from the site's own log; freshness is the share of pages whose stored text is the
 * live version, right after each refresh's crawl.
 */
import type http from 'node:http';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { startTestWeb, type SiteSpec, type TestSite } from '../../test-support/test-web.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { waitFor } from '../../test-support/wait-for.ts';

/** One refresh as the site saw it, and the index after it. */
export interface RefreshRound {
  refresh: number;
  /** Requests the site got during this refresh (the seed's page included). */
  requests: number;
  /** Of which answered 304. */
  notModified: number;
  /** Share of the pages whose stored text is the live version once the refresh's crawl is over. */
  fresh: number;
}

/** One site's run. */
export interface RefreshRun {
  changeShare: number;
  rounds: RefreshRound[];
}

/** Results of part 3. */
export interface RefreshBench {
  pages: number;
  refreshMs: number;
  revisitMaxMs: number;
  unchanged: RefreshRun;
  changing: RefreshRun;
}

const PAGES = 500;
const REFRESHES = 10;
const REFRESH = '5s';
const REVISIT_MAX = '40s';

/** A site of PAGES pages whose page i is at version versions[i] (changed in place by the bench). */
function versionedSite(versions: number[]): SiteSpec {
  const pages: SiteSpec['pages'] = {
    '/': `<title>Home</title>${Array.from({ length: PAGES - 1 }, (_, i) => `<a href="/p/${i + 1}">${i + 1}</a>`).join(' ')}`,
  };
  for (let i = 1; i < PAGES; i++) {
    pages[`/p/${i}`] = {
      handler: (req: http.IncomingMessage, res: http.ServerResponse) => {
        const etag = `"v${versions[i]}"`;
        if (req.headers['if-none-match'] === etag) return void res.writeHead(304, { etag }).end();
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8', etag })
          .end(`<title>Page ${i}</title><p>page ${i} version v${versions[i]}x</p>`);
      },
    };
  }
  return { robots: 'User-agent: *\nAllow: /\n', pages };
}

/** Share of pages 1..PAGES-1 whose stored body carries the live version. */
function freshness(crawler: CrawlerHarness, site: TestSite, versions: number[]): number {
  const rows = crawler.db.prepare(`SELECT url, body FROM pages WHERE origin = ?`).all(site.origin) as Array<{
    url: string;
    body: string;
  }>;
  const stored = new Map(rows.map((r) => [r.url, r.body]));
  let fresh = 0;
  for (let i = 1; i < PAGES; i++) if (stored.get(site.url(`/p/${i}`))?.includes(`version v${versions[i]}x`)) fresh++;
  return fresh / (PAGES - 1);
}

async function run(changeShare: number, seed: number): Promise<RefreshRun> {
  const versions = new Array<number>(PAGES).fill(0);
  const random = seededRandom(seed);
  const web = await startTestWeb([versionedSite(versions)]);
  const site = web.sites[0];
  // Request counts, not timing: no delay and no pacing, so ten refreshes take a minute.
  const crawler = startCrawler({
    CRAWL_REFRESH: REFRESH,
    CRAWL_REVISIT_MAX: REVISIT_MAX,
    CRAWL_DELAY_MS: '0',
    CRAWL_PACING_FACTOR: '0',
  });
  const rounds: RefreshRound[] = [];
  try {
    crawler.addSeed(site.url('/'), { depth: 1 });
    await crawler.waitIdle({ minDone: PAGES, timeoutMs: 120_000 });
    let seen = site.log.length;
    for (let k = 1; k <= REFRESHES; k++) {
      for (let i = 1; i < PAGES; i++) if (random() < changeShare) versions[i]++;
      await waitFor(() => site.requestsTo('/').length >= k + 1, { timeoutMs: 60_000, message: `refresh ${k}` });
      await crawler.waitIdle({ minDone: PAGES, timeoutMs: 120_000 });
      const log = site.log.slice(seen);
      seen = site.log.length;
      rounds.push({
        refresh: k,
        requests: log.length,
        notModified: log.filter((r) => r.status === 304).length,
        fresh: freshness(crawler, site, versions),
      });
    }
    return { changeShare, rounds };
  } finally {
    await crawler.close();
    await web.close();
  }
}

/** Runs both sites. */
export async function refreshBench(): Promise<RefreshBench> {
  return {
    pages: PAGES,
    refreshMs: 5_000,
    revisitMaxMs: 40_000,
    unchanged: await run(0, 1),
    changing: await run(0.05, 2),
  };
}

const pct = (n: number) => `${Math.round(n * 1000) / 10} %`;

/** Part 3 as markdown (its own section of docs/benchmarks.md). */
export function refreshSection(r: RefreshBench, heading: string): string[] {
  const row = (k: number) => {
    const u = r.unchanged.rounds[k - 1];
    const c = r.changing.rounds[k - 1];
    return `| ${k} | ${u.requests} (${u.notModified} × 304) | ${c.requests} (${c.notModified} × 304) | ${pct(c.fresh)} |`;
  };
  const total = (run: RefreshRun) => run.rounds.reduce((s, x) => s + x.requests, 0);
  const fresh = r.changing.rounds.map((x) => x.fresh);
  return [
    heading,
    '',
    `One site of ${r.pages} pages ('/' links to every page; an unchanged page answers its ETag with a 304), crawled once, then refreshed ` +
      `${r.unchanged.rounds.length} times with CRAWL_REFRESH=${r.refreshMs / 1000}s and CRAWL_REVISIT_MAX=${r.revisitMaxMs / 1000}s ` +
      "(eight periods, as the default 60 days are about eight weekly refreshes). Requests are counted in the site's own log; " +
      'before this change every refresh asked for every page: 500 requests each.',
    '',
    '| refresh | requests, site that never changes | requests, site where 5 % of pages change before each refresh | fresh pages after the refresh (5 % site) |',
    '|---:|---:|---:|---:|',
    ...r.unchanged.rounds.map((x) => row(x.refresh)),
    '',
    `Over the ${r.unchanged.rounds.length} refreshes: ${total(r.unchanged)} requests to the unchanged site and ${total(r.changing)} to the 5 % site, ` +
      `against ${r.unchanged.rounds.length * r.pages} before. The 5 % site's index was ${pct(Math.min(...fresh))} to ${pct(Math.max(...fresh))} fresh ` +
      `right after a refresh (mean ${pct(fresh.reduce((s, x) => s + x, 0) / fresh.length)}); asking for every page each time keeps it at 100 % for ` +
      `${r.pages} requests a refresh. A page left alone for n refreshes has changed with a chance of 1 − 0.95^n; CRAWL_REVISIT_MAX ` +
      'bounds n, and so how stale a page can get.',
  ];
}
