/**
 * Search on PostgreSQL across restarts of the server, with one DATA_DIR: the copy is kept for the same database
 * (search answers at once, the feed continues from its cursor), built from the start with its progress in the
 * log when missing, and removed and rebuilt when DATABASE_URL names another database, never mixed.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { readPgIdentity } from '../../db/pg/pg-change-feed.ts';
import { openSearchCopy } from '../../db/search-copy.ts';
import { makePage } from '../../test-support/test-corpus.ts';
import { openSearchSide, type SearchSide } from './search-side.ts';

let cluster: TestPostgres;
let dataDir: string;
before(async () => {
  cluster = await startTestPostgres();
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-side-'));
});
after(() => {
  cluster?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const INSERT = `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body)
  VALUES ($1, $1, 'http://side.test', 'side.test', 200, 1, $2, $2)`;

/** Opens search on `url` with the shared DATA_DIR, a small chunk, and its log kept. */
async function open(url: string): Promise<{ side: SearchSide; log: string[] }> {
  const log: string[] = [];
  const side = await openSearchSide(
    { dataDir, databaseUrl: url },
    { log: { info: (m) => log.push(m), warn: (m) => log.push(m) }, feed: { chunk: 2 } },
  );
  return { side, log };
}

function found(side: SearchSide, q: string): string[] {
  return side.search
    .search(q, { limit: 50, offset: 0 })
    .results.map((r) => r.url)
    .sort();
}

/** A new database with Lantern's schema. */
async function migrated(): Promise<string> {
  const url = await cluster.createDatabase();
  const pool = openPgPool(url, { max: 1 });
  try {
    await migratePg(pool);
  } finally {
    await pool.end();
  }
  return url;
}

async function insert(url: string, pages: Array<[string, string]>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const p of pages) await client.query(INSERT, p);
  } finally {
    await client.end();
  }
}

test('built with progress when missing, kept and continued for the same database, rebuilt for another one', async () => {
  const one = await migrated();
  const two = await migrated();
  const five = [1, 2, 3, 4, 5].map((n): [string, string] => [`http://side.test/one/${n}`, `alpaca ${n}`]);
  await insert(one, five);

  let { side, log } = await open(one);
  side.start();
  await waitFor(() => found(side, 'alpaca').length === 5, { message: 'the copy built from database one' });
  await waitFor(() => log.some((m) => m.startsWith('search-feed: the search copy is built: 5 changes')), {
    message: () => `the end of the build in the log (${log.join(' | ')})`,
  });
  assert.match(log[0] ?? '', /^search-side: no search copy in .* yet; building it from PostgreSQL$/);
  assert.ok(
    log.some((m) =>
      /^search-feed: building the search copy from PostgreSQL: 2 of about 5 changes \(pages and link targets\)$/.test(
        m,
      ),
    ),
    log.join(' | '),
  );
  await side.close();

  await insert(one, [['http://side.test/one/6', 'alpaca six, stored while the server was down']]);
  ({ side, log } = await open(one));
  assert.equal(found(side, 'alpaca').length, 5, 'kept: search answers from the copy before the feed runs');
  side.start();
  await waitFor(() => found(side, 'alpaca').length === 6, { message: 'the page stored meanwhile' });
  assert.ok(!log.some((m) => m.startsWith('search-side:')), `nothing rebuilt: ${log.join(' | ')}`);
  await side.close();

  await insert(two, [['http://side.test/two/1', 'bison of database two']]);
  ({ side, log } = await open(two));
  assert.match(
    log[0] ?? '',
    /^search-side: the search copy in .* was made from another database; removed, and rebuilding it from PostgreSQL$/,
  );
  assert.deepEqual(found(side, 'alpaca'), [], 'nothing of database one is left');
  side.start();
  await waitFor(() => found(side, 'bison').length === 1, { message: 'the copy rebuilt from database two' });
  assert.deepEqual(found(side, 'alpaca'), []);
  await side.close();
});

test('a copy ahead of its database (restored from an older backup: same identity, earlier transaction ids) is rebuilt', async () => {
  const three = await migrated();
  await insert(three, [['http://side.test/three/1', 'capybara of database three']]);
  let { side, log } = await open(three);
  side.start();
  await waitFor(() => found(side, 'capybara').length === 1, { message: 'the copy built from database three' });
  await side.close();

  // The copy as it would stand after the database behind it went back to an older backup: a cursor past
  // every transaction id the database has handed out, and a page the database no longer holds.
  const pool = openPgPool(three, { max: 1 });
  const { copy } = openSearchCopy(dataDir, await readPgIdentity(pool));
  await pool.end();
  copy.apply([
    {
      kind: 'page',
      pgId: 99,
      removed: false,
      at: { xid: '4000000000', seq: 1 },
      page: makePage('http://side.test/three/gone', { title: 'capybara from the future', body: 'capybara' }),
    },
  ]);
  copy.close();

  ({ side, log } = await open(three));
  assert.match(log[0] ?? '', /was ahead of the database \(restored from an older backup\?\); removed, and rebuilding/);
  side.start();
  await waitFor(() => found(side, 'capybara').length === 1, { message: 'the copy rebuilt from database three' });
  assert.deepEqual(found(side, 'capybara'), ['http://side.test/three/1']);
  await side.close();
});
