import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';

describe('GET /api/status: the disk budget', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp({ CRAWL_MIN_FREE_DISK: '2GB', CRAWL_MAX_DB_SIZE: '500MB' });
  });
  after(async () => {
    await t.close();
  });
  const disk = async () => (await t.app.inject({ method: 'GET', url: '/api/status' })).json().disk;

  test('before the crawler reported: not paused, nothing read yet, the configured bounds', async () => {
    assert.deepEqual(await disk(), {
      paused: false,
      reason: null,
      freeBytes: null,
      dbBytes: null,
      minFreeBytes: 2 * 1024 ** 3,
      maxDbBytes: 500 * 1024 ** 2,
      checkedAt: null,
    });
  });

  test('as the crawler reported it: paused, why, and what it read', async () => {
    const reported = {
      paused: true,
      reason:
        'crawling is paused: the database holds 501 MB (CRAWL_MAX_DB_SIZE is 500 MB): remove a seed, or raise CRAWL_MAX_DB_SIZE. …',
      freeBytes: 9e10,
      dbBytes: 501 * 1024 ** 2,
      minFreeBytes: 2 * 1024 ** 3,
      maxDbBytes: 500 * 1024 ** 2,
      checkedAt: '2026-01-01T00:00:00.000Z',
    };
    t.app.crawler.disk = reported; // what a snapshot of the primary sets (server/crawler-link.ts)
    assert.deepEqual(await disk(), reported);
  });
});

describe('GET /api/status: a database outage as the crawler reports it', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });
  const status = async () => (await t.app.inject({ method: 'GET', url: '/api/status' })).json();

  test("the primary's error with the outage is /api/status' storage; its recovered clears it, as does a new primary", async () => {
    assert.equal((await status()).storage, null, 'none before anything is reported');
    const message =
      "database unreachable since 2026-12-07T03:00:00Z: PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432). The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy.";
    const storage = {
      engine: 'postgres' as const,
      reachable: false,
      writable: false,
      since: '2026-12-07T03:00:00.000Z',
      reason:
        'PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432)',
      effect:
        "The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy.",
      action:
        'start PostgreSQL, or check DATABASE_URL and the network to it; Lantern carries on by itself when it answers',
      message,
      seenBy: 'crawler' as const,
    };
    t.app.crawler.received({ type: 'error', message, storage });
    const down = await status();
    assert.deepEqual([down.storage, down.lastError], [storage, message]);

    t.app.crawler.received({
      type: 'recovered',
      message: 'the database takes writes again after 9.0 s; the crawl continues',
    });
    const back = await status();
    assert.deepEqual([back.storage, back.lastError], [null, null]);

    t.app.crawler.received({ type: 'error', message, storage });
    t.app.crawler.received({ type: 'started', pid: 1 });
    assert.equal((await status()).storage, null, 'a primary that started has opened its database');
  });
});
