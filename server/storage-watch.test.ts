/** The server's own view of a database outage: pure, the time given. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { FeedStatus } from './search-copy/search-feed.ts';
import { StorageWatch } from './storage-watch.ts';

const WHERE = 'lantern@127.0.0.1:5432/lantern';
const REFUSED = { engine: 'postgres', reachable: false, detail: 'ECONNREFUSED: connect ECONNREFUSED' } as const;
const T0 = Date.UTC(2026, 11, 7, 3, 0, 0);

/** A feed's status: following, or failing since `since` (for the database's sake, or the copy's). */
function feed(since: number | null, kind: 'database' | 'copy' = 'database'): FeedStatus {
  return since === null
    ? { state: 'following', failingSince: null, failure: null, databaseFault: null, applied: 0 }
    : {
        state: 'failing',
        failingSince: since,
        failure: 'x',
        databaseFault: kind === 'database' ? REFUSED : null,
        applied: 0,
      };
}

test('a failed statement starts the outage at its first failure; an answer ends it', () => {
  const w = new StorageWatch('postgres', WHERE);
  assert.equal(w.current(undefined), null);
  w.failed(REFUSED, T0);
  w.failed({ ...REFUSED, detail: 'Connection terminated unexpectedly' }, T0 + 5000);
  const o = w.current(feed(null));
  assert.equal(o?.since, '2026-12-07T03:00:00.000Z', 'since the first failure');
  assert.match(
    o?.message ?? '',
    /^database unreachable since 2026-12-07T03:00:00Z: PostgreSQL at lantern@127\.0\.0\.1:5432\/lantern does not answer \(Connection terminated unexpectedly\)/,
  );
  assert.equal(o?.seenBy, 'server');
  w.answered();
  assert.equal(w.current(feed(null)), null);
});

test("the search copy's feed failing to reach PostgreSQL is an outage too, from its start; its copy's own trouble is not", () => {
  const w = new StorageWatch('postgres', WHERE);
  assert.equal(w.current(feed(T0 - 60_000))?.since, '2026-12-07T02:59:00.000Z');
  assert.equal(w.current(feed(T0, 'copy')), null, 'a full disk under the copy is not the database');
  w.failed(REFUSED, T0);
  assert.equal(w.current(feed(T0 - 1000))?.since, '2026-12-07T02:59:59.000Z', 'the earlier of the two');
});
