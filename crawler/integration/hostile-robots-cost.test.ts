/**
 * robots.txt files built to cost the crawler primary as much as they can (test-support/costly-robots.ts),
 * each within the 500 KiB a crawler must read and each beside long links (2,000-character paths), served
 * through the real cluster beside a healthy site. The healthy site's crawl goes on while the costly hosts
 * are being judged, shown by the order of events, not by how late a request was (a loaded machine makes
 * everything late): as each healthy request comes in, the site notes how many of the near-budget host's
 * links had been judged, and a few of its requests are answered only once that count has grown (the
 * host's next turn came while the healthy request was open), so the count grows between healthy requests
 * again and again. A primary that judged all those links in one go would never grow it again. Files
 * whose checks stay within the budget are obeyed; those whose checks pass it make their host
 * `robots-unusable` in Domains, backed off, asking robots.txt again after the backoff and fetching nothing
 * else until a later file gives usable rules. A restart on the same stored rules keeps all of it so.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  startTestWeb,
  generateSite,
  generatedDepth,
  politenessReport,
  waitFor,
  type RequestRecord,
  type TestSite,
  type TestWeb,
} from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { heldSite } from '../../test-support/held-site.ts';
import { COSTLY_ROBOTS, longPaths } from '../../test-support/costly-robots.ts';
import { crawlWorkerPids } from '../../test-support/hostile-pages.ts';
import { sampleMemory, type MemorySampler } from '../../test-support/memory-sampler.ts';
import { BACKOFF } from '../politeness/backoff.ts';
import { ROBOTS_COST } from '../politeness/robots.ts';
import type { DomainInfo } from '../common/protocol.ts';

const DELAY_MS = 100;
const HEALTHY_PAGES = 40;
/**
 * The healthy site's page requests answered only once the near-budget host's count of judged links has
 * grown past what it was when they came in: judged a turn at a time, the count grows between healthy
 * requests at least this often. All of its links judged in one go would leave nothing to grow.
 */
const HELD_REQUESTS = [10, 20, 30];
/** Disallowed long links the host of the near-budget file gets: without turns their checks would hold the loop in one go. */
const NEAR_BUDGET_LINKS = 1000;
/** The near-budget host's Crawl-delay, in seconds: its links become due while the healthy site is crawled. */
const NEAR_BUDGET_DELAY_S = 2;
/** The peak memory any crawl worker or the primary may reach over the file, as for the other hostile sites. */
const RSS_BOUND_MiB = 250;

/** A page of plain links (each link once: a long path is 2,000 characters). */
const linkPage = (paths: readonly string[]) =>
  `<!doctype html><title>Links</title>${paths.map((p) => `<a href="${p}">x</a>`).join('')}`;

/** How long after it was due (the previous request's end plus the delay) the latest request of `log` started, and which. */
function latest(log: readonly RequestRecord[]): { ms: number; which: string } {
  const sorted = [...log].sort((a, b) => a.start - b.start);
  let worst = { ms: 0, which: 'none' };
  for (let i = 1; i < sorted.length; i++) {
    const ms = sorted[i].start - sorted[i - 1].end - DELAY_MS;
    if (ms > worst.ms)
      worst = { ms, which: `${sorted[i].path}, ${Math.round(sorted[i].start - sorted[0].start)} ms into the crawl` };
  }
  return worst;
}

