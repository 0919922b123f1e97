import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkTargetQueries, MAX_ANCHORS, MAX_SOURCES } from './link-targets.ts';
import { tempDatabase } from '../test-support/test-corpus.ts';

test('a target counts each linking page once, keeps each anchor text once, and stays bounded', () => {
  const env = tempDatabase();
  try {
    const links = linkTargetQueries(env.db);
    const target = 'http://t.test/page';
    links.recordLinks(1, [
      { url: target, text: 'Lists' },
      { url: target, text: 'again' },
    ]);
    links.recordLinks(1, [{ url: target, text: 'Lists' }]); // fetched again
    links.recordLinks(2, [
      { url: target, text: 'lists' },
      { url: 'http://t.test/other', text: '' },
    ]);
    assert.deepEqual(links.target(target), { inlinks: 2, anchors: ['Lists'] });
    assert.deepEqual(links.target('http://t.test/other'), { inlinks: 1, anchors: [] });
    // A hostile crowd of linking pages, each with its own words: counted and kept up to the bounds.
    env.db.transaction(() => {
      for (let i = 10; i < 10 + MAX_SOURCES + 100; i++)
        links.recordLinks(i, [{ url: target, text: `word${i} ${'x'.repeat(500)}` }]);
    })();
    const t = links.target(target)!;
    assert.equal(t.inlinks, MAX_SOURCES);
    assert.equal(t.anchors.length, MAX_ANCHORS);
    assert.ok(t.anchors.every((a) => a.length <= 100));
    const fts = env.db.prepare("SELECT count(*) AS n FROM anchors_fts WHERE anchors_fts MATCH 'word15'").get() as {
      n: number;
    };
    assert.equal(fts.n, 1, 'anchor text is searchable');
  } finally {
    env.cleanup();
  }
});
