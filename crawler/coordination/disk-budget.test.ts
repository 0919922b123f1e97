import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatBytes, judgeDisk, RESUME_MARGIN } from './disk-budget.ts';
import { DiskWatch } from './disk-watch.ts';
import { ManualTime } from '../../test-support/manual-time.ts';
import { PRIMARY_TIMING } from './primary-ports.ts';

const MB = 1024 ** 2;
const GB = 1024 ** 3;
const limits = { minFreeBytes: GB, maxDbBytes: 10 * GB };

test('sizes read as a person writes them, in units of 1024 as the settings take them', async () => {
  assert.deepEqual([0, 1023, 1024, 1536, 512 * MB, 1.01 * GB, 20 * GB, 123.4 * GB].map(formatBytes), [
    '0 bytes',
    '1023 bytes',
    '1 KB',
    '1.5 KB',
    '512 MB',
    '1.01 GB',
    '20 GB',
    '123 GB',
  ]);
});

test('over either bound the crawl is over budget, and the reason names the figure, the setting and what to do', async () => {
  assert.deepEqual(judgeDisk({ freeBytes: 5 * GB, dbBytes: GB }, limits, false, '/data'), { over: false });
  assert.deepEqual(judgeDisk({ freeBytes: 900 * MB, dbBytes: GB }, limits, false, '/data'), {
    over: true,
    reason:
      'only 900 MB free on the disk of /data (CRAWL_MIN_FREE_DISK is 1 GB): free some space, or lower CRAWL_MIN_FREE_DISK',
  });
  assert.deepEqual(judgeDisk({ freeBytes: 5 * GB, dbBytes: 10.5 * GB }, limits, false, '/data'), {
    over: true,
    reason: 'the database holds 10.5 GB (CRAWL_MAX_DB_SIZE is 10 GB): remove a seed, or raise CRAWL_MAX_DB_SIZE',
  });
});

test('a paused crawl resumes only with a margin to spare; 0 is no bound; an unknown free space is not judged', async () => {
  const edge = { freeBytes: GB * (1 + RESUME_MARGIN / 2), dbBytes: 10 * GB * (1 - RESUME_MARGIN / 2) };
  assert.equal(judgeDisk(edge, limits, false, '/d').over, false, 'running: within bounds');
  assert.equal(judgeDisk(edge, limits, true, '/d').over, true, 'paused: not yet');
  assert.equal(judgeDisk({ freeBytes: 2 * GB, dbBytes: 9 * GB }, limits, true, '/d').over, false);
  assert.equal(judgeDisk({ freeBytes: 0, dbBytes: 1e15 }, { minFreeBytes: 0, maxDbBytes: 0 }, false, '/d').over, false);
  assert.equal(judgeDisk({ freeBytes: null, dbBytes: GB }, limits, false, '/d').over, false);
});

test('a reading that fails leaves the state as it was and is logged once until it works again', async () => {
  const time = new ManualTime(0);
  const logs: string[] = [];
  let fail: Error | null = null;
  let free = 100 * MB;
  const watch = new DiskWatch({
    clock: time.clock,
    timers: time,
    limits,
    dataDir: '/data',
    log: (l) => logs.push(l),
    changed: () => undefined,
    read: () => {
      if (fail) throw fail;
      return { freeBytes: free, dbBytes: 0 };
    },
  });
  watch.start();
  assert.equal(watch.paused, true);
  fail = new Error('EIO: i/o error, statfs');
  free = 5 * GB;
  await time.advance(3 * PRIMARY_TIMING.diskCheckMs);
  assert.equal(watch.paused, true, 'not knowing does not resume');
  assert.deepEqual(logs.slice(1), [
    'crawler: cannot read the free space or the database size in /data (EIO: i/o error, statfs); the disk budget is not checked until it can be',
  ]);
  fail = null;
  await time.advance(PRIMARY_TIMING.diskCheckMs);
  assert.equal(watch.paused, false);
  assert.deepEqual(
    { free: watch.status().freeBytes, at: watch.status().checkedAt },
    { free: 5 * GB, at: new Date(4 * PRIMARY_TIMING.diskCheckMs).toISOString() },
  );
  watch.stop();
  assert.deepEqual(time.intervals(), [], 'stopped: no check left');
});