describe('costly robots.txt files through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let memory: MemorySampler;
  let healthy: TestSite;
  let again: TestSite;
  const costly = new Map<string, TestSite>();
  /** The near-budget host's judged (skipped) links as each healthy page request came in, in order. */
  const judgedAtHealthy: number[] = [];
  /** The held healthy requests' waits (a failed wait says why the healthy crawl stalled). */
  const holds: Promise<unknown>[] = [];
  /** The long links each costly site's home page has, and those of its /more page (seeded after the restart). */
  const links = new Map<string, { home: string[]; more: string[] }>();
  /**
   * The files of the issue (costly-robots.ts), and rules just under the check budget. The other costly
   * files (nested prefixes, quadratic-search segments) are unusable for the same reason as `distinct`; the
   * matcher's tests and the benchmark cover them.
   */
  const sites = ['stars', 'repeated', 'single', 'distinct', 'near-budget'] as const;

  const site = (name: (typeof sites)[number]) => costly.get(name)!;

  before(async () => {
    const plan = {
      stars: { home: longPaths('/a/', 60), more: longPaths('/a/more/', 30) },
      repeated: { home: longPaths('/a/', 60), more: longPaths('/a/more/', 30) },
      single: { home: longPaths('/a/', 60), more: longPaths('/a/more/', 30) },
      distinct: { home: longPaths('/b/', 10, 'b'), more: [] },
      'near-budget': { home: longPaths('/p/', NEAR_BUDGET_LINKS), more: [] },
    };
    web = await startTestWeb([
      // Each request notes how many of the near-budget host's links were judged by then; a few wait for more.
      heldSite(generateSite({ pages: HEALTHY_PAGES, prefix: 'healthy' }), (_path, n) => {
        const judged = () => crawler.states(site('near-budget').origin).skipped ?? 0;
        const now = judged();
        judgedAtHealthy.push(now);
        if (!HELD_REQUESTS.includes(n)) return undefined;
        const grown = waitFor(() => judged() > now, {
          timeoutMs: 30_000,
          message: `the near-budget host's next turn of judging (${now} of its links judged when healthy request #${n} came in)`,
        });
        holds.push(grown);
        return grown;
      }),
      generateSite({ pages: HEALTHY_PAGES, prefix: 'after-restart' }),
      ...sites.map((name) => ({
        // The near-budget host's Crawl-delay spaces its turns, so that its links are judged all along the healthy crawl.
        robots: COSTLY_ROBOTS[name].body() + (name === 'near-budget' ? `Crawl-delay: ${NEAR_BUDGET_DELAY_S}\n` : ''),
        pages: {
          '/': linkPage([...plan[name].home, '/ok']),
          '/ok': '<title>ok</title>',
          '/more': linkPage(plan[name].more),
        },
      })),
    ]);
    [healthy, again] = web.sites;
    sites.forEach((name, i) => {
      costly.set(name, web.sites[2 + i]);
      links.set(name, plan[name]);
    });
    // No pacing: a held answer's time would otherwise stretch the healthy site's delays fivefold.
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_PACING_FACTOR: '0' });
    memory = sampleMemory(() => [
      ...crawlWorkerPids(crawler),
      ...(crawler.primary.pid === undefined ? [] : [crawler.primary.pid]),
    ]);
    // The near-budget host's page of long links is read first: a worker parsing a page of megabytes holds
    // that worker's other fetches (a cost of big pages, measured in hostile-traps), which is not what this
    // file is about. Its links are then judged while everything else happens.
    crawler.addSeed(site('near-budget').url('/'), { depth: 1 });
    await waitFor(() => (crawler.states(site('near-budget').origin).queued ?? 0) >= NEAR_BUDGET_LINKS / 2, {
      timeoutMs: 30_000,
      message: "the near-budget host's links queued",
    });
    crawler.addSeed(healthy.url('/'), { depth: generatedDepth(HEALTHY_PAGES) });
    for (const name of sites) if (name !== 'near-budget') crawler.addSeed(site(name).url('/'), { depth: 1 });
  });

  after(async () => {
    memory?.stop();
    await crawler?.close();
    await web?.close();
  });

  const states = (name: (typeof sites)[number]) => crawler.states(site(name).origin);
  /** Every row the primary's snapshots showed for `host`, oldest first. */
  const rows = (host: string): DomainInfo[] =>
    crawler.messages.flatMap((m) => (m.type === 'snapshot' ? m.domains.filter((d) => d.host === host) : []));

  test("meanwhile: the healthy site is crawled politely, between the near-budget host's turns of judging", async () => {
    await Promise.all([
      crawler.waitIdle({ origin: healthy.origin, minDone: HEALTHY_PAGES, timeoutMs: 120_000 }),
      ...holds,
    ]);
    await Promise.all(holds); // every one of them, also those that came in during the wait above
    assert.equal(holds.length, HELD_REQUESTS.length, 'every held request came in');
    assert.equal(healthy.log.length, HEALTHY_PAGES + 1, 'robots.txt and every page, once');
    assert.deepEqual(politenessReport(healthy.log, DELAY_MS).violations, [], 'never closer than the delay');
    const worst = latest(healthy.log);
    const steps = judgedAtHealthy.filter((n, i) => i > 0 && n > judgedAtHealthy[i - 1]).length;
    console.log(
      `# hostile-robots-cost: latest healthy request ${Math.round(worst.ms)} ms after it was due (${worst.which}); the near-budget host's judged links grew between healthy requests ${steps} times (${judgedAtHealthy.join(' ')})`,
    );
    // Judged a turn at a time, the healthy requests in between: all its links checked at once would have held the
    // primary until every one was judged, and the count would have grown once.
    assert.ok(
      steps >= HELD_REQUESTS.length,
      `the near-budget host's judged links grew between healthy requests ${steps} times, at least ${HELD_REQUESTS.length} (judged as each healthy request came in: ${judgedAtHealthy.join(' ')})`,
    );
    const near = states('near-budget');
    assert.ok(
      (near.skipped ?? 0) > 0 && (near.queued ?? 0) > 0,
      `the near-budget host's links were still being judged all along (${JSON.stringify(near)})`,
    );
  });

  test('costly files whose checks fit the budget are obeyed: long links disallowed, the rest fetched', async () => {
    for (const name of ['stars', 'repeated', 'single'] as const) {
      await crawler.waitIdle({ origin: site(name).origin, minDone: 62, timeoutMs: 30_000 });
      assert.deepEqual(
        site(name)
          .log.map((r) => r.path)
          .sort(),
        ['/', '/ok', '/robots.txt'],
        `${name}: only robots.txt, / and /ok requested`,
      );
      for (const path of links.get(name)!.home.slice(0, 3)) {
        const row = crawler.frontier(site(name).url(path));
        assert.deepEqual([row?.state, row?.lastError], ['skipped', 'disallowed by robots.txt'], name);
      }
      assert.equal(crawler.domain(site(name).host)?.robots.status, 'ok', name);
    }
  });

  test(`a file whose checks pass ${ROBOTS_COST.checkSteps.toLocaleString('en-US')} steps: the host is marked unusable and backed off in Domains, asks robots.txt again after the backoff, and is crawled once it gives usable rules`, async () => {
    const distinct = site('distinct');
    const row = await waitFor(() => rows(distinct.host).find((d) => d.state === 'robots-unusable'), {
      timeoutMs: 20_000,
      message: 'a row marked robots-unusable',
    });
    assert.equal(row.robots.status, 'unusable');
    assert.notEqual(row.backoffUntil, null, 'backed off');
    assert.match(
      row.stateText,
      /^robots\.txt unusable \(robots: its 25,000 rules for this crawler take more than [\d,]+ steps to check one URL \(http:\/\/127\.[\d.:]+\/b\/b+…\); they are too costly to use\); nothing fetched until a later robots\.txt gives usable rules, asked again at \d\d:\d\d:\d\d UTC$/,
    );
    assert.deepEqual(
      distinct.log.filter((r) => r.path !== '/robots.txt').map((r) => r.path),
      ['/'],
      'no long link fetched',
    );
    assert.equal(
      crawler.frontier(distinct.url(links.get('distinct')!.home[0]))?.state,
      'queued',
      'its links wait, not lost',
    );
    // Its next robots.txt gives usable rules: asked again only after the backoff, then its links are fetched.
    distinct.setRobots('User-agent: *\nDisallow: /nothing\n');
    await waitFor(() => distinct.requestsTo('/robots.txt').length >= 2, {
      timeoutMs: BACKOFF.firstMs + 20_000,
      message: 'robots.txt asked again',
    });
    const home = distinct.log.find((r) => r.path === '/')!;
    const second = distinct.requestsTo('/robots.txt')[1];
    assert.ok(
      second.start - home.end >= BACKOFF.firstMs,
      `asked again ${Math.round(second.start - home.end)} ms after its home page, past the ${BACKOFF.firstMs} ms backoff`,
    );
    await crawler.waitIdle({ origin: distinct.origin, minDone: 12, timeoutMs: 30_000 });
    assert.equal(crawler.domain(distinct.host)?.robots.status, 'ok');
    assert.equal(
      distinct.log.filter((r) => r.path.startsWith('/b/')).length,
      links.get('distinct')!.home.length,
      'its links fetched once the rules are usable',
    );
  });

  test('a restart reads the same stored rules: robots.txt not asked again, new long links judged, another healthy site crawled politely', async () => {
    const robotsBefore = new Map(sites.map((name) => [name, site(name).requestsTo('/robots.txt').length]));
    await crawler.kill();
    await crawler.restart();
    for (const name of ['stars', 'repeated', 'single'] as const) crawler.addSeed(site(name).url('/more'), { depth: 1 });
    crawler.addSeed(again.url('/'), { depth: generatedDepth(HEALTHY_PAGES) });
    await crawler.waitIdle({ origin: again.origin, minDone: HEALTHY_PAGES, timeoutMs: 60_000 });
    assert.deepEqual(politenessReport(again.log, DELAY_MS).violations, []);
    const worst = latest(again.log);
    // A figure, not a verdict: how late a request is depends on the machine's load.
    console.log(
      `# hostile-robots-cost: after the restart, latest healthy request ${Math.round(worst.ms)} ms after it was due (${worst.which})`,
    );
    for (const name of ['stars', 'repeated', 'single'] as const) {
      await crawler.waitIdle({ origin: site(name).origin, minDone: 62 + 31, timeoutMs: 30_000 });
      assert.equal(
        site(name).requestsTo('/robots.txt').length,
        robotsBefore.get(name),
        `${name}: its stored rules were used`,
      );
      assert.equal(
        crawler.frontier(site(name).url(links.get(name)!.more[0]))?.state,
        'skipped',
        `${name}: a new long link judged by them`,
      );
    }
    assert.equal(crawler.primary.exitCode, null, 'the restarted primary runs');
    const mem = memory.stop();
    console.log(
      `# hostile-robots-cost: peak RSS of the workers and the primary ${mem.peakRssMiB} MiB (VmHWM ${mem.peakHwmMiB} MiB) over ${mem.samples} samples`,
    );
    assert.ok(mem.samples > 3);
    assert.ok(mem.peakHwmMiB < RSS_BOUND_MiB, `peak memory ${mem.peakHwmMiB} MiB stays under ${RSS_BOUND_MiB} MiB`);
  });
});
