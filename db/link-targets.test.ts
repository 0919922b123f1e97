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

test('links gathered over a batch of pages are stored as if each page had recorded its own', () => {
  const one = tempDatabase();
  const batch = tempDatabase();
  try {
    const pages: Array<[number, Array<{ url: string; text: string }>]> = [
      [1, [{ url: 'http://t.test/a', text: 'Alpha guide' }]],
      [2, [{ url: 'http://t.test/b', text: 'Beta' }]],
      [
        3,
        [
          { url: 'http://t.test/b', text: 'beta notes' },
          { url: 'http://t.test/new', text: 'Fresh' },
        ],
      ],
      [
        4,
        [
          { url: 'http://t.test/new', text: 'fresh' },
          { url: 'http://t.test/a', text: 'Alpha guide' },
        ],
      ],
      [3, [{ url: 'http://t.test/b', text: 'beta notes' }]], // page 3 fetched again in the same batch
    ];
    const byOne = linkTargetQueries(one.db);
    const byBatch = linkTargetQueries(batch.db);
    for (const links of [byOne, byBatch])
      links.recordLinks(9, [
        { url: 'http://t.test/a', text: 'old' },
        { url: 'http://t.test/b', text: '' },
      ]);
    one.db.transaction(() => {
      for (const [id, links] of pages) byOne.recordLinks(id, links);
    })();
    batch.db.transaction(() => {
      for (const [id, links] of pages) byBatch.gatherLinks(id, links);
      byBatch.writeGathered();
    })();
    for (const url of ['http://t.test/a', 'http://t.test/b', 'http://t.test/new'])
      assert.deepEqual(byBatch.target(url), byOne.target(url), url);
    assert.deepEqual(byBatch.target('http://t.test/new'), { inlinks: 2, anchors: ['Fresh'] });
    const matches = (db: typeof one.db, word: string) =>
      db.prepare('SELECT count(*) AS n FROM anchors_fts WHERE anchors_fts MATCH ?').get(word) as { n: number };
    assert.deepEqual(matches(batch.db, 'notes'), { n: 1 }, 'gathered anchor text is searchable');
    assert.deepEqual(matches(batch.db, 'old'), { n: 1 });
  } finally {
    one.cleanup();
    batch.cleanup();
  }
});

test('a batch that updates many link targets adds one segment to the anchor index, not one per target', () => {
  const env = tempDatabase();
  try {
    const links = linkTargetQueries(env.db);
    // Segments are counted by their rows of index data: no automatic merge may fold them meanwhile.
    env.db.exec("INSERT INTO anchors_fts (anchors_fts, rank) VALUES ('automerge', 0)");
    env.db.exec("INSERT INTO anchors_fts (anchors_fts, rank) VALUES ('crisismerge', 1000)");
    const urls = Array.from({ length: 40 }, (_, i) => `http://t.test/p${i}`);
    env.db.transaction(() =>
      links.recordLinks(
        1,
        urls.map((url) => ({ url, text: `first ${url}` })),
      ),
    )();
    const dataRows = () => (env.db.prepare('SELECT count(*) AS n FROM anchors_fts_data').get() as { n: number }).n;
    const before = dataRows();
    // Pages that link the targets newest first: FTS5 flushes its pending data whenever a rowid goes down.
    env.db.transaction(() => {
      for (let i = urls.length - 1; i >= 0; i--) links.gatherLinks(100 + i, [{ url: urls[i], text: `second ${i}` }]);
      links.writeGathered();
    })();
    assert.ok(dataRows() - before <= 2, `the batch wrote ${dataRows() - before} rows of index data`);
    const t = links.target(urls[0])!;
    assert.deepEqual(t, { inlinks: 2, anchors: [`first ${urls[0]}`, 'second 0'] });
  } finally {
    env.cleanup();
  }
});

test('links gathered in a transaction that rolled back are discarded, not written with the next batch', () => {
  const env = tempDatabase();
  try {
    const links = linkTargetQueries(env.db);
    assert.throws(
      () =>
        env.db.transaction(() => {
          links.gatherLinks(1, [{ url: 'http://t.test/x', text: 'lost' }]);
          throw new Error('the batch failed');
        })(),
      /the batch failed/,
    );
    links.discardGathered();
    env.db.transaction(() => {
      links.gatherLinks(2, [{ url: 'http://t.test/y', text: 'kept' }]);
      links.writeGathered();
    })();
    assert.equal(links.target('http://t.test/x'), undefined);
    assert.deepEqual(links.target('http://t.test/y'), { inlinks: 1, anchors: ['kept'] });
  } finally {
    env.cleanup();
  }
});
