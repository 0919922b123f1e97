/**
 * Lantern's server process started on PostgreSQL as a person starts it: `DATABASE_URL=... node server/main.ts`
 * (from its sources, under tsx, so this file needs no build and does not race main.test.ts's), against a
 * throwaway cluster. It serves, takes a seed through the API, its crawler crawls a loopback site into
 * PostgreSQL, and search finds the page through the search copy in DATA_DIR. A DATABASE_URL nobody answers
 * stops the start with one line that names where (never the password) and what to do, leaving no database
 * file, no search copy and no lock behind.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort, spawnMain } from '../test-support/app-process.ts';
import { startTestPostgres, type TestPostgres } from '../test-support/postgres.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import { waitFor } from '../test-support/wait-for.ts';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
/** tsx's loader by its absolute location: the server runs in a temporary folder, where `tsx` alone does not resolve. */
const TSX = import.meta.resolve('tsx');

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

/** Starts `node server/main.ts` in `cwd` with only `env` beyond PATH and HOME, as main.test.ts starts the build. */
function startMain(cwd: string, env: Record<string, string>) {
  return spawnMain(['--import', TSX, MAIN], cwd, env);
}

test('on PostgreSQL it serves, takes a seed, crawls a loopback page into PostgreSQL, and search finds it', {
  timeout: 120_000,
}, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-pg-'));
  const dataDir = path.join(cwd, 'data');
  const url = await cluster.createDatabase();
  const port = await freePort();
  const web = await startTestWeb([
    {
      pages: {
        '/': '<!doctype html><title>Numbat home</title><p>a numbat page <a href="/burrow">the burrow</a></p>',
        '/burrow': '<!doctype html><title>Burrow</title><p>where the bilby sleeps</p>',
      },
    },
  ]);
  const site = web.sites[0];
  const main = startMain(cwd, {
    PORT: String(port),
    DATA_DIR: dataDir,
    DATABASE_URL: url,
    CRAWL_ALLOW_PRIVATE: '1',
    CRAWL_DELAY_MS: '0',
  });
  const api = `http://127.0.0.1:${port}/api`;
  const search = async (q: string) => {
    const res = await fetch(`${api}/search?q=${q}`);
    return res.ok ? ((await res.json()) as { results: Array<{ url: string }> }).results : [];
  };
  const record = new pg.Client({ connectionString: url });
  try {
    await waitFor(
      async () => {
        try {
          return (await fetch(`${api}/health`)).ok;
        } catch {
          return false;
        }
      },
      { timeoutMs: 60_000, message: () => `the server to answer on 127.0.0.1:${port}; stderr: ${main.stderr()}` },
    );
    const added = await fetch(`${api}/seeds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: site.url('/'), depth: 1 }),
    });
    assert.equal(added.status, 201);
    const found = await waitFor(
      async () => {
        const [home, burrow] = [await search('numbat'), await search('bilby')];
        return home.length === 1 && burrow.length === 1 && [home[0].url, burrow[0].url];
      },
      { timeoutMs: 60_000, intervalMs: 250, message: () => `both pages to be searchable; stderr: ${main.stderr()}` },
    );
    assert.deepEqual(found, [site.url('/'), site.url('/burrow')]);
    // The record is PostgreSQL: the seed and both pages are there, once each; DATA_DIR holds no SQLite record.
    await record.connect();
    const pages = await record.query<{ url: string }>('SELECT url FROM pages ORDER BY url');
    assert.deepEqual(
      pages.rows.map((r) => r.url),
      [site.url('/'), site.url('/burrow')],
    );
    const seeds = await record.query<{ url: string }>('SELECT url FROM seeds');
    assert.deepEqual(
      seeds.rows.map((r) => r.url),
      [site.url('/')],
    );
    assert.equal(existsSync(path.join(dataDir, 'lantern.db')), false, 'no SQLite record in DATA_DIR');
    main.child.kill('SIGTERM');
    assert.equal(await main.exited, 0, `stopped cleanly; stderr: ${main.stderr()}`);
  } finally {
    main.child.kill('SIGKILL');
    await record.end().catch(() => undefined); // never connected if the start failed
    await web.close();
    rmSync(cwd, { recursive: true, force: true });
  }
});

test('a DATABASE_URL nobody answers stops the start: exit code 1, one line naming where without the password and what to do, nothing left behind', {
  timeout: 60_000,
}, async () => {
  const cwd = mkdtempSync(path.join(os.tmpdir(), 'lantern-main-pg-'));
  const dataDir = path.join(cwd, 'data');
  const closed = await freePort(); // nothing listens there
  const main = startMain(cwd, {
    PORT: String(await freePort()),
    DATA_DIR: dataDir,
    DATABASE_URL: `postgres://lantern:hunter2secret@127.0.0.1:${closed}/lantern`,
  });
  try {
    assert.equal(await main.exited, 1, main.stderr());
    assert.equal(main.stdout(), '');
    const lines = main.stderr().split('\n').filter(Boolean);
    assert.equal(lines.length, 1, `one line: ${main.stderr()}`);
    assert.match(lines[0], /^lantern: could not start: /);
    assert.ok(
      lines[0].includes(`lantern@127.0.0.1:${closed}/lantern`),
      `it names user, host, port, database: ${lines[0]}`,
    );
    assert.match(lines[0], /start the server, or check DATABASE_URL/);
    assert.ok(!main.stderr().includes('hunter2secret'), 'the password is not shown');
    assert.deepEqual(
      existsSync(dataDir) ? readdirSync(dataDir) : [],
      [],
      'no SQLite database, no search copy, no lock left in DATA_DIR',
    );
  } finally {
    main.child.kill('SIGKILL');
    rmSync(cwd, { recursive: true, force: true });
  }
});
