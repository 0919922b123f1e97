/**
 * The coordinator's politeness groups on a real SQLite file, driven by hand: two names of one registrable
 * domain share one clock, a 503 on one holds the other, pacing follows the answers' times, and the
 * Domains rows say which rule set each delay.
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../../db/seeds.ts';
import { BACKOFF } from '../politeness/backoff.ts';
import type { Coordinator } from './coordinator.ts';
import { fetchResult, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DELAY_MS = 100;
const DOCS = 'https://docs.site.example';
const WWW = 'https://www.site.example';

describe('coordinator: politeness groups', () => {
  let tmp: TempDatabase;
  let coordinator: Coordinator;

  beforeEach(async () => {
    tmp = tempDatabase('groups');
    for (const origin of [DOCS, WWW])
      seedQueries(tmp.db).upsertSeed({ url: `${origin}/`, origin, depth: 1, scope: 'host' }, 1000);
    coordinator = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'test-run', 10_000);
  });
  afterEach(() => tmp.cleanup());

  /** Both robots.txt (404), one delay apart: the two names share one clock. Returns the time the second ended. */
  function pastRobots(): number {
    const first = coordinator.dispatch(10_000)!;
    assert.equal(first.kind, 'robots');
    assert.equal(
      coordinator.dispatch(10_000),
      undefined,
      'the other name waits: one request at a time to site.example',
    );
    coordinator.onResult(fetchResult(first.jobId, { status: 404 }), 10_010);
    assert.equal(coordinator.dispatch(10_010 + DELAY_MS - 1), undefined, 'and a delay after it ended');
    const second = coordinator.dispatch(10_010 + DELAY_MS)!;
    assert.equal(second.kind, 'robots');
    assert.notEqual(second.origin, first.origin);
    coordinator.onResult(fetchResult(second.jobId, { status: 404 }), 10_120);
    return 10_120;
  }

  test('a 503 on one name holds the whole group; a good answer of any name clears it', async () => {
    const t = pastRobots();
    const page = coordinator.dispatch(t + DELAY_MS)!;
    coordinator.onResult(fetchResult(page.jobId, { status: 503 }), t + DELAY_MS + 10);
    const failedAt = t + DELAY_MS + 10;
    assert.equal(
      coordinator.dispatch(failedAt + 10 * DELAY_MS),
      undefined,
      'the other name is held too: the server said it is unavailable',
    );
    const other = page.origin === DOCS ? WWW : DOCS;
    const row = coordinator.snapshot(failedAt + 1, 1).domains.find((d) => d.origin === other)!;
    assert.equal(row.delaySource, 'backoff');
    assert.match(row.delayText, /^5\.0 s: backing off: a host of site\.example said the server is overloaded$/);
    const next = coordinator.dispatch(failedAt + BACKOFF.firstMs)!;
    assert.equal(next.origin, other, "after the backoff, the other name (the 503's own URL waits for its retry)");
    coordinator.onResult(fetchResult(next.jobId, { status: 200 }), failedAt + BACKOFF.firstMs + 10);
    assert.equal(
      coordinator.snapshot(failedAt + BACKOFF.firstMs + 11, 1).domains.find((d) => d.origin === other)!.delaySource,
      'default',
    );
  });

  test("a 500 holds only its own name; the other goes on at the group's pace", async () => {
    const t = pastRobots();
    const page = coordinator.dispatch(t + DELAY_MS)!;
    coordinator.onResult(fetchResult(page.jobId, { status: 500 }), t + DELAY_MS + 10);
    const next = coordinator.dispatch(t + 2 * DELAY_MS + 10 + 5 * 10)!; // pacing: 5 x 2 (one error) x 0 ms answers
    assert.equal(next?.origin, page.origin === DOCS ? WWW : DOCS);
  });

  test('pacing: a server that answers in 0.4 s waits 5 x 0.4 s, and Domains says so', async () => {
    const t = pastRobots();
    const page = coordinator.dispatch(t + DELAY_MS)!;
    const end = t + DELAY_MS + 400;
    coordinator.onResult(fetchResult(page.jobId, { status: 200, startedAt: t + DELAY_MS, endedAt: end }), end);
    const rows = coordinator.snapshot(end + 1, 1).domains;
    for (const row of rows) {
      assert.equal(row.delaySource, 'pacing');
      assert.equal(row.delayText, '2.0 s: 5 x 0.4 s response time');
      assert.equal(row.crawlDelayMs, 2000);
      assert.equal(row.group.name, 'site.example');
      assert.equal(row.group.hosts, 2);
    }
    assert.equal(coordinator.dispatch(end + 2000 - 1), undefined, 'not before 5 x the response time');
    assert.ok(coordinator.dispatch(end + 2000), 'then the next request of the group');
  });
});
