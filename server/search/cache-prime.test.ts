/**
 * After the start-up warm-up, the search's own connection has what every search reads at random in its
 * page cache (cache-prime.ts): reading it again reads nothing from the file. Real SQLite file, real thread.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openDatabase } from '../../db/open.ts';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { waitFor } from '../../test-support/test-web.ts';
import { SearchService } from './search-service.ts';
import { PRIME_STRIDE, shortTextLookups } from './cache-prime.ts';

/** Bytes this process has read through system calls (Linux). */
function bytesRead(): number {
  return Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? Number.NaN);
}

test('the lookups of the covering index step through every id range, a slice at a time', () => {
  const slices = [...shortTextLookups(1000 * PRIME_STRIDE + 1)];
  const ids = slices.flat();
  assert.equal(ids.length, 1001);
  assert.equal(ids[0], 1);
  assert.equal(ids[ids.length - 1], 1000 * PRIME_STRIDE + 1);
  assert.ok(slices.length > 1, 'more than one slice');
  assert.deepEqual([...shortTextLookups(0)], []);
});

test("after the warm-up, the row sizes bm25 reads and the page index come from the search connection's cache", async () => {
  const env = tempDatabase('cache-prime');
  try {
    const pages = pageQueries(env.db);
    env.db.transaction(() => {
      for (let i = 0; i < 3000; i++)
        pages.upsertPage(makePage(`https://h${i % 7}.test/${i}`, { title: `Page ${i}`, body: `word${i % 50} text` }));
    })();
    // A connection of its own, as the server's search has: the writer's cache holds what it wrote.
    const db = openDatabase(env.dir, { readonly: true, migrate: false });
    const service = new SearchService(db);
    service.start();
    await waitFor(() => service.ready, { timeoutMs: 10_000, message: 'title index ready' });
    const report = await service.warmUp();
    assert.ok(report !== undefined && report.prime.slices > 0, JSON.stringify(report));
    const before = bytesRead();
    db.prepare('SELECT sum(length(sz)) FROM pages_fts_docsize').get();
    db.prepare('SELECT count(*) FROM pages_fts_idx').get();
    const read = bytesRead() - before;
    // Measured after (dbstat reads those pages too).
    const sizes = db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name = 'pages_fts_docsize'").pluck();
    const docsizeBytes = sizes.get() as number;
    assert.ok(docsizeBytes >= 4 * 4096, `the row sizes span several pages (${docsizeBytes} bytes)`);
    assert.ok(read < 4096, `read ${read} bytes from the file; the row sizes alone are ${docsizeBytes}`);
    service.close();
    db.close();
  } finally {
    env.cleanup();
  }
});
