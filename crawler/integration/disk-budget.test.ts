/**
 * The disk budget through the real cluster, on a real SQLite file and without root: CRAWL_MAX_DB_SIZE at
 * 1 MB, which a small crawl of wordy pages passes. At the next check the crawl pauses: the sites' own
 * logs show no request after it (but those in flight), a seed added meanwhile is not contacted, the server
 * hears why, and what was stored stays searchable (its full-text index answers). Removing the big seed
 * frees its pages' space, and the crawl resumes by itself: the waiting seed is crawled.
 * (The free-space floor is tested with an injected reader in crawl-primary.test.ts: filling a real disk
 * would take root or a disk of its own.)
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb, type TestWeb } from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { htmlPage } from '../../test-support/hostile-pages.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { databaseBytes } from '../../db/storage-size.ts';
import { PRIMARY_TIMING } from '../coordination/primary-ports.ts';
import type { DiskStatus } from '../common/protocol.ts';

const LIMIT = 1024 ** 2;
const PAGES = 150;

/** About 25 KB of words no other page has (so each page grows the full-text index too). */
function wordyBody(n: number): string {
  const random = seededRandom(n + 1);
  const word = () =>
    Array.from({ length: 5 + Math.floor(random() * 4) }, () =>
      String.fromCharCode(97 + Math.floor(random() * 26)),
    ).join('');
  return `<p>page${n} ${Array.from({ length: 3500 }, word).join(' ')}</p>`;
}

describe('the disk budget (CRAWL_MAX_DB_SIZE)', () => {
  let web: TestWeb;
  let h: CrawlerHarness;
  before(async () => {
    const pages: Record<string, string> = {};
    pages['/'] = htmlPage(
      'Big',
      Array.from({ length: PAGES }, (_, i) => `/p/${i}`),
    );
    for (let i = 0; i < PAGES; i++) pages[`/p/${i}`] = htmlPage(`Page ${i}`, [], wordyBody(i));
    web = await startTestWeb([{ pages }, { pages: { '/': htmlPage('Small', ['/a']), '/a': htmlPage('Small a') } }]);
    h = startCrawler({ CRAWL_MAX_DB_SIZE: '1MB', CRAWL_DELAY_MS: '100' });
  });
  after(async () => {
    await h?.close();
    await web?.close();
  });
  const disk = (): DiskStatus | undefined => h.messages.findLast((m) => m.type === 'snapshot')?.disk;
  const stored = (): number => h.db.prepare('SELECT COUNT(*) FROM pages WHERE removed = 0').pluck().get() as number;

  test('past the size the crawl pauses at the next check: no new request, a new seed waits, the server hears why, the pages stay searchable', async () => {
    const [big, small] = web.sites;
    h.addSeed(big.url('/'), { depth: 1 });
    await waitFor(() => disk()?.paused === true, { timeoutMs: 30_000, message: 'the crawl to pause' });
    const status = disk()!;
    assert.ok(status.dbBytes! > LIMIT, `the check read ${status.dbBytes} bytes`);
    assert.ok(databaseBytes(h.db) > LIMIT, 'the database really is past 1 MB (read through a connection of its own)');
    assert.match(
      status.reason!,
      /^crawling is paused: the database holds \d+(\.\d+)? MB \(CRAWL_MAX_DB_SIZE is 1 MB\): remove a seed, or raise CRAWL_MAX_DB_SIZE\. Nothing new is queued or stored meanwhile/,
    );
    const requestsAtPause = big.log.length;
    assert.ok(requestsAtPause < PAGES, `paused before the crawl was over (${requestsAtPause} requests)`);

    h.addSeed(small.url('/'), { depth: 1 });
    const checked = status.checkedAt;
    // Two checks later (10 s): at most the request in flight at the pause came since, and the new seed waits.
    await waitFor(
      () =>
        disk()?.checkedAt !== checked &&
        disk()!.checkedAt! > new Date(Date.parse(checked!) + PRIMARY_TIMING.diskCheckMs).toISOString(),
      { timeoutMs: 20_000, message: 'two more checks' },
    );
    assert.equal(disk()!.paused, true);
    assert.ok(big.log.length <= requestsAtPause + 1, `${big.log.length - requestsAtPause} requests after the pause`);
    assert.equal(small.log.length, 0, 'the seed added while paused is not contacted');
    const storedWhilePaused = stored();
    const found = h.db.prepare(`SELECT COUNT(*) FROM pages_fts WHERE pages_fts MATCH 'page3'`).pluck().get();
    assert.equal(found, 1, 'a stored page is found by its words');

    // Removing the big seed frees its pages' space: the crawl resumes by itself, and the waiting seed is crawled.
    assert.ok(h.removeSeed(big.url('/')));
    await waitFor(() => disk()?.paused === false, { timeoutMs: 30_000, message: 'the crawl to resume' });
    await h.waitIdle({ origin: small.origin, minDone: 2 });
    assert.deepEqual(small.log.map((r) => r.path).sort(), ['/', '/a', '/robots.txt']);
    assert.ok(storedWhilePaused > 5, `${storedWhilePaused} pages stored before the pause`);
  });
});
