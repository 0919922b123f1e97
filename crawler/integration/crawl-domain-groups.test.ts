/**
 * One politeness clock per registrable domain, through the real cluster and judged from the sites' own
 * request logs: four names of one domain on one server (virtual hosts, reached through CRAWL_RESOLVE)
 * never get two requests at once and keep the delay between any two of them, while each name keeps its
 * own robots.txt; another domain on the same address is crawled meanwhile. With
 * CRAWL_POLITENESS_GROUP=host (one clock per host, the old rule) the same names are asked at once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateSite, politenessReport, startNamedWeb, type SiteSpec } from '../../test-support/test-web.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';

const DELAY_MS = 150;
const PAGES = 4;

function siteDotTest(): Array<Record<string, SiteSpec>> {
  return [
    {
      'www.site.test': generateSite({ pages: PAGES, prefix: 'www' }),
      'docs.site.test': generateSite({ pages: PAGES, prefix: 'docs' }),
      'blog.site.test': generateSite({ pages: PAGES, prefix: 'blog' }),
      'wiki.site.test': {
        robots: 'User-agent: *\nDisallow: /\n',
        pages: { '/': '<title>Wiki</title><a href="/a">a</a>' },
      },
      'other.test': generateSite({ pages: PAGES, prefix: 'other' }),
    },
  ];
}

test('four names of site.test on one server: one request at a time across them, the delay between any two; other.test meanwhile', {
  timeout: 60_000,
}, async () => {
  const web = await startNamedWeb(siteDotTest());
  const crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_RESOLVE: web.resolve });
  try {
    for (const site of web.sites) crawler.addSeed(site.url('/'), { depth: 1 });
    await crawler.waitIdle({ minDone: 4 * PAGES + 1, timeoutMs: 40_000 });
    const [www, docs, blog, wiki, other] = web.sites;
    const group = [www, docs, blog, wiki];

    const report = politenessReport(
      group.flatMap((s) => s.log),
      DELAY_MS,
    );
    assert.equal(report.maxInFlight, 1, 'one request at a time to the whole domain');
    assert.deepEqual(
      report.violations.map((v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`),
      [],
      `gaps below ${DELAY_MS} ms across the names`,
    );
    // Each name keeps its own robots.txt: asked first on each, and wiki's Disallow holds wiki only.
    for (const site of group) assert.equal(site.log[0].path, '/robots.txt', `${site.host}: robots.txt first`);
    for (const site of [www, docs, blog])
      assert.equal(site.log.length, 1 + PAGES, `${site.host}: robots.txt and every page`);
    assert.deepEqual(
      wiki.log.map((r) => r.path),
      ['/robots.txt'],
      'wiki.site.test disallows everything: only its robots.txt',
    );
    assert.equal(crawler.frontier(wiki.url('/'))?.state, 'skipped');
    // other.test is a domain of its own on the same address: crawled while site.test was, not after it.
    const groupStart = Math.min(...group.map((s) => s.log[0].start));
    const groupEnd = Math.max(...group.flatMap((s) => s.log.map((r) => r.end)));
    assert.ok(
      other.log.some((r) => r.start > groupStart && r.start < groupEnd),
      'other.test was crawled meanwhile, on its own clock',
    );

    // Domains shows each name under its group, with the group's clock.
    await waitFor(() => crawler.domain(docs.host)?.group.hosts === 4, { message: 'a snapshot with the group of four' });
    const row = crawler.domain(docs.host)!;
    assert.equal(row.group.name, 'site.test');
    assert.equal(crawler.domain(other.host)!.group.name, 'other.test');
    assert.equal(crawler.domain(other.host)!.group.hosts, 1);
    assert.equal(
      row.group.lastFetchAt,
      [www, docs, blog, wiki]
        .map((s) => crawler.domain(s.host)!.lastFetchAt!)
        .sort()
        .at(-1),
      "the group's last fetch is its latest host's",
    );
  } finally {
    await crawler.close();
    await web.close();
  }
});

test('CRAWL_POLITENESS_GROUP=host keeps one clock per host: the same names are asked at once', {
  timeout: 60_000,
}, async () => {
  const web = await startNamedWeb(siteDotTest());
  const crawler = startCrawler({
    CRAWL_WORKERS: '2',
    CRAWL_DELAY_MS: String(DELAY_MS),
    CRAWL_RESOLVE: web.resolve,
    CRAWL_POLITENESS_GROUP: 'host',
  });
  try {
    for (const site of web.sites) crawler.addSeed(site.url('/'), { depth: 1 });
    await crawler.waitIdle({ minDone: 4 * PAGES + 1, timeoutMs: 40_000 });
    const group = web.sites.slice(0, 4);
    for (const site of group)
      assert.deepEqual(politenessReport(site.log, DELAY_MS).violations, [], `${site.host} alone is spaced`);
    const report = politenessReport(
      group.flatMap((s) => s.log),
      DELAY_MS,
    );
    assert.ok(
      report.violations.length > 0,
      'across the names, requests came closer than the delay (one clock per host)',
    );
    await waitFor(() => crawler.domain(group[1].host) !== undefined, { message: 'a snapshot' });
    assert.equal(crawler.domain(group[1].host)!.group.name, group[1].origin, 'each host is its own group');
  } finally {
    await crawler.close();
    await web.close();
  }
});
