/**
 * The snapshots the primary sends the server carry only the hosts whose facts changed, and the server's
 * book of hosts (server/domain-book.ts) fed with them shows exactly the rows the primary would have
 * described for every host at each snapshot's time. A real Coordinator on a real SQLite file, driven by
 * hand (no processes).
 */
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../db/seeds.ts';
import { fetchResult, parsedPage, startCoordinator } from '../test-support/coordinator-fixtures.ts';
import { tempDatabase, type TempDatabase } from '../test-support/test-corpus.ts';
import { DomainBook } from './domain-book.ts';
import type { Coordinator } from '../crawler/coordination/coordinator.ts';

const DELAY_MS = 1000;
const START = 10_000;
const SITES = ['https://a.example', 'https://b.example', 'https://c.example'];

describe('snapshot changes', () => {
  let tmp: TempDatabase;
  let coordinator: Coordinator;
  let book: DomainBook;

  beforeEach(async () => {
    tmp = tempDatabase('snapshot-changes');
    for (const origin of SITES)
      seedQueries(tmp.db).upsertSeed({ url: `${origin}/`, origin, depth: 2, scope: 'host' }, 1000);
    coordinator = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'test-run', START);
    book = new DomainBook();
  });
  afterEach(() => tmp.cleanup());

  /** One snapshot at `now`, applied to the server's book as crawler-link.ts does; returns the hosts it carried. */
  function send(now: number, full = false): string[] {
    const snap = coordinator.snapshotChanges(now, 1, full);
    book.apply({ at: now, full, hosts: snap.hosts });
    assert.equal(
      snap.status.queued,
      coordinator.snapshot(now, 1).status.queued,
      'the header counts every host, not only those sent',
    );
    return snap.hosts.map((h) => h.row.host);
  }

  /** The server's rows are the ones the primary describes for every host at that moment. */
  function assertSameRows(now: number, why: string): void {
    assert.deepEqual(book.rows(), coordinator.snapshot(now, 1).domains, why);
  }

  test('the first snapshot carries every host, then only the hosts whose facts changed', async () => {
    const hosts = SITES.map((s) => new URL(s).host);
    assert.deepEqual(send(START, true).sort(), hosts, 'full: every host');
    assertSameRows(START, 'after the full snapshot');
    assert.deepEqual(send(START + 500), [], 'nothing happened: no host is sent again');
    assertSameRows(START + 500, 'the rows read at the new time without being sent');

    const robots = coordinator.dispatch(START + 600)!;
    assert.equal(robots.kind, 'robots');
    assert.deepEqual(send(START + 700), [new URL(robots.origin).host], 'only the host now in flight');
    assertSameRows(START + 700, 'a host fetching, the others waiting');

    coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), START + 800);
    await coordinator.flush(START + 800);
    assert.deepEqual(send(START + 900), [new URL(robots.origin).host], 'only the host whose fetch ended');
    assertSameRows(START + 900, 'its robots.txt read, its next page waiting a delay');
    assert.deepEqual(send(START + 1400), [], 'waiting for its turn changes no fact');
    assertSameRows(START + 1400, "the wait's words count down at the server all the same");
  });

  test('a host whose page failed shows its error, and a full snapshot replaces what the server had', async () => {
    const robots = coordinator.dispatch(START)!;
    coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), START + 10);
    send(START + 20, true);
    const seed = coordinator.dispatch(START + 10 + DELAY_MS)!;
    coordinator.onResult(
      fetchResult(seed.jobId, {
        status: null,
        error: { kind: 'retryable', code: 'timeout', message: 'no headers in 15 s' },
      }),
      START + 2000,
    );
    await coordinator.flush(START + 2000);
    assert.deepEqual(send(START + 2100), [new URL(seed.origin).host]);
    assertSameRows(START + 2100, 'the failure as the primary describes it');
    assert.match(book.rows().find((d) => d.origin === seed.origin)!.stateText, /no headers in 15 s/);

    // A new primary (a restart) sends a full snapshot: it replaces every host the server had.
    const [first] = coordinator.snapshotChanges(START + 2200, 1, true).hosts;
    book.apply({ at: START + 2200, full: true, hosts: [first] });
    assert.deepEqual(
      book.rows().map((d) => d.host),
      [first.row.host],
      'only the hosts of the full snapshot',
    );
  });

  test("a host's backoff that ends between snapshots is sent again: its state and delay change with time alone", async () => {
    for (const _ of SITES) {
      const robots = coordinator.dispatch(START)!;
      coordinator.onResult(fetchResult(robots.jobId, { status: 404 }), START + 10);
    }
    const seed = coordinator.dispatch(START + 10 + DELAY_MS)!;
    assert.equal(seed.kind, 'page');
    coordinator.onResult(fetchResult(seed.jobId, { status: 429, retryAfterMs: 3000 }), START + 1100);
    await coordinator.flush(START + 1100);
    send(START + 1200, true);
    const host = new URL(seed.origin).host;
    const row = () => book.rows().find((d) => d.host === host)!;
    assert.equal(row().state, 'backoff', 'backing off after the 429');
    assert.equal(row().delaySource, 'retry-after');
    assert.deepEqual(send(START + 2000), [], 'still backing off, nothing changed');
    assertSameRows(START + 2000, 'the backoff as the primary describes it');
    assert.deepEqual(send(START + 4200), [host], 'the backoff is over: sent again');
    assertSameRows(START + 4200, 'its delay no longer the Retry-After');
    assert.notEqual(row().delaySource, 'retry-after');
  });

  test('a snapshot sends copies: a host row changed later does not change what the server holds', async () => {
    send(START, true);
    const before = book.rows().map((d) => ({ ...d }));
    const robots = coordinator.dispatch(START + 100)!;
    coordinator.onResult(
      fetchResult(robots.jobId, { status: 200, robotsBody: 'User-agent: *\nAllow: /' }),
      START + 200,
    );
    await coordinator.flush(START + 200);
    const seed = coordinator.dispatch(START + 200 + DELAY_MS)!;
    coordinator.onResult(
      fetchResult(seed.jobId, { status: 200, page: parsedPage(`${seed.origin}/`, [], { contentHash: 'h' }) }),
      START + 1300,
    );
    await coordinator.flush(START + 1300);
    book.apply({ at: START, full: false, hosts: [] }); // the same time, nothing new: the rows must not have moved
    assert.deepEqual(
      book.rows().map((d) => ({ ...d })),
      before,
      'what the server holds changes only with a snapshot',
    );
  });
});
