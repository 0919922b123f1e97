/**
 * The coordinator's revisits on a real SQLite file, driven by hand with a clock of its own: a periodic
 * refresh asks only for the pages due (plus the seed's page and its sitemap), a sitemap `<lastmod>` older
 * than the last request skips a page, and one newer than it brings the page back at once.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import { seedQueries } from '../../db/seeds.ts';
import type { Coordinator } from './coordinator.ts';
import type { FetchJob, FetchResult } from '../common/protocol.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import { refreshOffsetMs } from '../frontier/revisit-spread.ts';

const ORIGIN = 'https://site.example';
const WEEK = 7 * 86_400_000;
const YEAR_AGO = 10_000 - 365 * 86_400_000;
/** From one refresh to the next: the period, the site's own offset (revisit-spread.ts) and a minute of lateness. */
const CYCLE = WEEK + refreshOffsetMs(ORIGIN, WEEK) + 60_000;

describe('coordinator: revisits', () => {
  let tmp: TempDatabase;
  let db: Database;
  let coordinator: Coordinator;
  /** The sitemap's <lastmod> per path, as the site says it now. */
  let lastmod: Record<string, number>;

  beforeEach(async () => {
    tmp = tempDatabase('revisits');
    db = tmp.db;
    seedQueries(db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 1, scope: 'host' }, 1000);
    coordinator = await startCoordinator(tmp, { CRAWL_DELAY_MS: '100' }, 'test-run', 10_000);
    lastmod = { '/a': YEAR_AGO, '/b': YEAR_AGO };
  });
  afterEach(() => tmp.cleanup());

  /** What the site answers: robots.txt lists the sitemap; '/' links to /a and /b; a request with validators gets a 304. */
  function answer(job: FetchJob, t: number): FetchResult {
    const p = new URL(job.url).pathname;
    if (job.kind === 'robots')
      return fetchResult(job.jobId, {
        status: 200,
        robotsBody: `User-agent: *\nAllow: /\nSitemap: ${ORIGIN}/sitemap.xml\n`,
      });
    if (job.kind === 'sitemap') {
      const urls = Object.keys(lastmod).map((k) => `${ORIGIN}${k}`);
      return fetchResult(job.jobId, {
        sitemap: {
          index: false,
          urls,
          dropped: 0,
          lastmod: Object.fromEntries(urls.map((u) => [u, lastmod[new URL(u).pathname]])),
        },
      });
    }
    if (job.validators) return fetchResult(job.jobId, { status: 304 });
    return fetchResult(job.jobId, {
      etag: `"${p}"`,
      page: parsedPage(job.url, p === '/' ? [`${ORIGIN}/a`, `${ORIGIN}/b`] : [], {
        title: job.url,
        contentHash: `hash${p}`,
      }),
      startedAt: t,
      endedAt: t,
    });
  }

  /** Runs the crawl from `t` until nothing is left; returns the paths asked for (pages and sitemaps) and the time it ended. */
  async function crawl(t: number): Promise<{ paths: string[]; t: number }> {
    const paths: string[] = [];
    for (let i = 0; i < 100; i++) {
      await coordinator.flush(t);
      const job = coordinator.dispatch(t);
      if (!job) {
        const wake = coordinator.nextWakeAt();
        if (wake === undefined) return { paths, t };
        t = Math.max(t + 1, wake);
        continue;
      }
      if (job.kind !== 'robots') paths.push(new URL(job.url).pathname);
      coordinator.onResult(answer(job, t + 5), t + 5);
      t += 5;
    }
    throw new Error('the crawl did not end');
  }

  test('a refresh skips pages whose sitemap lastmod is older than the last request; a newer lastmod brings a page back', async () => {
    const first = await crawl(10_000);
    assert.deepEqual([...first.paths].sort(), ['/', '/a', '/b', '/sitemap.xml']);
    // A week later nothing changed, says the sitemap read at the first crawl: the refresh asks for the seed's page and
    // the sitemap only; /a and /b are skipped (and their intervals doubled, as for an unchanged visit).
    const t1 = 10_000 + CYCLE;
    assert.equal(await coordinator.refreshSeeds(t1), 1);
    const second = await crawl(t1);
    assert.deepEqual([...second.paths].sort(), ['/', '/sitemap.xml']);
    // Then /b changes, and says so in the sitemap: read at the next refresh, it brings /b back at once.
    lastmod['/b'] = second.t + 1000;
    const t2 = t1 + CYCLE;
    assert.equal(await coordinator.refreshSeeds(t2), 1);
    const third = await crawl(t2);
    assert.deepEqual([...third.paths].sort(), ['/', '/b', '/sitemap.xml'], '/a is still vouched for');
    assert.ok(
      third.paths.indexOf('/b') > third.paths.indexOf('/sitemap.xml'),
      '/b is asked for once the sitemap said it changed',
    );
  });

  test('without a sitemap lastmod, the refresh asks only for the pages due: a page unchanged at the 1st refresh waits two', async () => {
    lastmod = {}; // the sitemap lists nothing
    await crawl(10_000);
    const at = (k: number) => 10_000 + k * CYCLE;
    const asked: string[][] = [];
    for (let k = 1; k <= 4; k++) {
      assert.equal(await coordinator.refreshSeeds(at(k)), 1, `refresh ${k}`);
      asked.push((await crawl(at(k))).paths.filter((p) => p !== '/sitemap.xml').sort());
    }
    assert.deepEqual(asked, [['/', '/a', '/b'], ['/'], ['/', '/a', '/b'], ['/']]);
    const row = db
      .prepare('SELECT interval_ms AS i, unchanged_count AS u FROM revisits WHERE url = ?')
      .get(`${ORIGIN}/a`) as { i: number; u: number };
    assert.deepEqual(row, { i: 4 * WEEK, u: 2 });
  });
});
