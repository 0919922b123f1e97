/**
 * The search copy on a real SQLite file in a temporary DATA_DIR: changes applied become (or stop being)
 * searchable through SearchService as on SQLite, the cursor survives a reopen, and a copy that is unreadable or
 * made from another database is rebuilt empty, never mixed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makePage } from '../../test-support/test-corpus.ts';
import { SearchService } from '../search/search-service.ts';
import type { FeedCursor, PageChangeEvent, PgIdentity } from '../../db/pg/pg-change-feed.ts';
import { openSearchCopy, SEARCH_COPY_DIR } from '../../db/search-copy.ts';
import type { PageRecord } from '../../db/pages.ts';
import { DB_FILE } from '../../db/open.ts';

const ONE: PgIdentity = { systemId: '7001', instanceId: 'one' };
let clock = 0;
const at = (): FeedCursor => ({ xid: '900', seq: ++clock });

const written = (pgId: number, page: PageRecord, removed = false): PageChangeEvent => ({
  kind: 'page',
  pgId,
  page,
  removed,
  at: at(),
});
const deleted = (pgId: number, url: string): PageChangeEvent => ({ kind: 'deleted', pgId, url, at: at() });
const page = (url: string, body: string, fields: Partial<PageRecord> = {}) =>
  makePage(url, { title: body, body, ...fields });

function tempDataDir(): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-copy-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a search for `q` on the copy finds, as a person sees it (urls). */
function found(db: import('better-sqlite3').Database, q: string): string[] {
  const service = new SearchService(db);
  try {
    service.refresh();
    return service
      .search(q, { limit: 10, offset: 0 })
      .results.map((r) => r.url)
      .sort();
  } finally {
    service.close();
  }
}

test('pages applied become searchable; unindexed, retired and deleted ones leave search; a deletion after a newer row took its url spares it', () => {
  const t = tempDataDir();
  const { copy, rebuilt } = openSearchCopy(t.dir, ONE);
  try {
    assert.equal(rebuilt, 'missing');
    copy.apply([
      written(1, page('http://a.test/1', 'aardvark one', { seedId: 41 })),
      written(2, page('http://a.test/2', 'aardvark two')),
      written(3, page('http://a.test/3', 'aardvark three')),
      written(4, page('http://a.test/4', 'aardvark four')),
      written(5, page('http://a.test/5', 'aardvark five')),
    ]);
    assert.deepEqual(
      found(copy.db, 'aardvark'),
      [1, 2, 3, 4, 5].map((n) => `http://a.test/${n}`),
    );
    copy.apply([
      written(1, page('http://a.test/1', 'aardvark one', { indexed: false, noindex: true })),
      written(2, page('http://a.test/2', '', { indexed: false }), true),
      deleted(3, 'http://a.test/3'),
      // Row 4's url, deleted by one transaction and stored again as row 6 by another whose change comes first.
      written(6, page('http://a.test/4', 'aardvark four again')),
      deleted(4, 'http://a.test/4'),
      written(5, page('http://a.test/5', 'zebra five')),
    ]);
    assert.deepEqual(found(copy.db, 'aardvark'), ['http://a.test/4']);
    assert.deepEqual(found(copy.db, 'zebra'), ['http://a.test/5']);
    assert.deepEqual(found(copy.db, 'again'), ['http://a.test/4']);
  } finally {
    copy.close();
    t.cleanup();
  }
});

test('the cursor lives in the copy: reopened for the same database, it continues where it stopped', () => {
  const t = tempDataDir();
  try {
    const first = openSearchCopy(t.dir, ONE).copy;
    const last = written(1, page('http://a.test/1', 'kept'));
    first.apply([last]);
    first.close();
    const { copy, rebuilt } = openSearchCopy(t.dir, ONE);
    assert.equal(rebuilt, undefined);
    assert.deepEqual(copy.cursor, last.at);
    assert.deepEqual(found(copy.db, 'kept'), ['http://a.test/1']);
    copy.close();
  } finally {
    t.cleanup();
  }
});

test('a copy made from another database, or unreadable, is removed and rebuilt from the start, never mixed', () => {
  const t = tempDataDir();
  try {
    const first = openSearchCopy(t.dir, ONE).copy;
    first.apply([written(1, page('http://one.test/', 'platypus'))]);
    first.close();
    const other = openSearchCopy(t.dir, { systemId: '7001', instanceId: 'two' });
    assert.equal(other.rebuilt, 'another-database');
    assert.deepEqual(other.copy.cursor, { xid: '0', seq: 0 });
    assert.deepEqual(found(other.copy.db, 'platypus'), []);
    assert.deepEqual(other.copy.identity, { systemId: '7001', instanceId: 'two' });
    other.copy.close();

    const cluster = openSearchCopy(t.dir, { systemId: '8002', instanceId: 'two' });
    assert.equal(cluster.rebuilt, 'another-database', 'same instance id on another cluster');
    cluster.copy.close();

    for (const f of ['-wal', '-shm']) rmSync(path.join(t.dir, SEARCH_COPY_DIR, `${DB_FILE}${f}`), { force: true });
    writeFileSync(
      path.join(t.dir, SEARCH_COPY_DIR, DB_FILE),
      'not a database at all, but long enough to be read'.repeat(100),
    );
    const broken = openSearchCopy(t.dir, ONE);
    assert.equal(broken.rebuilt, 'unreadable');
    broken.copy.apply([written(1, page('http://one.test/', 'platypus'))]);
    assert.deepEqual(found(broken.copy.db, 'platypus'), ['http://one.test/']);
    broken.copy.close();
  } finally {
    t.cleanup();
  }
});

