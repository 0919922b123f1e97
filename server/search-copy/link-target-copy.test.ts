/**
 * Link targets through the change feed, on a throwaway PostgreSQL cluster and real SQLite files: the same links
 * written by the crawler's two writers (db/link-targets.ts on SQLite, db/pg/pg-link-targets.ts on PostgreSQL)
 * leave the search copy with exactly the link_targets rows and anchors_fts entries of the SQLite crawl, new
 * targets and updated ones alike.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import type pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { type LinkOut, linkTargetQueries } from '../../db/link-targets.ts';
import { openDatabase } from '../../db/open.ts';
import { copyFromSqlite } from '../../db/pg/copy-from-sqlite.ts';
import { migratePg, PG_MIGRATIONS_DIR } from '../../db/pg/migrate-pg.ts';
import { readMigrations } from '../../db/migrate.ts';
import { pageQueries } from '../../db/pages.ts';
import { makePage } from '../../test-support/test-corpus.ts';
import { readPageChanges, readPgIdentity } from '../../db/pg/pg-change-feed.ts';
import { pgLinkTargetQueries } from '../../db/pg/pg-link-targets.ts';
import type { PgRunner } from '../../db/pg/pg-runner.ts';
import { openPgPool, rows } from '../../db/pg/pool.ts';
import { openSearchCopy, type SearchCopy } from '../../db/search-copy.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** A PgRunner straight on the pool (each statement its own transaction), as pgLinkTargetQueries needs. */
function runnerOn(pool: pg.Pool): PgRunner {
  return {
    rows: (s, values = []) => rows(pool, s, values),
    changed: async (s, values = []) => (await pool.query(s.text, values as unknown[])).rowCount ?? 0,
    write: async (s, values = []) => {
      await pool.query(s.text, values as unknown[]);
    },
  };
}

/** Applies the feed to the copy in chunks of `size` (two by default) until it answers nothing. */
async function follow(pool: pg.Pool, copy: SearchCopy, size = 2): Promise<void> {
  for (;;) {
    const chunk = await readPageChanges(pool, copy.cursor, size);
    if (chunk.length === 0) return;
    copy.apply(chunk);
  }
}

/** The link_targets rows by url (ids differ between a crawl and a copy only if the writers diverged). */
function targetRows(db: Database) {
  return db
    .prepare('SELECT id, url, inlinks, hex(sources) AS sources, anchors, anchor_counts FROM link_targets ORDER BY url')
    .all();
}

/** Every term anchors_fts holds, with the url of its row and its position: the index's whole content. */
function anchorIndex(db: Database): string[] {
  db.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.anchor_terms USING fts5vocab('main', 'anchors_fts', 'instance')");
  return (
    db
      .prepare('SELECT v.term, t.url, v.offset FROM anchor_terms v JOIN link_targets t ON t.id = v.doc')
      .all() as Array<{ term: string; url: string; offset: number }>
  )
    .map((r) => `${r.url} ${r.term} ${r.offset}`)
    .sort();
}

const T = (n: number) => `http://t.test/${n}`;
/** A glossary linked under MAX_ANCHORS (48) texts by 48 pages: a 49th text takes the place of `term0`. */
const GLOSSARY: Array<[number, LinkOut[]]> = Array.from({ length: 48 }, (_, i) => [
  100 + i,
  [{ url: T(9), text: `term${i}` }],
]);
/** Two batches of a crawl: new targets, then pages that add sources and texts to known ones (and a new one). */
const BATCHES: Array<Array<[number, LinkOut[]]>> = [
  [
    ...GLOSSARY,
    [
      1,
      [
        { url: T(1), text: 'Striped zebra' },
        { url: T(2), text: 'grey heron' },
      ],
    ],
    [
      2,
      [
        { url: T(1), text: 'zebra crossing' },
        { url: T(3), text: '' },
      ],
    ],
  ],
  [
    [
      3,
      [
        { url: T(1), text: 'striped ZEBRA' },
        { url: T(3), text: 'okapi forest' },
      ],
    ],
    [4, [{ url: T(4), text: 'lonely tapir' }]],
    [5, [{ url: T(2), text: 'heron again' }]],
    [6, [{ url: T(9), text: 'walrus' }]],
  ],
];

