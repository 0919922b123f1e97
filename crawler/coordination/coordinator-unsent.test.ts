/**
 * A job its worker did not send (its send limit passed: a crawler node paused past its lease, FetchJob.sendBy), on
 * a real SQLite file, driven by hand: nothing reached the site, so the job goes back to the queue as it was (no
 * attempt counted, no backoff) and its host is not held a delay for a request that never happened.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../../db/seeds.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import type { Coordinator } from './coordinator.ts';

const DELAY_MS = 100;
const ORIGIN = 'https://site.example';
const T = 10_000;
const NOT_SENT = 'fetcher: not sent: its send limit passed';

describe('a job its worker did not send', () => {
  let tmp: TempDatabase;
  let coordinator: Coordinator;

  beforeEach(async () => {
    tmp = tempDatabase('coordinator-unsent');
    seedQueries(tmp.db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 1, scope: 'host' }, 1000);
    coordinator = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'test-run', T);
  });
  afterEach(() => tmp.cleanup());

  const row = (url: string) =>
    tmp.db.prepare('SELECT state, attempts, last_error AS lastError FROM frontier WHERE url = ?').get(url) as {
      state: string;
      attempts: number;
      lastError: string | null;
    };

  test('robots.txt not sent is asked for again at once: the host was not contacted', () => {
    const robots = coordinator.dispatch(T)!;
    assert.equal(robots.kind, 'robots');
    coordinator.onResult(fetchResult(robots.jobId, { unsent: NOT_SENT }), T + 5);
    const again = coordinator.dispatch(T + 5);
    assert.equal(again?.kind, 'robots', 'robots.txt again, without waiting a delay');
    assert.equal(again?.url, robots.url);
  });

  test('a page not sent goes back to the queue as it was: no attempt, no error, no backoff, stored again once sent', async () => {
    const robots = coordinator.dispatch(T)!;
    coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), T + 10);
    const page = coordinator.dispatch(T + 10 + DELAY_MS)!;
    assert.equal(page.url, `${ORIGIN}/`);
    await coordinator.flush(T + 111); // the URL's lease is written
    assert.equal(row(page.url).state, 'leased');

    coordinator.onResult(fetchResult(page.jobId, { unsent: NOT_SENT }), T + 120);
    await coordinator.flush(T + 121);
    assert.deepEqual(row(page.url), { state: 'queued', attempts: 0, lastError: null }, 'back in the queue untouched');
    const { domains } = coordinator.snapshot(T + 121, 1);
    assert.equal(domains[0]?.state === 'backoff', false, 'the host is not backed off');

    const again = coordinator.dispatch(T + 121);
    assert.equal(again?.url, page.url, 'handed out again at once: no request ended, so no delay is owed');
    coordinator.onResult(
      fetchResult(again!.jobId, { status: 200, page: parsedPage(page.url, []), startedAt: T + 121, endedAt: T + 130 }),
      T + 131,
    );
    await coordinator.flush(T + 140);
    assert.deepEqual(row(page.url), { state: 'done', attempts: 1, lastError: null }, 'fetched once, counted once');
  });
});
