import { test } from 'node:test';
import assert from 'node:assert/strict';
import { linkTargetQueries, MAX_ANCHORS, MAX_SOURCES, parseAnchorCounts } from './link-targets.ts';
import { tempDatabase } from '../test-support/test-corpus.ts';

test('a target counts each linking page once, keeps each anchor text once (counting the pages that use it), and stays bounded', () => {
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
    assert.deepEqual(
      links.target(target),
      { inlinks: 2, anchors: ['Lists', 'again'], counts: [2, 1] },
      "a page's two texts for one target both count; its second fetch counts nothing",
    );
    assert.deepEqual(links.target('http://t.test/other'), { inlinks: 1, anchors: [], counts: [] });
    // A hostile crowd of linking pages, each with its own words: counted and kept up to the bounds.
    env.db.transaction(() => {
      for (let i = 10; i < 10 + MAX_SOURCES + 100; i++)
        links.recordLinks(i, [{ url: target, text: `word${i} ${'x'.repeat(500)}` }]);
    })();
    const t = links.target(target)!;
    assert.equal(t.inlinks, MAX_SOURCES);
    assert.equal(t.anchors.length, MAX_ANCHORS);
    assert.ok(t.anchors.every((a) => a.length <= 100));
    const matching = (word: string) =>
      (env.db.prepare('SELECT count(*) AS n FROM anchors_fts WHERE anchors_fts MATCH ?').get(word) as { n: number }).n;
    const kept = t.anchors.filter((a) => a.startsWith('word')).map((a) => a.split(' ')[0]);
    assert.ok(kept.length > 0);
    for (const word of kept) assert.equal(matching(word), 1, `${word}: a kept anchor text is searchable`);
    const gone = Array.from({ length: 40 }, (_, k) => `word${10 + k}`).filter((w) => !kept.includes(w));
    assert.ok(gone.length > 0, 'texts that gave their place...');
    for (const word of gone) assert.equal(matching(word), 0, `${word}: ...are out of the index too`);
    const last = `word${10 + MAX_SOURCES + 99}`;
    assert.equal(kept.includes(last), false, 'a page past MAX_SOURCES adds no text');
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
    assert.deepEqual(byBatch.target('http://t.test/new'), { inlinks: 2, anchors: ['Fresh'], counts: [2] });
    assert.deepEqual(byBatch.target('http://t.test/b')?.counts, [1, 1], 'page 3 fetched twice counts once');
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
    assert.deepEqual(t, { inlinks: 2, anchors: [`first ${urls[0]}`, 'second 0'], counts: [1, 1] });
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
    assert.deepEqual(links.target('http://t.test/y'), { inlinks: 1, anchors: ['kept'], counts: [1] });
  } finally {
    env.cleanup();
  }
});

test('a target keeps the anchor texts most linking pages use, not the first ones found (a glossary)', () => {
  const env = tempDatabase();
  try {
    const links = linkTargetQueries(env.db);
    const glossary = 'http://docs.test/glossary.html';
    let page = 100;
    env.db.transaction(() => {
      // The first pages crawled each name a rare term of the glossary: more than MAX_ANCHORS of them.
      for (let i = 0; i < MAX_ANCHORS + 6; i++) links.recordLinks(page++, [{ url: glossary, text: `rare term ${i}` }]);
      // Later pages link it under the words most of them use, among other terms of their own.
      for (let i = 0; i < 12; i++)
        links.recordLinks(page++, [
          { url: glossary, text: 'global interpreter lock' },
          { url: glossary, text: `another rare term ${i}` },
        ]);
      for (let i = 0; i < 6; i++) links.recordLinks(page++, [{ url: glossary, text: 'Bytes-like object' }]);
    })();
    const t = links.target(glossary)!;
    assert.equal(t.anchors.length, MAX_ANCHORS, 'still bounded');
    const count = (text: string) => t.counts[t.anchors.indexOf(text)];
    assert.ok(t.anchors.includes('global interpreter lock'), 'the words 12 pages use are kept');
    assert.ok(t.anchors.includes('Bytes-like object'), 'and those 6 use');
    assert.ok(count('global interpreter lock') >= 12);
    const hits = env.db
      .prepare('SELECT rowid FROM anchors_fts WHERE anchors_fts MATCH \'"global interpreter lock"\'')
      .all() as Array<{ rowid: number }>;
    assert.equal(hits.length, 1, 'searchable as anchor text');
    // Fetched again, the same pages count nothing twice.
    const before = links.target(glossary)!;
    links.recordLinks(110, [{ url: glossary, text: 'rare term 10' }]);
    assert.deepEqual(links.target(glossary), before);
  } finally {
    env.cleanup();
  }
});

test('anchor counts of rows written before they were kept read as one each; a malformed list is not trusted', () => {
  assert.deepEqual(parseAnchorCounts('a\nb\nc', ''), [1, 1, 1]);
  assert.deepEqual(parseAnchorCounts('a\nb', '4 2'), [4, 2]);
  assert.deepEqual(parseAnchorCounts('a\nb', '4'), [1, 1], 'one number per line, or none trusted');
  assert.deepEqual(parseAnchorCounts('a\nb', '4 x'), [1, 1]);
  assert.deepEqual(parseAnchorCounts('', ''), []);
});
