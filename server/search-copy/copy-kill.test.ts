/**
 * The Lantern server killed while it builds its search copy (docs/scaling.md, "Faults"): a chunk of the feed is
 * applied in one SQLite transaction with its cursor, so a kill -9 in the middle of one loses that chunk whole and the
 * next start reads it again. A real server process builds a copy of 2,000 pages and 1,000 link targets (15 chunks of
 * FEED_CHUNK changes); once its log shows the build under way, the test kills it with SIGKILL while it holds the
 * copy's write lock, i.e. mid-chunk (no sleep: see killMidChunk), twice, and checks each time that the copy holds
 * exactly the pages up to its cursor. Started again on the same DATA_DIR, the copy ends complete and equal to the
 * record: every page once under its PostgreSQL id, the FTS5 indexes holding one entry per searchable page and link
 * target and sound, each page found by its own word, and every answer the same as a server that built its copy
 * without a kill. With the cursor committed before its chunk, the first kill already leaves a copy short of its
 * cursor.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { type AppProcess, startAppProcess } from '../../test-support/app-process.ts';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import {
  checkCopyIndexes,
  copyCaughtUp,
  copyWriteProbe,
  queryCopy,
  readCopyState,
} from '../../test-support/search-copies.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { FEED_CHUNK } from './search-feed.ts';

/** Pages and link targets in the record: 15 chunks, so the build is far from done at its first progress line. */
const PAGES = 2000;
const TARGETS = 1000;
/** What the log says while the copy is built (search-feed.ts). */
const BUILDING = 'building the search copy from PostgreSQL';

let cluster: TestPostgres;
let pool: pg.Pool;
let url: string;
const servers: AppProcess[] = [];
const dirs: string[] = [];

/** The word only page `n` holds (fixed width: none is a prefix of another). */
const token = (n: number) => `unique${String(n).padStart(5, '0')}`;

before(async () => {
  cluster = await startTestPostgres();
  url = await cluster.createDatabase();
  pool = openPgPool(url, { max: 2, warn: () => undefined });
  await migratePg(pool);
  // A few kilobytes of text per page, so applying a chunk (FTS5 tokenizing it) is most of a chunk's time.
  await pool.query(
    `INSERT INTO pages (url, final_url, origin, host, status, fetched_at, title, body)
     SELECT 'http://site' || (n % 7) || '.test/page/' || n, 'http://site' || (n % 7) || '.test/page/' || n,
       'http://site' || (n % 7) || '.test', 'site' || (n % 7) || '.test', 200, 1000 + n,
       'Page ' || n || ' of the ' || (ARRAY['wombat', 'quokka', 'numbat', 'bilby', 'dunnart'])[1 + n % 5] || ' notes',
       'unique' || lpad(n::text, 5, '0') || ' ' ||
         repeat('the ' || (ARRAY['wombat', 'quokka', 'numbat', 'bilby', 'dunnart'])[1 + n % 5] || ' digs a burrow ' ||
           'near word' || (n % 97) || ' and word' || (n % 89) || ' under the eucalyptus tree ', 40)
     FROM generate_series(1, $1::int) AS n`,
    [PAGES],
  );
  await pool.query(
    `INSERT INTO link_targets (url, inlinks, sources, anchors, anchor_counts)
     SELECT 'http://site' || (n % 7) || '.test/page/' || n, 1, '\\x01000000'::bytea, 'burrow map ' || n, '1'
     FROM generate_series(1, $1::int) AS n`,
    [TARGETS],
  );
});

after(async () => {
  for (const s of servers) s.killGroup();
  await Promise.all(servers.map((s) => s.exited));
  await pool?.end();
  cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A new empty DATA_DIR. */
function dataDir(name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), `lantern-copy-kill-${name}-`));
  dirs.push(dir);
  return dir;
}

/** A Lantern server on the record's database in `dir`. */
async function startServer(dir: string, name: string): Promise<AppProcess> {
  const server = await startAppProcess({
    dataDir: dir,
    env: { DATABASE_URL: url, CRAWL_WORKERS: '1', CRAWL_NODE_ID: `node-${name}` },
    healthTimeoutMs: 60_000,
  });
  servers.push(server);
  return server;
}

/** Waits until `server`'s copy has caught up with the record and its title index is built. */
async function untilBuilt(server: AppProcess): Promise<void> {
  await waitFor(
    async () =>
      (await copyCaughtUp(server.dataDir, pool)) === true &&
      (await server.getJson<{ searchReady: boolean }>('/api/status')).searchReady,
    {
      timeoutMs: 60_000,
      intervalMs: 50,
      message: `the search copy of ${server.baseURL} built`,
      progress: () => String(readCopyState(server.dataDir)?.pages ?? 0),
    },
  );
}

/**
 * Kills `server` with SIGKILL in the middle of applying a chunk: once its log shows the build under way, within a
 * fraction of a millisecond of the copy's write lock being taken (the server writes a chunk, its cursor with it, in
 * one transaction that holds the lock for tens of milliseconds), then the rest of its process group.
 */
