/**
 * Stopping Lantern the way people do: SIGTERM to the server (a service manager, `kill`) and Ctrl+C in
 * a terminal (SIGINT to the whole process group). The server stops taking requests at once, the
 * crawler hands out no more work, a fetch in flight gets its few seconds (its page is stored), a fetch
 * that does not finish in time goes back to the queue, and every process exits: no orphaned worker.
 * Real processes (the built server when fresh, see startAppProcess), real loopback sites, judged by the sites' logs,
 * /proc and the SQLite file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../db/open.ts';
import { now, startTestWeb, waitFor, type TestSite } from '../test-support/test-web.ts';
import { startAppProcess, type AppProcess } from '../test-support/app-process.ts';
import { isAlive } from '../test-support/proc.ts';

const SLOW_MS = 1500;

const inFlight = (site: TestSite, path: string) => site.requestsTo(path).some((r) => Number.isNaN(r.end));

const ways: Array<{ name: string; send: (app: AppProcess) => void }> = [
  { name: 'SIGTERM to the server', send: (app) => process.kill(app.pid, 'SIGTERM') },
  { name: 'Ctrl+C (SIGINT to the whole process group)', send: (app) => process.kill(-app.pid, 'SIGINT') },
];

for (const way of ways) {
  test(`${way.name}: requests refused, no new work, in-flight fetches finish or return to the queue, every process exits`, {
    timeout: 60_000,
  }, async () => {
    const web = await startTestWeb([
      {
        pages: {
          '/': '<title>A</title><p>home</p><a href="/slow">slow</a>',
          // In flight when the signal comes; answers within the grace: stored, and its links queued.
          '/slow': {
            delayMs: SLOW_MS,
            body: '<title>Slow</title><p>slowpage</p><a href="/next1">1</a> <a href="/next2">2</a>',
          },
          '/next1': '<title>N1</title><p>n1</p>',
          '/next2': '<title>N2</title><p>n2</p>',
        },
      },
      {
        pages: {
          '/': '<title>B</title><p>home</p><a href="/hang">hang</a> <a href="/b2">b2</a>',
          '/hang': { handler: () => undefined }, // never answers: cut at the end of the grace
          '/b2': '<title>B2</title><p>b2</p>',
        },
      },
    ]);
    const [a, b] = web.sites;
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-stop-'));
    const app = await startAppProcess({ dataDir, env: { CRAWL_DELAY_MS: '50', CRAWL_WORKERS: '2' } });
    try {
      for (const site of web.sites)
        assert.equal((await app.postJson('/api/seeds', { url: site.url('/'), depth: 2 })).status, 201);
      const { primary, workers } = await waitFor(
        () => {
          const p = app.primaryPid();
          const w = app.workerPids();
          return (
            inFlight(a, '/slow') &&
            inFlight(b, '/hang') &&
            p !== undefined &&
            w.length === 2 && { primary: p, workers: w }
          );
        },
        { timeoutMs: 20_000, message: 'a slow and a hanging fetch in flight, with the primary and its two workers' },
      );
      const signalAt = now();
      way.send(app);

      // The server refuses new requests at once, while the crawler is still finishing.
      await waitFor(
        async () => {
          try {
            await fetch(`${app.baseURL}/api/health`, { signal: AbortSignal.timeout(1000) });
            return false;
          } catch {
            return true;
          }
        },
        { timeoutMs: 3_000, message: 'the server to refuse connections' },
      );
      assert.ok(
        app.running() && isAlive(primary),
        'requests were refused before the processes ended (the crawl was still finishing)',
      );

      const exit = await app.exited;
      const tookMs = now() - signalAt;
      assert.deepEqual(exit, { code: 0, signal: null }, 'the server exits cleanly');
      assert.ok(tookMs < 10_000, `stopped in ${tookMs.toFixed(0)} ms (a 5 s grace for fetches in flight)`);
      for (const pid of [primary, ...workers]) assert.equal(isAlive(pid), false, `process ${pid} has exited`);
      assert.deepEqual(app.groupPids(), [], 'nothing of the process group is left');

      // The fetch in flight got its time; the hanging one was cut; nothing new started.
      const slow = a.requestsTo('/slow')[0];
      assert.equal(slow.aborted, false, '/slow was allowed to finish');
      assert.equal(slow.status, 200);
      assert.equal(b.requestsTo('/hang')[0].aborted, true, '/hang was cut at the end of the grace');
      assert.deepEqual(
        a.log.map((r) => r.path),
        ['/robots.txt', '/', '/slow'],
        'no request after the signal',
      );
      assert.deepEqual(
        b.log.map((r) => r.path),
        ['/robots.txt', '/', '/hang'],
        'no request after the signal',
      );
      assert.ok(
        web.sites.every((s) => s.log.every((r) => r.start < signalAt)),
        'every request started before the signal',
      );

      const db = openDatabase(dataDir, { readonly: true });
      try {
        const state = (url: string) => db.prepare('SELECT state, attempts FROM frontier WHERE url = ?').get(url);
        assert.ok(db.prepare('SELECT 1 FROM pages WHERE url = ?').get(a.url('/slow')), 'the finished fetch was stored');
        assert.deepEqual(state(a.url('/slow')), { state: 'done', attempts: 1 });
        assert.deepEqual(
          state(a.url('/next1')),
          { state: 'queued', attempts: 0 },
          'its links are queued for the next start',
        );
        assert.deepEqual(
          state(b.url('/hang')),
          { state: 'queued', attempts: 0 },
          'the cut fetch went back to the queue, not counted as a failure',
        );
        assert.deepEqual(state(b.url('/b2')), { state: 'queued', attempts: 0 });
        assert.deepEqual(
          db.prepare(`SELECT COUNT(*) AS n FROM frontier WHERE state = 'leased'`).get(),
          { n: 0 },
          'nothing left leased',
        );
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      } finally {
        db.close();
      }
      assert.match(app.output(), /crawler: stopped \(1 unfinished fetches returned to the queue\)/);
    } catch (err) {
      throw new Error(
        `${(err as Error).message}\n--- output ---\n${app
          .output()
          .split('\n')
          .filter((l) => !l.startsWith('{'))
          .join('\n')}`,
        { cause: err },
      );
    } finally {
      app.killGroup();
      await web.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
}
