/**
 * A host's row written by a batch whose transaction is still open when the host changes again (PostgreSQL: a batch
 * spans round trips, so a result can arrive mid-flush; on SQLite a flush settles within one turn): the change must
 * reach the database with a later batch. It once did not: the host counted as having its write queued until the
 * commit, so the change queued none, and the batch had already written the row as it was before. A clean-clone CI
 * run saw a host's robots.txt stay 'pending' in its row for 90 s while the crawl waited on its Crawl-delay.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CrawlStore } from '../../db/crawl-store.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgCrawlStore } from '../../db/pg/pg-crawl-store.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { loadConfig } from '../../shared/config.ts';
import { fetchResult } from '../../test-support/coordinator-fixtures.ts';
import { startTestPostgres } from '../../test-support/postgres.ts';
import { Coordinator } from './coordinator.ts';

const ORIGIN = 'https://race.example';
const T = 10_000;

const cluster = startTestPostgres();
after(async () => (await cluster).stop());

test('a host that changes while a batch writing its row is open gets its change written by a later batch', async () => {
  const pool = openPgPool(await (await cluster).createDatabase(), { max: 3 });
  try {
    await migratePg(pool);
    await pgSeedStore(pool).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 0, scope: 'host' }, Date.now());
    // The store's transactions hold after writing a host's row until the test lets them go on (`hold`).
    const inner = pgCrawlStore(pool);
    let hold: Promise<void> | null = null;
    let rowWritten = () => {};
    const store: CrawlStore = {
      ...inner,
      transaction: (write) =>
        inner.transaction((tx) =>
          write({
            ...tx,
            hosts: {
              ...tx.hosts,
              saveHost: async (row, at) => {
                await tx.hosts.saveHost(row, at);
                rowWritten();
                if (hold !== null) await hold;
              },
            },
          }),
        ),
    };
    const c = new Coordinator(store, loadConfig({ CRAWL_DELAY_MS: '100' }), 'run-1');
    await c.start(T);
    await c.flush(T);
    const robots = c.dispatch(T)!;
    assert.equal(robots.kind, 'robots');

    // A batch writes the host's row (robots.txt pending, its request just started) and holds before its commit.
    let goOn = () => {};
    hold = new Promise<void>((resolve) => {
      goOn = resolve;
    });
    const written = new Promise<void>((resolve) => {
      rowWritten = resolve;
    });
    const flushing = c.flush(T + 1);
    await written;
    // Meanwhile robots.txt is answered: the host's row changes (robots 'ok', its clock).
    c.onResult(fetchResult(robots.jobId, { status: 200, robotsBody: 'User-agent: *\nAllow: /\n' }), T + 10);
    hold = null;
    goOn();
    await flushing;
    await c.flush(T + 20);

    const row = await pool.query<{ robots_status: string }>('SELECT robots_status FROM hosts WHERE origin = $1', [
      ORIGIN,
    ]);
    assert.deepEqual(
      row.rows.map((r) => r.robots_status),
      ['ok'],
      "the change made while the batch was open is in the host's row",
    );
  } finally {
    await pool.end();
  }
});
