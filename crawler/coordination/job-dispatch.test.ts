/**
 * Job dispatch (job-dispatch.ts): what becomes of each job the scheduler releases, asserted on the decision
 * it returns, and through the real Coordinator on a real SQLite file: a removed seed's jobs, its queued
 * sitemap job included, never contact the site, and a job released after its seed's removal (racing it)
 * is dropped, while a robots.txt job, which serves every seed of its host, still goes out.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../../db/seeds.ts';
import { Scheduler } from '../politeness/scheduler.ts';
import { HostBook } from '../politeness/host-book.ts';
import { SeedBook } from '../frontier/seed-book.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { fetchResult, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import { JobDispatch } from './job-dispatch.ts';
import type { Coordinator } from './coordinator.ts';
import type { FetchJob } from '../common/protocol.ts';

const DELAY_MS = 100;
const ORIGIN = 'https://site.example';
const NOW = 50_000;

let tmp: TempDatabase;
beforeEach(async () => {
  tmp = tempDatabase('job-dispatch');
});
afterEach(() => tmp.cleanup());

/** A job of `kind` for seed `seedId` on ORIGIN. */
function job(kind: CrawlJob['kind'], seedId: number, path = '/'): CrawlJob {
  return {
    notBefore: 0,
    kind,
    url: `${ORIGIN}${path}`,
    frontierId: kind === 'page' ? 7 : 0,
    seedId,
    depth: 0,
    attempts: 0,
    redirects: 0,
    forOrigin: ORIGIN,
    hops: 0,
  };
}

describe('JobDispatch.decide', () => {
  /** A dispatch over a seed book holding seed 1 (seed 2 was removed: the book forgot it), robots.txt answered. */
  function setUp(robotsBody: string) {
    const seeds = new SeedBook();
    const at = 1000;
    const row = (id: number, removedAt: number | null) => ({
      id,
      url: `${ORIGIN}/`,
      origin: ORIGIN,
      depth: 1,
      scope: 'host' as const,
      updatedAt: at,
      removedAt,
    });
    seeds.apply([row(1, null), row(2, null)]);
    seeds.apply([{ ...row(2, at + 1), updatedAt: at + 1 }]); // seed 2 removed after its jobs were queued
    const scheduler = new Scheduler<CrawlJob>(DELAY_MS);
    const hosts = new HostBook(scheduler, 'LanternBot/test', () => {});
    hosts.see(ORIGIN);
    const robots = scheduler.next(NOW)!.job;
    hosts.onRobots(robots, fetchResult(1, { status: 200, robotsBody }), NOW);
    scheduler.complete(ORIGIN, NOW);
    const dispatch = new JobDispatch({ seeds, hosts, runId: 'run' });
    return { dispatch };
  }

  test("a removed seed's queued sitemap job is dropped: the site is not contacted for it", async () => {
    const { dispatch } = setUp('User-agent: *\nAllow: /\n');
    assert.deepEqual(dispatch.decide(job('sitemap', 2, '/sitemap.xml'), ORIGIN, NOW), { kind: 'drop' });
  });

  test('a page job released after its seed was removed (racing the removal) is dropped, with no lease', async () => {
    const { dispatch } = setUp('User-agent: *\nAllow: /\n');
    assert.deepEqual(dispatch.decide(job('page', 2, '/a'), ORIGIN, NOW), { kind: 'drop' });
  });

  test("a live seed's page goes out with its id and its lease for the next batch; a robots.txt job has no lease", async () => {
    const { dispatch } = setUp('User-agent: *\nAllow: /\n');
    const page = dispatch.decide(job('page', 1, '/a'), ORIGIN, NOW);
    assert.equal(page.kind, 'send');
    assert.deepEqual(page.kind === 'send' && page.out, { jobId: 1, kind: 'page', url: `${ORIGIN}/a`, origin: ORIGIN });
    assert.deepEqual(page.kind === 'send' && page.lease, { kind: 'lease-url', frontierId: 7, owner: 'run', at: NOW });
    const robots = dispatch.decide({ ...job('robots', 2, '/robots.txt') }, ORIGIN, NOW);
    assert.equal(robots.kind, 'send', "robots.txt serves every seed of its host: a removed seed's does not stop it");
    assert.equal(robots.kind === 'send' && robots.lease, undefined);
  });

  test('a page robots.txt disallows is skipped: its row is finished as skipped, its attempt not counted', async () => {
    const { dispatch } = setUp('User-agent: *\nDisallow: /private\n');
    assert.deepEqual(dispatch.decide(job('page', 1, '/private/x'), ORIGIN, NOW), {
      kind: 'disallowed',
      write: {
        kind: 'finish-url',
        frontierId: 7,
        state: 'skipped',
        note: 'disallowed by robots.txt',
        at: NOW,
        countAttempt: false,
      },
    });
  });
});

