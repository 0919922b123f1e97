import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Database } from 'better-sqlite3';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { FilterBrowse } from './filter-browse.ts';
import { parseQuery } from './query-parser.ts';

/**
 * Browsing by operator at 1M pages read and sorted every wide row (5-47 s a query): each listing
 * and count must read the covering index pages_browse alone, in its order (no sort), whatever the
 * filter. The plans are SQLite's own (EXPLAIN QUERY PLAN) for the very statements FilterBrowse runs.
 */
describe('browsing by operator reads the pages_browse index, newest first', () => {
  const env = tempDatabase('browse');
  const statements: string[] = [];
  let browse: FilterBrowse;
  before(() => {
    const pages = pageQueries(env.db);
    env.db.transaction(() => {
      for (let i = 0; i < 30; i++) {
        pages.upsertPage(
          makePage(`http://${i % 2 === 0 ? 'a' : 'b'}.test/${i}`, {
            title: `Page ${i}`,
            body: 'words',
            fetchedAt: Date.UTC(2024, 0, 1 + (i % 7)),
            indexed: i !== 3,
          }),
        );
      }
    })();
    env.db.prepare("UPDATE pages SET file_type = 'pdf' WHERE id % 3 = 0").run();
    const recording = {
      prepare: (sql: string) => {
        statements.push(sql);
        return env.db.prepare(sql);
      },
    } as unknown as Database;
    browse = new FilterBrowse(recording);
  });
  after(() => env.cleanup());

  function plan(sql: string): string {
    const holes = (sql.match(/\?/g) ?? []).length;
    return (env.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array(holes).fill(null)) as Array<{ detail: string }>)
      .map((r) => r.detail)
      .join(' | ');
  }

  for (const q of ['site:a.test', 'filetype:pdf', 'label:python', 'site:a.test filetype:pdf -site:b.test']) {
    test(`"${q}": the listing and the count read only the index, the listing without a sort`, () => {
      statements.length = 0;
      browse.newest(parseQuery(q), 0, 10);
      browse.count(parseQuery(q), 100);
      const [listing, count] = statements.map(plan);
      assert.match(listing, /USING COVERING INDEX pages_browse/, listing);
      assert.doesNotMatch(listing, /TEMP B-TREE/, listing);
      assert.match(count, /USING COVERING INDEX pages_browse/, count);
    });
  }

  test('the listing is newest first, the later stored first among pages fetched together, searchable pages only', () => {
    const ids = browse.newest(parseQuery('site:a.test'), 0, 50);
    const rows = env.db
      .prepare("SELECT id FROM pages WHERE indexed = 1 AND host = 'a.test' ORDER BY fetched_at DESC, id DESC")
      .pluck()
      .all() as number[];
    assert.deepEqual(ids, rows);
    assert.equal(ids.length, 15);
    assert.equal(browse.count(parseQuery('site:a.test'), 100), 15);
    assert.equal(browse.count(parseQuery('site:b.test'), 100), 14, 'the page not indexed is not listed');
  });
});