test('link targets written in PostgreSQL reach the copy with the rows and anchors_fts of a SQLite crawl', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-linkfeed-'));
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 3 });
  const sqlite = openDatabase(path.join(dir, 'sqlite'));
  let copy: SearchCopy | undefined;
  try {
    await migratePg(pool);
    copy = openSearchCopy(path.join(dir, 'copy'), await readPgIdentity(pool)).copy;
    const onSqlite = linkTargetQueries(sqlite);
    const onPg = pgLinkTargetQueries(runnerOn(pool));
    for (const batch of BATCHES) {
      sqlite.transaction(() => {
        for (const [source, links] of batch) onSqlite.gatherLinks(source, links);
        onSqlite.writeGathered();
      })();
      for (const [source, links] of batch) await onPg.gatherLinks(source, links);
      await onPg.writeGathered();
      await follow(pool, copy); // after each batch: the second one updates rows the copy already holds
    }

    assert.equal(targetRows(sqlite).length, 5);
    assert.deepEqual(targetRows(copy.db), targetRows(sqlite));
    const index = anchorIndex(sqlite);
    assert.ok(index.includes(`${T(1)} zebra 1`) && index.includes(`${T(2)} again 3`), index.join('\n'));
    assert.ok(index.includes(`${T(9)} walru 0`) && !index.some((e) => e.includes(' term0 ')), 'term0 gave its place');
    assert.deepEqual(anchorIndex(copy.db), index);
    const matching = (db: Database, word: string) =>
      db.prepare('SELECT rowid FROM anchors_fts WHERE anchors_fts MATCH ?').pluck().all(word);
    for (const word of ['term0', 'term1', 'walrus', 'heron', 'okapi'])
      assert.deepEqual(matching(copy.db, word), matching(sqlite, word), `anchors matching ${word}`);
    // The index agrees with its content table (fts5's own check: a stale entry left by an update fails it).
    copy.db.prepare("INSERT INTO anchors_fts (anchors_fts) VALUES ('integrity-check')").run();
  } finally {
    copy?.close();
    sqlite.close();
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a SQLite database copied into PostgreSQL reaches the copy whole: no link target shares a page's place in the feed", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-linkfeed-'));
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 3 });
  const sqlite = openDatabase(path.join(dir, 'sqlite'));
  let copy: SearchCopy | undefined;
  try {
    await migratePg(pool);
    const pages = pageQueries(sqlite);
    const links = linkTargetQueries(sqlite);
    sqlite.transaction(() => {
      for (const n of [1, 2, 3, 4]) {
        const id = pages.upsertPage(makePage(`http://s.test/${n}`, { title: `Page ${n}`, body: `body ${n}` }));
        links.recordLinks(id, [{ url: `http://s.test/${n + 1}`, text: `next after ${n}` }]);
      }
    })();
    // copy-from-sqlite keeps SQLite's seq for pages (1..4) in one transaction that also inserts the link targets.
    await copyFromSqlite(sqlite, pool);
    copy = openSearchCopy(path.join(dir, 'copy'), await readPgIdentity(pool)).copy;
    await follow(pool, copy, 1); // a chunk of one: a change tied with another at (xid, seq) would be stepped over
    assert.deepEqual(copy.db.prepare('SELECT url FROM pages ORDER BY url').pluck().all(), [
      'http://s.test/1',
      'http://s.test/2',
      'http://s.test/3',
      'http://s.test/4',
    ]);
    assert.deepEqual(targetRows(copy.db), targetRows(sqlite));
    assert.deepEqual(anchorIndex(copy.db), anchorIndex(sqlite));
  } finally {
    copy?.close();
    sqlite.close();
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('link targets written before migration 0004 reach a copy that was already past them', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-linkfeed-'));
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 3 });
  let copy: SearchCopy | undefined;
  try {
    const before0004 = readMigrations(PG_MIGRATIONS_DIR).filter((m) => m.version < 4);
    await migratePg(pool, before0004);
    await pool.query(
      "INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts) VALUES ('http://o.test/1', 1, '\\x01000000', 'old anchor', '1')",
    );
    await pool.query(
      "INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body) VALUES ('http://o.test/2', 'http://o.test/2', 'http://o.test', 'o.test', 200, 1, 'Later', 'a later page')",
    );
    const page = (
      await pool.query<{ xid: string; seq: number }>(
        "SELECT change_xid::text AS xid, change_seq::int AS seq FROM pages WHERE url = 'http://o.test/2'",
      )
    ).rows[0];
    assert.ok(page !== undefined && page.xid !== '0');
    await migratePg(pool);
    // A copy made before the upgrade (by the feed of then, which read pages alone) stands at the later page.
    copy = openSearchCopy(path.join(dir, 'copy'), await readPgIdentity(pool)).copy;
    copy.db.prepare('UPDATE search_copy_state SET cursor_xid = ?, cursor_seq = ?').run(page.xid, page.seq);
    await follow(pool, copy);
    assert.deepEqual(copy.db.prepare('SELECT url, inlinks, anchors FROM link_targets').all(), [
      { url: 'http://o.test/1', inlinks: 1, anchors: 'old anchor' },
    ]);
    assert.deepEqual(copy.db.prepare("SELECT rowid FROM anchors_fts WHERE anchors_fts MATCH 'old'").pluck().all(), [1]);
  } finally {
    copy?.close();
    await pool.end();
    rmSync(dir, { recursive: true, force: true });
  }
});
