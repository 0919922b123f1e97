import { test, describe, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import BetterSqlite3 from 'better-sqlite3';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { pageQueries } from './pages.ts';
import { seedQueries } from './seeds.ts';
import type { Database } from './open.ts';
import { migrate, readMigrations } from './migrate.ts';
import { makePage, tempDatabase } from '../test-support/test-corpus.ts';

function ftsIds(db: Database, match: string): number[] {
  return db
    .prepare<[string], { rowid: number }>('SELECT rowid FROM pages_fts WHERE pages_fts MATCH ? ORDER BY rowid')
    .all(match)
    .map((r) => r.rowid);
}
function identIds(db: Database, match: string): number[] {
  return db
    .prepare<[string], { rowid: number }>('SELECT rowid FROM pages_idents WHERE pages_idents MATCH ? ORDER BY rowid')
    .all(match)
    .map((r) => r.rowid);
}
/**
 * FTS5's integrity check; with `againstContent` it also checks the index holds exactly the rows of
 * the pages table (only valid while every page is indexed).
 */
function integrityCheck(db: Database, againstContent: boolean): void {
  const rank = againstContent ? 1 : 0;
  db.prepare("INSERT INTO pages_fts (pages_fts, rank) VALUES ('integrity-check', ?)").run(rank);
  db.prepare("INSERT INTO pages_idents (pages_idents, rank) VALUES ('integrity-check', ?)").run(rank);
}

describe('pageQueries', () => {
  let env: ReturnType<typeof tempDatabase>;
  beforeEach(() => {
    env = tempDatabase();
  });
  afterEach(() => env.cleanup());

  test('upsertPage inserts, then replaces by url keeping the id, bumping seq and re-indexing', () => {
    const q = pageQueries(env.db);
    const a = q.upsertPage(makePage('http://a.test/x', { title: 'Old title', body: 'zebra crossing' }));
    const b = q.upsertPage(makePage('http://a.test/y', { title: 'Other', body: 'giraffe' }));
    assert.notEqual(a, b);
    const before = q.getPage('http://a.test/x');
    assert.equal(before?.seq, 1);
    assert.deepEqual(ftsIds(env.db, 'zebra'), [a]);

    const again = q.upsertPage(makePage('http://a.test/x', { title: 'New title', body: 'okapi', fetchedAt: 5 }));
    assert.equal(again, a);
    const after = q.getPage('http://a.test/x');
    assert.equal(after?.seq, 3);
    assert.equal(after?.title, 'New title');
    assert.equal(after?.fetchedAt, 5);
    assert.deepEqual(ftsIds(env.db, 'zebra'), [], 'old text is gone from the index');
    assert.deepEqual(ftsIds(env.db, 'okapi'), [a]);
    assert.deepEqual(ftsIds(env.db, 'title:new'), [a]);
    assert.deepEqual(q.countPages(), { pages: 2, indexed: 2 });
    integrityCheck(env.db, true);
  });

  test("retireSeedPages takes a removed seed's pages out of search, each with its own new seq, and out of the count", () => {
    const q = pageQueries(env.db);
    const seeds = seedQueries(env.db);
    const gone = seeds.upsertSeed({ url: 'http://a.test/', origin: 'http://a.test', depth: 1, scope: 'host' }, 1).seed
      .id;
    const kept = seeds.upsertSeed({ url: 'http://b.test/', origin: 'http://b.test', depth: 1, scope: 'host' }, 1).seed
      .id;
    const x = q.upsertPage(makePage('http://a.test/x', { seedId: gone, title: 'Zebra', body: 'zebra crossing' }));
    q.upsertPage(makePage('http://a.test/y', { seedId: gone, body: 'zebra stripes' }));
    const z = q.upsertPage(makePage('http://b.test/z', { seedId: kept, body: 'zebra too' }));
    assert.equal(q.retireSeedPages(gone, 1), 1, 'at most the limit');
    assert.equal(q.retireSeedPages(gone, 10), 1, 'then the rest, not the one retired before');
    assert.equal(q.retireSeedPages(gone, 10), 0);
    assert.deepEqual(ftsIds(env.db, 'zebra'), [z]);
    assert.deepEqual(identIds(env.db, 'zebra'), []);
    const changes = q.pagesAfterSeq(3, 10);
    assert.deepEqual(
      changes.map((c) => [c.seq, c.indexed]),
      [
        [4, false],
        [5, false],
      ],
      'the title index sees each leave',
    );
    assert.deepEqual(q.countPages(), { pages: 1, indexed: 1 });
    integrityCheck(env.db, false);
    // Found again (by another seed, or the seed submitted again): stored, searchable and counted again.
    assert.equal(q.upsertPage(makePage('http://a.test/x', { seedId: kept, body: 'zebra back' })), x);
    assert.deepEqual(ftsIds(env.db, 'zebra'), [x, z]);
    assert.deepEqual(q.countPages(), { pages: 2, indexed: 2 });
    integrityCheck(env.db, false);
  });

  test('re-upserting identical text keeps the index consistent', () => {
    const q = pageQueries(env.db);
    const page = makePage('http://a.test/x', { title: 'Same', body: 'unchanged words here', headings: ['H'] });
    const id = q.upsertPage(page);
    q.upsertPage({ ...page, fetchedAt: 99 });
    q.upsertPage({ ...page, fetchedAt: 100 });
    assert.deepEqual(ftsIds(env.db, 'unchanged'), [id]);
    assert.equal(env.db.prepare('SELECT count(*) AS n FROM pages_fts_docsize').pluck().get(), 1);
    integrityCheck(env.db, true);
  });

  test('markPageGone takes the page out of search and bumps seq; upsert brings it back', () => {
    const q = pageQueries(env.db);
    const id = q.upsertPage(makePage('http://a.test/x', { body: 'walrus capture_output' }));
    q.upsertPage(makePage('http://a.test/y', { body: 'walrus' }));
    q.markPageGone('http://a.test/x', 410, 1234);
    const gone = q.getPage('http://a.test/x');
    assert.equal(gone?.indexed, false);
    assert.equal(gone?.status, 410);
    assert.equal(gone?.fetchedAt, 1234);
    assert.equal(gone?.seq, 3);
    assert.equal(ftsIds(env.db, 'walrus').includes(id), false);
    assert.deepEqual(identIds(env.db, '"capture_output"'), []);
    assert.deepEqual(q.countPages(), { pages: 2, indexed: 1 });
    integrityCheck(env.db, false);

    q.markPageGone('http://a.test/never-stored', 404, 1); // no row: nothing happens
    assert.deepEqual(q.countPages(), { pages: 2, indexed: 1 });

    q.upsertPage(makePage('http://a.test/x', { body: 'walrus returns' }));
    assert.deepEqual(ftsIds(env.db, 'returns'), [id]);
    integrityCheck(env.db, true);
  });

  test('a page stored with indexed = false is kept but never indexed', () => {
    const q = pageQueries(env.db);
    q.upsertPage(makePage('http://a.test/n', { body: 'secret words', noindex: true, indexed: false }));
    assert.deepEqual(ftsIds(env.db, 'secret'), []);
    assert.deepEqual(q.countPages(), { pages: 1, indexed: 0 });
    assert.equal(q.getPage('http://a.test/n')?.noindex, true);
  });

  test('pagesAfterSeq returns writes in seq order with the short fields', () => {
    const q = pageQueries(env.db);
    q.upsertPage(makePage('http://a.test/1', { title: 'One', headings: ['h1', 'h2'], description: 'd1' }));
    q.upsertPage(makePage('http://b.test:8080/2', { title: 'Two' }));
    q.upsertPage(makePage('http://a.test/3', { title: 'Three' }));
    q.markPageGone('http://a.test/1', 404, 7);
    const all = q.pagesAfterSeq(0, 10);
    assert.deepEqual(
      all.map((r) => [r.url, r.seq, r.indexed]),
      [
        ['http://b.test:8080/2', 2, true],
        ['http://a.test/3', 3, true],
        ['http://a.test/1', 4, false],
      ],
    );
    assert.equal(all[0].host, 'b.test:8080');
    assert.deepEqual(all[2].headings, ['h1', 'h2']);
    assert.equal(all[2].description, 'd1');
    assert.deepEqual(
      q.pagesAfterSeq(2, 1).map((r) => r.seq),
      [3],
    );
    assert.deepEqual(q.pagesAfterSeq(4, 10), []);
  });

  test('getPage round-trips every field; control characters are removed from text', () => {
    const q = pageQueries(env.db);
    const page = makePage('http://a.test/full', {
      finalUrl: 'http://a.test/full/',
      status: 200,
      contentType: 'text/html',
      title: 'T\u0001itle',
      description: 'De\u0002sc',
      headings: ['First', 'Second\nline'],
      body: 'Body\u0000 text\twith tab',
      lang: 'de',
      canonical: 'http://a.test/c',
      fetchedAt: 42,
      etag: '"e"',
      lastModified: 'Mon',
      contentHash: 'abc',
      noindex: false,
      nofollow: true,
      indexed: true,
    });
    q.upsertPage(page);
    const got = q.getPage('http://a.test/full');
    assert.ok(got);
    const { id, seq, ...rest } = got;
    assert.equal(typeof id, 'number');
    assert.equal(seq, 1);
    assert.deepEqual(rest, {
      ...page,
      title: 'Title',
      description: 'Desc',
      headings: ['First', 'Second line'],
      body: 'Body text\twith tab',
    });
    assert.equal(q.getPage('http://a.test/missing'), undefined);
  });

  test('identifiers are stored for the exact-identifier index', () => {
    const q = pageQueries(env.db);
    const id = q.upsertPage(
      makePage('http://a.test/i', { body: 'Use capture_output=True or git-rebase, not __init__.' }),
    );
    assert.deepEqual(identIds(env.db, '"capture_output"'), [id]);
    assert.deepEqual(identIds(env.db, '"git-rebase"'), [id]);
    assert.deepEqual(identIds(env.db, '"__init__"'), [id]);
    assert.deepEqual(identIds(env.db, '"capture"'), [], 'only whole identifiers are in this index');
  });

  test('deferred entries of a batch of pages become one segment per index, searchable after the commit', () => {
    const q = pageQueries(env.db, { deferSearch: true });
    // Segments are counted by their rows of index data: no automatic merge may fold them meanwhile.
    for (const t of ['pages_fts', 'pages_idents'])
      env.db.exec(
        `INSERT INTO ${t} (${t}, rank) VALUES ('automerge', 0); INSERT INTO ${t} (${t}, rank) VALUES ('crisismerge', 1000)`,
      );
    const dataRows = () =>
      (
        env.db
          .prepare('SELECT (SELECT count(*) FROM pages_fts_data) + (SELECT count(*) FROM pages_idents_data) AS n')
          .get() as { n: number }
      ).n;
    const other = env.db.prepare('INSERT INTO revisits (url, interval_ms, checked_at, visited_at) VALUES (?, 1, 1, 1)');
    const before = dataRows();
    const ids = env.db.transaction(() => {
      const out: number[] = [];
      for (let i = 0; i < 20; i++) {
        out.push(q.upsertPage(makePage(`http://a.test/${i}`, { title: `Page ${i}`, body: `walrus number_${i}` })));
        other.run(`http://a.test/${i}`); // the batch's other writes go between, as in the crawler's batches
      }
      q.writeSearchEntries();
      return out;
    })();
    assert.ok(dataRows() - before <= 4, `the batch wrote ${dataRows() - before} rows of index data`);
    assert.deepEqual(ftsIds(env.db, 'walrus'), ids);
    assert.deepEqual(identIds(env.db, '"number_7"'), [ids[7]]);
    integrityCheck(env.db, true);
  });

  test('a page whose entries wait gets them before it is changed again in the same batch', () => {
    const q = pageQueries(env.db, { deferSearch: true });
    const seeds = seedQueries(env.db);
    const seed = seeds.upsertSeed({ url: 'http://a.test/', origin: 'http://a.test', depth: 1, scope: 'host' }, 1).seed
      .id;
    env.db.transaction(() => {
      q.upsertPage(makePage('http://a.test/gone', { body: 'heron' }));
      q.markPageGone('http://a.test/gone', 404, 2);
      q.upsertPage(makePage('http://a.test/again', { body: 'egret' }));
      q.upsertPage(makePage('http://a.test/again', { body: 'ibis' }));
      q.upsertPage(makePage('http://a.test/retired', { seedId: seed, body: 'crane' }));
      assert.equal(q.retireSeedPages(seed, 10), 1);
      q.upsertPage(makePage('http://a.test/kept', { body: 'stork' }));
      q.writeSearchEntries();
    })();
    for (const word of ['heron', 'egret', 'crane']) assert.deepEqual(ftsIds(env.db, word), [], word);
    assert.equal(ftsIds(env.db, 'ibis').length, 1);
    assert.equal(ftsIds(env.db, 'stork').length, 1);
    integrityCheck(env.db, false);
  });

  test('entries discarded with their rolled-back batch are not written with the next one', () => {
    const q = pageQueries(env.db, { deferSearch: true });
    assert.throws(
      () =>
        env.db.transaction(() => {
          q.upsertPage(makePage('http://a.test/lost', { body: 'puffin' }));
          throw new Error('the batch failed');
        })(),
      /the batch failed/,
    );
    q.discardSearchEntries();
    env.db.transaction(() => {
      q.upsertPage(makePage('http://a.test/kept', { body: 'gannet' }));
      q.writeSearchEntries();
    })();
    assert.deepEqual(ftsIds(env.db, 'puffin'), []);
    assert.equal(ftsIds(env.db, 'gannet').length, 1);
    integrityCheck(env.db, true);
  });

  test('countPages counts from the small index, not the wide rows', () => {
    const plan = env.db
      .prepare(
        'EXPLAIN QUERY PLAN SELECT count(*) AS pages, coalesce(sum(indexed), 0) AS indexed FROM pages INDEXED BY pages_indexed',
      )
      .all() as Array<{ detail: string }>;
    assert.match(plan.map((p) => p.detail).join(' '), /COVERING INDEX pages_indexed/);
  });
});

test('migration 0002 indexes pages stored before it', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-pages-'));
  const db = new BetterSqlite3(path.join(dir, 'x.db'));
  try {
    migrate(db, readMigrations().slice(0, 1));
    const insert =
      db.prepare(`INSERT INTO pages (url, final_url, origin, host, status, title, body, fetched_at, indexed, seq)
      VALUES (?, ?, 'http://a.test', 'a.test', 200, ?, ?, 1, ?, ?)`);
    insert.run('http://a.test/1', 'http://a.test/1', 'Old page', 'platypus', 1, 1);
    insert.run('http://a.test/2', 'http://a.test/2', 'Hidden page', 'platypus', 0, 2);
    migrate(db);
    assert.deepEqual(ftsIds(db, 'platypus'), [1]);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
