/**
 * Result judging (result-judge.ts) on real parts (seed book, hosts' book and window over a real SQLite
 * file): what a result means is returned as data (host decisions and write intents) and nothing is changed
 * by judging; a result that raced its seed's removal stores and follows nothing.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';
import { Scheduler } from '../politeness/scheduler.ts';
import { HostBook } from '../politeness/host-book.ts';
import { SeedBook } from '../frontier/seed-book.ts';
import { FrontierWindow } from '../frontier/frontier-window.ts';
import { storeWindowSource } from '../frontier/store-window-source.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { fetchResult, parsedPage } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import { ResultJudge } from './result-judge.ts';

const ORIGIN = 'https://site.example';
const OTHER = 'https://other.example';
const NOW = 50_000;
/** A connection reset, as a worker reports it: worth another attempt. */
const RESET = { kind: 'retryable' as const, code: 'ECONNRESET', message: 'the connection was reset' };

let tmp: TempDatabase;
beforeEach(async () => {
  tmp = tempDatabase('result-judge');
});
afterEach(() => tmp.cleanup());

/** A judge over seed 1 (depth 2, on ORIGIN, live) and seed 2 (removed while its jobs were in flight). */
function setUp() {
  const seeds = new SeedBook();
  const row = (id: number, removedAt: number | null, updatedAt = 1000) => ({
    id,
    url: `${ORIGIN}/`,
    origin: ORIGIN,
    depth: 2,
    scope: 'host' as const,
    updatedAt,
    removedAt,
  });
  seeds.apply([row(1, null), row(2, null)]);
  seeds.apply([row(2, 1001, 1001)]);
  const scheduler = new Scheduler<CrawlJob>(100);
  const queued: unknown[] = [];
  const hosts = new HostBook(scheduler, 'LanternBot/test', (w) => queued.push(w));
  hosts.see(ORIGIN);
  const window = new FrontierWindow({
    scheduler,
    isLive: (id) => seeds.get(id) !== undefined,
    source: storeWindowSource(sqliteCrawlStore(tmp.db)),
  });
  const judge = new ResultJudge({ allowPrivate: false, maxUrlsPerHost: 1000, seeds, hosts, scheduler, window });
  return { judge, hosts, queued };
}

/** A page job of seed `seedId` at ORIGIN/`path`. */
function pageJob(seedId: number, path = '/', attempts = 0): CrawlJob {
  return {
    notBefore: 0,
    kind: 'page',
    url: `${ORIGIN}${path}`,
    frontierId: 9,
    seedId,
    depth: 0,
    attempts,
    redirects: 0,
    forOrigin: ORIGIN,
    hops: 0,
  };
}

test('a page is judged into data: stored, finished, its links queued one step deeper; nothing changes meanwhile', async () => {
  const { judge, hosts, queued } = setUp();
  const queuedBefore = queued.length;
  const parsed = parsedPage(`${ORIGIN}/`, [`${ORIGIN}/a`, `${OTHER}/b`]);
  const j = judge.judge(pageJob(1), ORIGIN, fetchResult(1, { page: parsed }), NOW, false);
  assert.deepEqual(j.now, [
    { kind: 'host-answered', origin: ORIGIN },
    { kind: 'host-fetched', origin: ORIGIN },
  ]);
  assert.deepEqual(
    j.writes.map((w) => w.kind),
    ['store-page', 'finish-url', 'enqueue'],
  );
  assert.deepEqual(j.writes[2], {
    kind: 'enqueue',
    urls: [`${ORIGIN}/a`],
    seedId: 1,
    depth: 1,
    from: ORIGIN,
    at: NOW,
  });
  assert.equal(j.urgent, false, 'its host has robots.txt queued: the batch waits for the flush timer');
  assert.equal(hosts.known(ORIGIN)?.fetchedCount, 0, 'judging counted nothing: the applier does');
  assert.equal(queued.length, queuedBefore, 'and queued no write');
  assert.equal(
    hosts.known(OTHER),
    undefined,
    'a host a link names is not created by judging (nor followed: scope host)',
  );
});

