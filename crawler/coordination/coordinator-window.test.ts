/**
 * The coordinator on a real SQLite file, driven by hand with an injected clock: a host's window over its
 * queue is read on by the flush after its request ended with the window dry (storage is read only in a
 * flush, never within a dispatch or a result), so no job waits longer than that flush, and none is
 * handed out twice.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { seedQueries } from '../../db/seeds.ts';
import { WINDOW } from '../frontier/window-sizes.ts';
import { fetchResult, parsedPage, startCoordinator } from '../../test-support/coordinator-fixtures.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';

const DELAY_MS = 100;
const SITE = 'https://site.example';
const PAGES = 2 * WINDOW.size + 5; // more than a window holds: it must be read on twice

let tmp: TempDatabase;
beforeEach(async () => {
  tmp = tempDatabase('coordinator-window');
  seedQueries(tmp.db).upsertSeed({ url: `${SITE}/`, origin: SITE, depth: 1, scope: 'host' }, 1000);
});
afterEach(() => tmp.cleanup());

test('a host with more URLs than its window gets each once, in order, its window read on by the flush after it ran dry', async () => {
  const c = await startCoordinator(tmp, { CRAWL_DELAY_MS: String(DELAY_MS) }, 'run', 0);
  const robots = c.dispatch(0)!;
  c.onResult(fetchResult(robots.jobId, { status: 404 }), 10);
  const home = c.dispatch(10 + DELAY_MS)!;
  const links = Array.from({ length: PAGES }, (_, i) => `${SITE}/p${i}`);
  c.onResult(fetchResult(home.jobId, { page: parsedPage(`${SITE}/`, links) }), 20 + DELAY_MS);
  await c.flush(20 + DELAY_MS); // the links are stored; from here on a flush comes only when a job is not there

  const got: string[] = [];
  let flushes = 0;
  let t = 20 + 2 * DELAY_MS;
  for (let i = 0; i < PAGES + 3; i++, t += DELAY_MS + 10) {
    let job = c.dispatch(t);
    if (!job && c.hasWrites()) {
      await c.flush(t); // at the same moment: the job due now waits for this flush only
      job = c.dispatch(t);
      if (job) flushes++;
    }
    if (!job) break;
    got.push(job.url);
    c.onResult(fetchResult(job.jobId, { contentType: 'application/octet-stream' }), t + 10);
  }
  assert.deepEqual(got, links, 'every URL once, in the order found, each when its host was due');
  assert.equal(flushes, 2, 'a flush each time the window ran dry (twice), none while it held jobs');
  await c.flush(t);
  assert.deepEqual(tmp.db.prepare(`SELECT state, COUNT(*) AS n FROM frontier GROUP BY state`).all(), [
    { state: 'done', n: PAGES + 1 },
  ]);
});
