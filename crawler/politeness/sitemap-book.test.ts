/**
 * The sitemap jobs (SitemapBook) over a real Scheduler and a real SQLite file: each sitemap a host lists
 * is queued once until it is over, only of the host's own origin and at most SITEMAPS_PER_FILE a file,
 * and stored until it is done so that a book started on the same file reads what was not.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../../db/seeds.ts';
import { sitemapJobQueries } from '../../db/sitemap-jobs.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { SitemapBook, SITEMAPS_PER_FILE } from './sitemap-book.ts';
import { Scheduler } from './scheduler.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DOCS = 'https://docs.site.example';
const NOW = 1_000_000;

let tmp: TempDatabase;
let seedId: number;
beforeEach(() => {
  tmp = tempDatabase('sitemap-book');
  seedId = seedQueries(tmp.db).upsertSeed({ url: `${DOCS}/`, origin: DOCS, depth: 1, scope: 'host' }, NOW).seed.id;
});
afterEach(() => tmp.cleanup());

/** A book whose writes run at once, as if each were its own batch. */
function book(scheduler: Scheduler<CrawlJob>): SitemapBook {
  const jobs = sitemapJobQueries(tmp.db);
  return new SitemapBook(scheduler, (w) => {
    if (w.kind === 'remember-sitemap') jobs.rememberSitemapJob(w.job);
    else if (w.kind === 'forget-sitemap') jobs.forgetSitemapJob(w.url);
    else if (w.kind === 'sitemap-validators') jobs.rememberSitemapValidators(w.url, w.read);
  });
}

/** The URLs the scheduler releases for `origin`, in order, each request ended at once. */
function drain(scheduler: Scheduler<CrawlJob>): string[] {
  const urls: string[] = [];
  for (let d = scheduler.next(NOW); d; d = scheduler.next(NOW)) {
    urls.push(d.job.url);
    scheduler.complete(d.origin, NOW);
  }
  return urls;
}

const stored = (): string[] =>
  sitemapJobQueries(tmp.db)
    .pendingSitemapJobs()
    .map((j) => j.url);

test('a sitemap listed twice, or again before it is done, is queued and stored once; another origin not at all', () => {
  const scheduler = new Scheduler<CrawlJob>(0);
  const sitemaps = book(scheduler);
  const [a, b] = [`${DOCS}/a.xml`, `${DOCS}/b.xml`];
  sitemaps.queueSitemaps(DOCS, [a, a, 'https://other.example/c.xml', b], 0, seedId);
  sitemaps.queueSitemaps(DOCS, [a], 0, seedId); // a robots.txt refresh lists it again
  assert.deepEqual(stored(), [a, b]);
  assert.deepEqual(drain(scheduler), [a, b]);

  sitemaps.sitemapDone(a);
  assert.deepEqual(stored(), [b], 'a job over is forgotten');
  sitemaps.sitemapReturned(b);
  assert.deepEqual(stored(), [b], 'a job returned at a stop stays stored');
  sitemaps.queueSitemaps(DOCS, [a, b], 0, seedId);
  assert.deepEqual(drain(scheduler), [a, b], 'either may be queued again');
});

test('at most SITEMAPS_PER_FILE of one file are taken, and a new book queues again what was stored', () => {
  const urls = Array.from({ length: SITEMAPS_PER_FILE + 5 }, (_, i) => `${DOCS}/s${i}.xml`);
  book(new Scheduler<CrawlJob>(0)).queueSitemaps(DOCS, urls, 1, seedId, 2);
  assert.deepEqual(stored(), urls.slice(0, SITEMAPS_PER_FILE));

  const scheduler = new Scheduler<CrawlJob>(0);
  const restarted = book(scheduler);
  for (const job of sitemapJobQueries(tmp.db).pendingSitemapJobs()) restarted.addSitemapJob(job);
  const first = scheduler.next(NOW)!;
  assert.deepEqual(
    [first.job.kind, first.job.url, first.job.hops, first.job.seedId, first.job.redirects, first.job.forOrigin],
    ['sitemap', urls[0], 1, seedId, 2, DOCS],
  );
  scheduler.complete(first.origin, NOW);
  assert.equal(drain(scheduler).length, SITEMAPS_PER_FILE - 1);
  restarted.queueSitemaps(DOCS, [urls[0]], 1, seedId);
  assert.deepEqual(drain(scheduler), [], 'a restored job counts as queued');
});