test('a page to store is judged into its row as data: the store-page intent holds the record the batch writes', async () => {
  const { judge } = setUp();
  const anchors = [{ url: `${ORIGIN}/a`, text: 'the a page' }];
  const parsed = parsedPage(`${ORIGIN}/`, [`${ORIGIN}/a`], { title: 'Home', text: 'words', anchors });
  const j = judge.judge(pageJob(1), ORIGIN, fetchResult(1, { page: parsed, etag: '"v1"' }), NOW, false);
  const store = j.writes.find((w) => w.kind === 'store-page');
  assert.ok(store && store.kind === 'store-page', 'a store-page intent');
  assert.deepEqual(
    {
      url: store.record.url,
      origin: store.record.origin,
      host: store.record.host,
      seedId: store.record.seedId,
      status: store.record.status,
      title: store.record.title,
      body: store.record.body,
      etag: store.record.etag,
      indexed: store.record.indexed,
    },
    {
      url: `${ORIGIN}/`,
      origin: ORIGIN,
      host: 'site.example',
      seedId: 1,
      status: 200,
      title: 'Home',
      body: 'words',
      etag: '"v1"',
      indexed: true,
    },
  );
  assert.deepEqual(store.anchors, anchors, "its links' anchors, for the link targets");
});

test('a result that raced its seed removal stores and follows nothing: its host only learns from the answer', async () => {
  const { judge } = setUp();
  const parsed = parsedPage(`${ORIGIN}/`, [`${ORIGIN}/a`]);
  const stored = judge.judge(pageJob(2), ORIGIN, fetchResult(1, { page: parsed }), NOW, false);
  assert.deepEqual({ ...stored }, { now: [{ kind: 'host-answered', origin: ORIGIN }], writes: [], urgent: false });

  const busy = judge.judge(pageJob(2), ORIGIN, fetchResult(2, { status: 429, retryAfterMs: 5000 }), NOW, false);
  assert.equal(busy.now.length, 1);
  assert.equal(busy.now[0].kind, 'host-failed', 'a 429 still backs the host off');
  assert.equal(busy.now[0].kind === 'host-failed' && busy.now[0].retry, undefined, 'but the page is not tried again');
  assert.deepEqual(busy.writes, []);

  const sitemap = { ...pageJob(2, '/sitemap.xml'), kind: 'sitemap' as const, frontierId: 0 };
  const entries = { index: false, urls: [`${ORIGIN}/x`], dropped: 0 };
  const read = judge.judge(sitemap, ORIGIN, fetchResult(3, { sitemap: entries }), NOW, false);
  assert.deepEqual(read.now, [
    { kind: 'sitemap-done', url: `${ORIGIN}/sitemap.xml` },
    { kind: 'host-answered', origin: ORIGIN },
  ]);
  assert.deepEqual(read.writes, [], "a removed seed's sitemap queues none of its pages");
});

test('a page that failed is retried with its next attempt, and failed for good at the last one', async () => {
  const { judge } = setUp();
  const first = judge.judge(pageJob(1), ORIGIN, fetchResult(1, { status: null, error: RESET }), NOW, false);
  const d = first.now[0];
  assert.equal(d.kind, 'host-failed');
  assert.equal(d.kind === 'host-failed' && d.retry?.attempts, 1);
  assert.deepEqual(first.writes, [], 'the retry is written once its time is known (after the host backoff)');

  const last = judge.judge(pageJob(1, '/', 99), ORIGIN, fetchResult(1, { status: null, error: RESET }), NOW, false);
  assert.equal(last.now[0].kind === 'host-failed' && last.now[0].retry, undefined);
  assert.deepEqual(
    last.writes.map((w) => w.kind === 'finish-url' && w.state),
    ['failed'],
  );
});