async function killMidChunk(server: AppProcess): Promise<void> {
  await waitFor(() => server.output().includes(BUILDING) || !server.running(), {
    timeoutMs: 60_000,
    intervalMs: 5,
    message: () => `the build's progress in the log; output:\n${server.output()}`,
  });
  const probe = copyWriteProbe(server.dataDir);
  try {
    await waitFor(() => probe.writingWithin(200) || !server.running(), {
      timeoutMs: 60_000,
      intervalMs: 1,
      message: 'the server to write a chunk into the copy',
    });
    process.kill(server.pid, 'SIGKILL');
  } finally {
    probe.close();
  }
  server.killGroup();
  const exit = await server.exited;
  assert.equal(exit.signal, 'SIGKILL', `killed mid-build, not ended by itself; output:\n${server.output()}`);
}

/** What a person sees of a search, `tookMs` left out. */
async function answer(server: AppProcess, pathAndQuery: string): Promise<Record<string, unknown>> {
  const { tookMs: _took, ...rest } = await server.getJson<Record<string, unknown>>(pathAndQuery);
  return rest;
}

test('a server killed -9 twice while building its copy ends with the whole copy, each page once, as an unkilled one', {
  timeout: 300_000,
}, async () => {
  const record = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM pages')).rows[0].n;
  assert.ok(record + TARGETS >= 15 * FEED_CHUNK, 'many chunks to build');

  const dir = dataDir('killed');
  let partial = 0;
  for (const round of [1, 2]) {
    const server = await startServer(dir, `killed-${round}`);
    await killMidChunk(server);
    const state = readCopyState(dir);
    assert.ok(state !== undefined, 'the copy exists');
    const upTo = await pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM pages WHERE (change_xid, change_seq) <= ($1::xid8, $2::bigint)',
      [state.cursor.xid, state.cursor.seq],
    );
    assert.equal(state.pages, upTo.rows[0].n, `round ${round}: the copy holds exactly the pages up to its cursor`);
    assert.equal(state.caughtUp, false, `round ${round}: killed before its build ended`);
    assert.ok(
      state.pages > partial && state.pages < record,
      `round ${round}: a partial copy, further than the last (${state.pages} of ${record} pages, ${partial} before)`,
    );
    partial = state.pages;
  }
  // Started again on the same DATA_DIR, beside a server that builds its copy from nothing without a kill.
  const [restarted, unkilled] = await Promise.all([
    startServer(dir, 'killed-3'),
    startServer(dataDir('unkilled'), 'unkilled'),
  ]);
  await untilBuilt(restarted);
  assert.ok(!restarted.output().includes('removed, and rebuilding'), 'the copy was continued, not rebuilt');

  // Complete and once: the record's pages under their ids, one FTS5 entry per searchable page and link target.
  const ids = (await pool.query<{ id: number }>('SELECT id FROM pages ORDER BY id')).rows.map((r) => r.id);
  const copied = queryCopy<{ id: number }>(dir, 'SELECT id FROM pages ORDER BY id').map((r) => r.id);
  assert.deepEqual(copied, ids, 'every page of the record, once, under its id');
  const [counts] = queryCopy<{ fts: number; idents: number; targets: number; anchors: number; indexed: number }>(
    dir,
    `SELECT (SELECT count(*) FROM pages_fts_docsize) AS fts, (SELECT count(*) FROM pages_idents_docsize) AS idents,
       (SELECT count(*) FROM link_targets) AS targets, (SELECT count(*) FROM anchors_fts_docsize) AS anchors,
       (SELECT count(*) FROM pages WHERE indexed = 1) AS indexed`,
  );
  assert.deepEqual(counts, { fts: record, idents: record, targets: TARGETS, anchors: TARGETS, indexed: record });
  checkCopyIndexes(dir);

  // Each page found once by its own word, through the server (a sample: every 37th page, and the first and last).
  for (const n of [1, ...Array.from({ length: Math.floor(record / 37) }, (_, i) => (i + 1) * 37), record]) {
    const found = await restarted.getJson<{ total: number; results: Array<{ url: string }> }>(
      `/api/search?q=${token(n)}`,
    );
    assert.equal(found.total, 1, `${token(n)} finds one page`);
    assert.match(found.results[0].url, new RegExp(`/page/${n}$`));
  }

  // The same answers as the server that built its copy without a kill.
  await untilBuilt(unkilled);
  for (const q of ['wombat burrow', 'eucalyptus', 'quokka', 'word42 word17', 'burrow map', 'page 1234', 'numb']) {
    for (const offset of [0, 10]) {
      const at = `/api/search?q=${encodeURIComponent(q)}&offset=${offset}`;
      assert.deepEqual(await answer(restarted, at), await answer(unkilled, at), `${at}: as the unkilled server`);
    }
  }
  assert.deepEqual(
    await answer(restarted, '/api/suggest?q=quo'),
    await answer(unkilled, '/api/suggest?q=quo'),
    'suggestions as the unkilled server',
  );
});