/** A copy's searchable rows as (id, url), by id, and its FTS5 index checked against them. */
function rowsOf(db: import('better-sqlite3').Database): Array<{ id: number; url: string }> {
  db.exec("INSERT INTO pages_fts (pages_fts, rank) VALUES ('integrity-check', 0)");
  return db.prepare<[], { id: number; url: string }>('SELECT id, url FROM pages WHERE indexed = 1 ORDER BY id').all();
}

test("every copy keeps PostgreSQL's ids, whatever chunks it read, so ties rank alike on every server", () => {
  const live = tempDataDir();
  const fresh = tempDataDir();
  const a = openSearchCopy(live.dir, ONE).copy;
  const b = openSearchCopy(fresh.dir, ONE).copy;
  try {
    const tie = (n: number, url: string) => written(n, page(url, 'All about the wombat', { title: `Notes ${n}` }));
    // The live copy read each page as it was first stored, then row 1 again; the fresh one reads the feed later,
    // where each row stands at its last write: row 1 after the others.
    a.apply([tie(1, 'http://a.test/1'), tie(2, 'http://b.test/2'), tie(3, 'http://c.test/3')]);
    a.apply([tie(1, 'http://a.test/1'), written(4, page('http://d.test/4', 'aardvark'))]);
    b.apply([tie(2, 'http://b.test/2'), tie(3, 'http://c.test/3')]);
    b.apply([tie(1, 'http://a.test/1'), written(4, page('http://d.test/4', 'aardvark'))]);
    const expected = [
      { id: 1, url: 'http://a.test/1' },
      { id: 2, url: 'http://b.test/2' },
      { id: 3, url: 'http://c.test/3' },
      { id: 4, url: 'http://d.test/4' },
    ];
    assert.deepEqual(rowsOf(a.db), expected);
    assert.deepEqual(rowsOf(b.db), expected);
    const ranked = (db: import('better-sqlite3').Database) => {
      const service = new SearchService(db);
      try {
        service.refresh();
        return service.search('wombat', { limit: 10, offset: 0 }).results.map((r) => r.url);
      } finally {
        service.close();
      }
    };
    assert.deepEqual(ranked(b.db), ranked(a.db), 'the tied pages in the same order');

    // Row 4's url stored again as row 6 (deleted and crawled anew), the tombstone read after: the url is row 6's.
    for (const copy of [a, b]) copy.apply([written(6, page('http://d.test/4', 'aardvark anew')), deleted(4, 'x')]);
    for (const copy of [a, b]) {
      assert.deepEqual(rowsOf(copy.db).at(-1), { id: 6, url: 'http://d.test/4' });
      assert.deepEqual(found(copy.db, 'aardvark'), ['http://d.test/4']);
    }
  } finally {
    a.close();
    b.close();
    live.cleanup();
    fresh.cleanup();
  }
});

test('a row whose url changed in PostgreSQL keeps its id under the new url; the old url leaves search', () => {
  const t = tempDataDir();
  const { copy } = openSearchCopy(t.dir, ONE);
  try {
    copy.apply([written(8, page('http://a.test/old', 'gecko')), written(9, page('http://a.test/other', 'skink'))]);
    copy.apply([written(8, page('http://a.test/new', 'gecko moved'))]);
    assert.deepEqual(found(copy.db, 'gecko'), ['http://a.test/new']);
    // Row 9 takes row 8's url: row 8 is moved aside, out of search, and row 9 holds the url.
    copy.apply([written(9, page('http://a.test/new', 'skink now'))]);
    assert.deepEqual(found(copy.db, 'gecko'), []);
    assert.deepEqual(found(copy.db, 'skink'), ['http://a.test/new']);
    assert.deepEqual(rowsOf(copy.db), [{ id: 9, url: 'http://a.test/new' }]);
  } finally {
    copy.close();
    t.cleanup();
  }
});

test("a copy of an older format (pages numbered in the copy's own order) is rebuilt from the start", () => {
  const t = tempDataDir();
  try {
    const first = openSearchCopy(t.dir, ONE).copy;
    first.apply([written(7, page('http://one.test/', 'platypus'))]);
    first.db.exec('ALTER TABLE search_copy_state DROP COLUMN format'); // as a copy of format 1 was made
    first.close();
    const { copy, rebuilt } = openSearchCopy(t.dir, ONE);
    assert.equal(rebuilt, 'another-schema');
    assert.deepEqual(copy.cursor, { xid: '0', seq: 0 });
    assert.deepEqual(found(copy.db, 'platypus'), []);
    copy.close();
    assert.equal(openSearchCopy(t.dir, ONE).rebuilt, undefined, 'the rebuilt copy is kept at the next start');
  } finally {
    t.cleanup();
  }
});
