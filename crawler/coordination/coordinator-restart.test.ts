/**
 * The coordinator on a real SQLite file, driven by hand with an injected clock, across restarts: a job's
 * lease and its host's start ride the next batch instead of a transaction of their own, so a crash between
 * two batches may forget requests that went out. Politeness must hold anyway: after an unclean stop every
 * host that was due counts as contacted at the restart; after a clean stop the stored clocks are exact.
 * A "crash" here is a Coordinator dropped without flushing, and a restart a new one on the same file.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../../db/seeds.ts';
import type { Coordinator } from './coordinator.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DELAY_MS = 1000;
const SETTINGS = { CRAWL_DELAY_MS: String(DELAY_MS) };
const SITE = 'https://site.example';
const T0 = 10_000;

describe('coordinator: restarts and the host clocks', () => {
  let tmp: TempDatabase;
  const start = async (runId: string, now: number): Promise<Coordinator> =>
    await startCoordinator(tmp, SETTINGS, runId, now);
  const stored = (sql: string, ...args: unknown[]) => tmp.db.prepare(sql).get(...args) as Record<string, unknown>;
  const pageState = (path: string) => stored('SELECT state FROM frontier WHERE url = ?', `${SITE}${path}`)?.state;

  beforeEach(async () => {
    tmp = tempDatabase('coordinator-restart');
    seedQueries(tmp.db).upsertSeed({ url: `${SITE}/`, origin: SITE, depth: 1, scope: 'host' }, 1000);
  });
  afterEach(() => tmp.cleanup());

  /** Fetches robots.txt (404) and the home page linking to /a and /b, each answered 10 ms later; stores it all. */
  async function crawlHome(c: Coordinator): Promise<number> {
    const robots = c.dispatch(T0)!;
    assert.equal(robots.url, `${SITE}/robots.txt`);
    c.onResult(fetchResult(robots.jobId, { status: 404 }), T0 + 10);
    const home = c.dispatch(T0 + 10 + DELAY_MS)!;
    assert.equal(home.url, `${SITE}/`);
    const end = T0 + 20 + DELAY_MS;
    c.onResult(fetchResult(home.jobId, { page: parsedPage(`${SITE}/`, [`${SITE}/a`, `${SITE}/b`]) }), end);
    await c.flush(end);
    return end;
  }

  test('a crash that lost the host’s last start: after the restart the host waits its delay from the restart', async () => {
    const first = await start('first-run', T0);
    const end = await crawlHome(first);
    const sentAt = end + DELAY_MS;
    const job = first.dispatch(sentAt)!; // goes out; its start and lease wait for the next batch ...
    assert.equal(job.url, `${SITE}/a`);
    // ... which never comes: the primary dies. On disk the host's last request is still the home page's.
    assert.equal(stored('SELECT last_request_start AS s FROM hosts WHERE origin = ?', SITE).s, T0 + 10 + DELAY_MS);
    assert.equal(pageState('/a'), 'queued', 'the lease was not written either');

    const restart = sentAt + 5; // the restart comes after the crash, however soon
    const second = await start('second-run', restart);
    assert.equal(second.dispatch(restart), undefined, 'not contacted at the restart');
    assert.equal(
      second.dispatch(restart + DELAY_MS - 1),
      undefined,
      'nor before a delay from the restart (the request the crash forgot may have just ended)',
    );
    assert.ok(second.nextWakeAt()! >= restart + DELAY_MS, 'the wake-up is a delay after the restart');
    assert.equal(second.dispatch(restart + DELAY_MS)?.url, `${SITE}/a`, 'then the forgotten URL is fetched again');
  });

  test('a host first met by the run that crashed (its row was in the lost batch too) also waits a delay from the restart', async () => {
    const first = await start('first-run', T0);
    assert.equal(first.dispatch(T0)?.url, `${SITE}/robots.txt`);
    assert.equal(stored('SELECT COUNT(*) AS n FROM hosts').n, 0, 'no row of the host on disk');
    const restart = T0 + 5;
    const second = await start('second-run', restart);
    assert.equal(second.dispatch(restart + DELAY_MS - 1), undefined);
    assert.equal(second.dispatch(restart + DELAY_MS)?.url, `${SITE}/robots.txt`);
  });

  test('after a clean stop the stored clock is exact: the host is due a delay after its last request, not after the restart', async () => {
    const first = await start('first-run', T0);
    const end = await crawlHome(first);
    const job = first.dispatch(end + DELAY_MS)!;
    first.onResult(fetchResult(job.jobId, { page: parsedPage(`${SITE}/a`, []) }), end + DELAY_MS + 10);
    const lastEnd = end + DELAY_MS + 10;
    first.returnInFlight();
    await first.stopCleanly(lastEnd + 1);
    const restart = lastEnd + DELAY_MS - 200;
    const second = await start('second-run', restart);
    assert.equal(second.nextWakeAt(), lastEnd + DELAY_MS);
    assert.equal(second.dispatch(lastEnd + DELAY_MS)?.url, `${SITE}/b`);
  });

  test('a host whose stored clock holds it past the restart (a long Crawl-delay) keeps that clock after a crash', async () => {
    const first = await start('first-run', T0);
    const robots = first.dispatch(T0)!;
    const crawlDelay = 60_000;
    first.onResult(
      fetchResult(robots.jobId, {
        status: 200,
        contentType: 'text/plain',
        robotsBody: 'User-agent: *\nCrawl-delay: 60\n',
      }),
      T0 + 10,
    );
    await first.flush(T0 + 10);
    const restart = T0 + 5000; // crashed with nothing in flight; the host was not due before T0 + 10 + 60 s
    const second = await start('second-run', restart);
    assert.equal(
      second.nextWakeAt(),
      T0 + 10 + crawlDelay,
      'due at its stored time, not a Crawl-delay after the restart',
    );
  });

  test('the restart after a crash is remembered: a clean stop soon after it does not let the next start forget it', async () => {
    const first = await start('first-run', T0);
    const end = await crawlHome(first);
    assert.equal(first.dispatch(end + DELAY_MS)?.url, `${SITE}/a`); // forgotten by the crash
    const restart = end + DELAY_MS + 5;
    const second = await start('second-run', restart);
    await second.stopCleanly(restart + 10); // stopped before the host was due again: nothing of it was written
    const third = await start('third-run', restart + 20);
    assert.equal(third.dispatch(restart + DELAY_MS - 1), undefined, 'still a delay from the restart after the crash');
    assert.equal(third.dispatch(restart + DELAY_MS)?.url, `${SITE}/a`);
  });
});
