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
