/**
 * A full disk under a running crawl. DATA_DIR is a small tmpfs (mounted by the test, as root; CI runs
 * as root too; for anyone else the test is skipped, saying why), filled to the last byte in the middle
 * of a crawl. The crawler (the single writer) must say so clearly (its log, /api/status `lastError`,
 * which the web UI's status header shows), stop handing out work instead of fetching pages it cannot
 * store, keep what it fetched, and carry on by itself when space returns: every page stored exactly
 * once, each fetched exactly once, an intact file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, statfsSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../db/open.ts';
import { generateSite, generatedDepth, startTestWeb, waitFor } from '../test-support/test-web.ts';
import { startAppProcess, type AppProcess } from '../test-support/app-process.ts';

const PAGES = 80;
const TMPFS_SIZE = '16m';
/** Mounting a tmpfs needs root (CI runs as root); for anyone else the test says so and skips. */
const NEEDS_ROOT =
  process.getuid?.() === 0
    ? false
    : 'disk-full test: needs root to mount a 16 MB tmpfs as DATA_DIR (CI runs as root); the write retry itself is covered for everyone by crawler/coordination/crawl-primary.test.ts';

interface Status {
  pages: number;
  indexed: number;
  queued: number;
  inFlight: number;
  crawler: string;
  lastError: string | null;
}

/** Mounts a tmpfs of `size` on a fresh directory; throws, saying why, where mounting is not allowed. */
function mountTmpfs(size: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    const why = (err as { stderr?: Buffer }).stderr?.toString().trim() || (err as Error).message;
    throw new Error(`disk-full test: cannot mount a ${size} tmpfs on ${dir} (${why}); this test needs root, as in CI`);
  }
  return dir;
}

function unmount(dir: string): void {
  try {
    execFileSync('umount', [dir], { stdio: 'pipe' });
  } catch {
    execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `file` until the file system has no byte left; returns the bytes written. */
function fill(file: string): number {
  const fd = openSync(file, 'w');
  let bytes = 0;
  try {
    for (const chunk of [Buffer.alloc(1 << 20, 1), Buffer.alloc(4096, 1), Buffer.alloc(1, 1)]) {
      for (;;) {
        try {
          bytes += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return bytes;
}

test('a full disk mid-crawl: a clear error, the crawl pauses, nothing is lost or corrupted, and it resumes when space returns', {
  timeout: 90_000,
  skip: NEEDS_ROOT,
}, async () => {
  const web = await startTestWeb([generateSite({ pages: PAGES, prefix: 'full', bodyBytes: 8000, delayMs: 5 })]);
  const [site] = web.sites;
  const dataDir = mountTmpfs(TMPFS_SIZE);
  const filler = path.join(dataDir, 'filler');
  let app: AppProcess | undefined;
  try {
    // No free-space floor: at its default (1GB) the disk budget would pause the crawl on a 16 MB disk before
    // the first page (crawl-primary.test.ts tests that pause); here the disk really fills, under SQLite's writes.
    app = await startAppProcess({
      dataDir,
      env: { CRAWL_DELAY_MS: '20', CRAWL_WORKERS: '2', CRAWL_MIN_FREE_DISK: '0' },
    });
    const status = () => app!.getJson<Status>('/api/status');
    assert.equal((await app.postJson('/api/seeds', { url: site.url('/'), depth: generatedDepth(PAGES) })).status, 201);
    await waitFor(async () => (await status()).pages >= 15, { timeoutMs: 30_000, message: '15 pages stored' });
    const primary = app.primaryPid();

    const filled = fill(filler);
    assert.equal(statfsSync(dataDir).bfree, 0, 'the file system is full');
    const full = await waitFor(
      async () => {
        const s = await status();
        return s.lastError !== null && s;
      },
      { timeoutMs: 10_000, message: 'the crawler to report the full disk in /api/status' },
    );
    assert.match(
      full.lastError!,
      /^cannot write to the database in .* \(SQLITE_FULL: database or disk is full\): is the disk full or the file read-only\?/,
    );
    assert.equal(full.crawler, 'running', 'the crawler keeps running (it waits; it does not crash)');
    assert.match(app.output(), /crawler: cannot write to the database in .*SQLITE_FULL/, 'the log says it too');

    // Paused: no request starts while the writes keep failing (two retries apart, over a second).
    const attempt = (n: number) => new RegExp(`attempt ${n} failed`).test(app!.output());
    await waitFor(() => attempt(2), { timeoutMs: 10_000, message: 'the second failed attempt' });
    const requestsAt2 = site.log.length;
    await waitFor(() => attempt(4), { timeoutMs: 10_000, message: 'the fourth failed attempt' });
    assert.equal(site.log.length, requestsAt2, 'no page fetched while nothing can be stored');
    assert.ok((await status()).pages < PAGES, 'the crawl was cut short by the full disk');

    unlinkSync(filler);
    const done = await waitFor(
      async () => {
        const s = await status();
        return s.pages === PAGES && s.queued === 0 && s.inFlight === 0 && s;
      },
      { timeoutMs: 30_000, message: `the crawl to resume and store all ${PAGES} pages` },
    );
    assert.equal(done.lastError, null, 'the problem is cleared once writes succeed again');
    assert.match(app.output(), /crawler: the database takes writes again after [\d.]+ s; the crawl continues/);
    assert.equal(app.primaryPid(), primary, 'the same primary carried on: no restart was needed');
    const fetched = site.log.filter((r) => r.path !== '/robots.txt').map((r) => r.path);
    assert.equal(
      fetched.length,
      PAGES,
      'every page fetched exactly once: what was fetched during the outage was kept, not refetched',
    );
    assert.equal(new Set(fetched).size, PAGES);

    assert.deepEqual(await app.kill('SIGTERM'), { code: 0, signal: null });
    const db = openDatabase(dataDir, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      assert.deepEqual(db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT url) AS d FROM pages').get(), {
        n: PAGES,
        d: PAGES,
      });
      assert.deepEqual(db.prepare('SELECT state, COUNT(*) AS n FROM frontier GROUP BY state').all(), [
        { state: 'done', n: PAGES },
      ]);
    } finally {
      db.close();
    }
    const failures = (app.output().match(/attempt \d+ failed/g) ?? []).length;
    console.log(
      `disk-full: filled ${(filled / 1e6).toFixed(1)} MB at ${full.pages} pages; ${failures} failed write attempts; resumed and stored all ${PAGES}`,
    );
  } catch (err) {
    const output =
      app
        ?.output()
        .split('\n')
        .filter((l) => !l.startsWith('{'))
        .join('\n') ?? '';
    throw new Error(`${(err as Error).message}\n--- output ---\n${output}`, { cause: err });
  } finally {
    app?.killGroup();
    if (app) await app.exited;
    await web.close();
    unmount(dataDir);
  }
});