describe('JobDispatch.decide: validators', () => {
  test("a re-crawled page is asked for with the validators its frontier row brought; a first crawl's is not conditional", () => {
    const seeds = new SeedBook();
    seeds.apply([
      { id: 1, url: `${ORIGIN}/`, origin: ORIGIN, depth: 1, scope: 'host', updatedAt: 1000, removedAt: null },
    ]);
    const scheduler = new Scheduler<CrawlJob>(DELAY_MS);
    const hosts = new HostBook(scheduler, 'LanternBot/test', () => {});
    hosts.see(ORIGIN);
    hosts.onRobots(scheduler.next(NOW)!.job, fetchResult(1, { status: 404 }), NOW);
    const dispatch = new JobDispatch({ seeds, hosts, runId: 'run' });
    const validators = { etag: '"v1"', lastModified: null };
    const again = dispatch.decide({ ...job('page', 1, '/a'), refetch: true, validators }, ORIGIN, NOW);
    assert.deepEqual(again.kind === 'send' && again.out.validators, validators, 'conditional, with no storage read');
    assert.equal(again.kind === 'send' && again.inFlight.conditional, true);
    const first = dispatch.decide(job('page', 1, '/b'), ORIGIN, NOW);
    assert.equal(first.kind === 'send' && first.out.validators, undefined);
  });
});

describe('dispatch through the Coordinator', () => {
  /** Hands out every job due within 20 delays of `t`, each answered at once by `answer`, as "kind url" lines. */
  async function drain(c: Coordinator, t: number): Promise<string[]> {
    const seen: string[] = [];
    for (let now = t; now < t + 20 * DELAY_MS; now += DELAY_MS) {
      let out: FetchJob | undefined = c.dispatch(now);
      while (out) {
        seen.push(`${out.kind} ${out.url}`);
        c.onResult(fetchResult(out.jobId, { status: 404 }), now + 1);
        out = c.dispatch(now + 1);
      }
      while (c.hasWrites()) await c.flush(now + 1);
    }
    return seen;
  }

  test("a removed seed's sitemap job, queued before the removal, is never handed out", async () => {
    const seeds = seedQueries(tmp.db);
    const { id } = seeds.upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 2, scope: 'host' }, 1000).seed;
    const c = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'run', 10_000);
    const robots = c.dispatch(10_000)!;
    assert.equal(robots.kind, 'robots');
    c.onResult(
      fetchResult(robots.jobId, {
        status: 200,
        robotsBody: `User-agent: *\nAllow: /\nSitemap: ${ORIGIN}/sitemap.xml\n`,
      }),
      10_010,
    );
    await c.flush(10_010); // the sitemap job is queued (and stored) behind robots.txt

    seeds.markSeedRemoved(id, 10_020);
    await c.syncSeeds(10_020);
    while (c.hasWrites()) await c.flush(10_020);

    assert.deepEqual(
      await drain(c, 10_100),
      [],
      'neither the sitemap nor the seed page is requested after the removal',
    );
  });
});
