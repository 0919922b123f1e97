/**
 * A result list's facts (FtsSearch.meta) come from the covering index pages_short_texts (migration 0022), not
 * from the wide rows with their bodies: the same answers, and a plan that never visits the table.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { ANCHOR_PAGES_SQL, FtsSearch, metaSql } from './fts-search.ts';

test("a result's facts and its anchor-text match come from covering indexes, never the wide rows", () => {
  const env = tempDatabase('fts-meta');
  try {
    const pages = pageQueries(env.db);
    const shown = pages.upsertPage(
      makePage('https://a.test/guide', {
        title: 'The guide',
        description: 'How to use it',
        body: 'platypus '.repeat(500),
        fetchedAt: Date.UTC(2026, 11, 7),
        contentHash: 'c0ffee',
        noarchive: true,
      }),
    );
    const hidden = pages.upsertPage(makePage('https://a.test/hidden', { title: 'Hidden', indexed: false }));
    const meta = new FtsSearch(env.db).meta([shown, hidden]);
    assert.deepEqual([...meta.keys()], [shown], 'a page out of search has no facts');
    assert.deepEqual(meta.get(shown), {
      id: shown,
      url: 'https://a.test/guide',
      title: 'The guide',
      host: 'a.test',
      description: 'How to use it',
      fetchedAt: Date.UTC(2026, 11, 7),
      inlinks: 0,
      noarchive: true,
      nosnippet: false,
      contentHash: 'c0ffee',
      linkDensity: meta.get(shown)?.linkDensity ?? null,
    });
    const plans = [metaSql(false), metaSql(true), ANCHOR_PAGES_SQL].map(
      (sql) =>
        env.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(sql === ANCHOR_PAGES_SQL ? ['[1]', 5] : ['[1]'])) as Array<{
          detail: string;
        }>,
    );
    for (const plan of plans) {
      const onPages = plan.map((p) => p.detail).filter((d) => /^(SEARCH|SCAN) [pq] /.test(d));
      assert.ok(onPages.length > 0, JSON.stringify(plan));
      for (const d of onPages) assert.match(d, /COVERING INDEX/, JSON.stringify(plan));
    }
  } finally {
    env.cleanup();
  }
});
