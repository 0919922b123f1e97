/**
 * The robots.txt side of the host book (RobotsBook) over a real Scheduler, a real SQLite file and an
 * injected clock: a host's pages wait for its robots.txt, whose rules then judge each page (what they
 * disallow counted); a failing robots.txt backs the host off until it is asked again; a redirected one is
 * fetched as a job of its target host and its rules apply to the host that asked.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { hostQueries, newHostRow, type HostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { BACKOFF } from './backoff.ts';
import { HostBackoff } from './host-backoff.ts';
import { ROBOTS_CACHE_MS, type RobotsRules } from './robots.ts';
import { RobotsBook } from './robots-book.ts';
import { Scheduler } from './scheduler.ts';
import { fetchResult } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DOCS = 'https://docs.site.example';
const CDN = 'https://cdn.site.example';
const NOW = 1_000_000;
const USER_AGENT = 'LanternBot/1.0 (+personal search engine)';

let tmp: TempDatabase;
beforeEach(() => {
  tmp = tempDatabase('robots-book');
});
afterEach(() => tmp.cleanup());

/** A RobotsBook with the rows, saves and backoff a HostBook would lend it, and its writes run at once. */
function setUp() {
  const scheduler = new Scheduler<CrawlJob>(0);
  const rows = new Map<string, HostRow>();
  const saved: string[] = [];
  const row = (origin: string): HostRow => {
    if (!rows.has(origin)) rows.set(origin, newHostRow(origin, new URL(origin).host));
    return rows.get(origin)!;
  };
  const lent = { row, known: (origin: string) => rows.get(origin), save: (origin: string) => saved.push(origin) };
  const hosts = hostQueries(tmp.db);
  const book = new RobotsBook(
    lent,
    new Map<string, RobotsRules>(),
    new HostBackoff(scheduler),
    scheduler,
    USER_AGENT,
    (w) => {
      if (w.kind === 'save-robots') hosts.saveRobotsFile(w.origin, w.body, w.rules);
    },
  );
  return { scheduler, book, row, saved };
}

/** The next job the scheduler releases at `at`, its request ended at once. */
function take(scheduler: Scheduler<CrawlJob>, at: number): CrawlJob | undefined {
  const d = scheduler.next(at);
  if (d) scheduler.complete(d.origin, at);
  return d?.job;
}

test('pages wait for robots.txt; its rules then judge each page, and what they disallow is counted', () => {
  const { scheduler, book, row, saved } = setUp();
  book.needRobots(DOCS, 0);
  assert.equal(scheduler.host(DOCS).paused, true, 'its pages are held until its rules are known');
  const robots = take(scheduler, NOW)!;
  assert.deepEqual([robots.kind, robots.url, robots.forOrigin], ['robots', `${DOCS}/robots.txt`, DOCS]);
  const body = `User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: ${DOCS}/sitemap.xml\n`;
  const sitemaps = book.onRobots(robots, fetchResult(0, { status: 200, robotsBody: body, etag: '"v1"' }), NOW);

  assert.deepEqual(sitemaps, [`${DOCS}/sitemap.xml`]);
  assert.deepEqual(book.sitemapsOf(DOCS), [`${DOCS}/sitemap.xml`]);
  assert.deepEqual(
    [row(DOCS).robotsStatus, row(DOCS).robotsExpiresAt, row(DOCS).crawlDelayMs],
    ['ok', NOW + ROBOTS_CACHE_MS, 2000],
  );
  assert.equal(scheduler.host(DOCS).paused, false);
  assert.equal(book.robotsVerdict(DOCS, `${DOCS}/a`, NOW), 'allowed');
  assert.equal(book.robotsVerdict(DOCS, `${DOCS}/private/b`, NOW), 'disallowed');
  assert.equal(book.robotsVerdict(DOCS, `${DOCS}/private/c`, NOW), 'disallowed');
  assert.equal(book.skipped(DOCS), 2);
  assert.equal(book.robotsVerdict(DOCS, `${DOCS}/a`, NOW + ROBOTS_CACHE_MS), 'expired');
  assert.deepEqual(book.robotsValidators(robots), { etag: '"v1"', lastModified: null }, 'a refresh asks conditionally');
  assert.deepEqual(saved, [], 'the caller saves the host its own robots.txt answered for');
});

test('a robots.txt that fails holds the host and is asked again after the backoff; a good answer ends it', () => {
  const { scheduler, book, row } = setUp();
  book.needRobots(DOCS, 0);
  const first = take(scheduler, NOW)!;
  assert.deepEqual(book.onRobots(first, fetchResult(0, { status: 503 }), NOW), []);
  assert.deepEqual(
    [row(DOCS).robotsStatus, row(DOCS).lastError, row(DOCS).backoffUntil, row(DOCS).backoffReason],
    ['unreachable', 'robots.txt answered HTTP 503', NOW + BACKOFF.firstMs, 'robots.txt HTTP 503'],
  );
  assert.equal(take(scheduler, NOW + BACKOFF.firstMs - 1), undefined, 'nothing before the backoff ends');
  const again = take(scheduler, NOW + BACKOFF.firstMs)!;
  assert.deepEqual([again.kind, again.url], ['robots', `${DOCS}/robots.txt`]);
  book.onRobots(again, fetchResult(0, { status: 404 }), NOW + BACKOFF.firstMs);
  assert.deepEqual([row(DOCS).robotsStatus, row(DOCS).backoffUntil], ['allow-all', 0]);
  assert.equal(book.robotsVerdict(DOCS, `${DOCS}/private`, NOW + BACKOFF.firstMs), 'allowed');
});

test("a redirected robots.txt is fetched as its target host's job; its rules apply to the host that asked", () => {
  const { scheduler, book, row, saved } = setUp();
  book.needRobots(DOCS, 0);
  const first = take(scheduler, NOW)!;
  const moved = fetchResult(0, { status: 301, location: `${CDN}/docs-robots.txt`, etag: '"x"' });
  assert.deepEqual(book.onRobots(first, moved, NOW), []);
  assert.equal(row(DOCS).robotsStatus, 'pending', 'still unknown');
  const hop = take(scheduler, NOW)!;
  assert.deepEqual([hop.url, hop.forOrigin, hop.hops], [`${CDN}/docs-robots.txt`, DOCS, 1]);
  assert.equal(book.robotsValidators(hop), undefined, 'a hop to another file is never conditional');
  book.onRobots(hop, fetchResult(0, { status: 200, robotsBody: 'User-agent: *\nDisallow: /\n', etag: '"y"' }), NOW);
  assert.equal(book.robotsVerdict(DOCS, `${DOCS}/a`, NOW), 'disallowed');
  assert.deepEqual(
    [row(DOCS).robotsStatus, row(DOCS).robotsEtag],
    ['ok', null],
    "another file's validators are not kept",
  );
  assert.deepEqual(saved, [DOCS], 'the host that asked is saved here; the target by the caller');
});
