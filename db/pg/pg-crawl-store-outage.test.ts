/**
 * The crawl store when PostgreSQL stops under it (`pg_ctl stop -m immediate`, as a crash or a lost server):
 * the batch fails with a retryable StorageError (the primary's WriteOutage waits it out), nothing of the
 * failed batch is stored, and once the server is back the same batch succeeds on new connections, once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import type { AsyncCrawlModules } from '../async-crawl-store.ts';
import { page } from '../crawl-store-contract-kit.ts';
import { StorageError, storageErrorDetail } from '../storage-error.ts';
import { migratePg } from './migrate-pg.ts';
import { pgCrawlStore } from './pg-crawl-store.ts';
import { openPgPool } from './pool.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const T0 = 1_700_000_000_000;
const O = 'https://example.org';

test('a batch while PostgreSQL is down fails retryable and stores nothing; the same batch succeeds once it is back', async () => {
  const warnings: string[] = [];
  const pool = openPgPool(await cluster.createDatabase(), { max: 2, warn: (m) => warnings.push(m) });
  try {
    await migratePg(pool);
    const store = pgCrawlStore(pool);
    const seedId = (await store.seeds.upsertSeed({ url: `${O}/`, origin: O, depth: 2, scope: 'host' }, T0)).seed.id;
    const first = await store.frontier.addUrl({ url: `${O}/1`, origin: O, seedId, depth: 1, redirects: 0 }, T0);
    assert.ok(first !== undefined);
    let stopped = false;
    /** The primary's batch: a URL finished, its page stored, the links it found queued; the server stops midway once. */
    const batch = async (tx: AsyncCrawlModules) => {
      await tx.frontier.finishUrl(first.id, 'done', null, T0 + 1);
      const pageId = await tx.pages.upsertPage(page(`${O}/1`, seedId, { title: 'One', fetchedAt: T0 + 1 }));
      if (!stopped) {
        stopped = true;
        cluster.halt();
      }
      await tx.frontier.addUrls([{ url: `${O}/2`, origin: O, seedId, depth: 2, redirects: 0 }], T0 + 1);
      await tx.linkTargets.gatherLinks(pageId, [{ url: `${O}/2`, text: 'two' }]);
    };
    const failure = await store.transaction(batch).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(failure instanceof StorageError, String(failure));
    assert.equal(failure.retryable, true, failure.message);
    assert.notEqual(storageErrorDetail(failure), null);
    const down = await store.transaction(batch).then(
      () => undefined,
      (err: unknown) => err,
    );
    assert.ok(down instanceof StorageError && down.retryable, `while down: ${String(down)}`);
    assert.match(down.message, /ECONNREFUSED|Connection terminated|connection/i);
    cluster.resume();
    // The pool may still hold a connection the server dropped: each attempt either stores the batch or fails
    // retryable on such a connection (which the pool then discards), as the primary's retries would.
    let attempts = 0;
    for (;;) {
      attempts++;
      const err = await store.transaction(batch).then(
        () => undefined,
        (e: unknown) => e,
      );
      if (err === undefined) break;
      assert.ok(err instanceof StorageError && err.retryable && attempts < 4, `attempt ${attempts}: ${String(err)}`);
    }
    assert.equal((await store.frontier.urlByUrl(`${O}/1`))?.state, 'done');
    assert.deepEqual(await store.frontier.countsByOrigin(), [
      { origin: O, state: 'done', n: 1 },
      { origin: O, state: 'queued', n: 1 },
    ]);
    assert.deepEqual(await store.linkTargets.target(`${O}/2`), { inlinks: 1, anchors: ['two'], counts: [1] });
    assert.deepEqual(await store.pages.countPages(), { pages: 1, indexed: 1 });
    assert.equal((await pool.query('SELECT inlinks FROM frontier WHERE url = $1', [`${O}/2`])).rows[0]?.inlinks, 0);
  } finally {
    await pool.end();
  }
});
