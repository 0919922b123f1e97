/**
 * Chaos: the whole app (the server, built when fresh, its crawler primary and two workers) crawls
 * two generated sites while the test kill -9s, over and over, a random worker, the primary and the
 * server itself (restarted the way a person would: same DATA_DIR, same port; the server restarts its
 * primary; the primary re-forks workers). At the end every page is stored exactly once, nothing is left
 * leased, the database is intact, search finds every page, and neither site ever saw two requests at
 * once or two requests closer than CRAWL_DELAY_MS, across every restart. Killing the server must not
 * let two primaries run: the orphaned primary notices (IPC disconnect), finishes, and exits on its own
 * before the new server's primary (waiting on the DATA_DIR lock) starts workers. The second test holds
 * a fetch in flight across the server's death to check that hand-over step by step.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import { openDatabase, type Database } from '../../db/open.ts';
import {
  generateSite,
  generatedDepth,
  generatedPath,
  politenessReport,
  startTestWeb,
  waitFor,
} from '../../test-support/test-web.ts';
import { startAppProcess, type AppProcess } from '../../test-support/app-process.ts';
import { isAlive, workerChildren } from '../../test-support/proc.ts';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { configArgument, loadConfig } from '../../shared/config.ts';

const DELAY_MS = 30;
const PAGES = 110; // per fast site
const SITES = 2;
const KINDS = ['worker', 'primary', 'server'] as const;
const KILLS: Record<Kind, number> = { worker: 3, primary: 3, server: 2 };
/** The primary's shutdown grace (5 s) plus the time to store, stop workers and exit, with margin. */
const ORPHAN_EXIT_MS = 9_000;

type Kind = (typeof KINDS)[number];
interface Kill {
  kind: Kind;
  pid: number;
  atPages: number;
  atMs: number;
}

/** Page i of site s carries this word, and no other page does (the `q` keeps it from prefixing another). */
const token = (s: number, i: number) => `chaos${s}x${i}q`;

test('kill -9 workers, the primary and the server, again and again: every page stored once, searchable, politely', {
  timeout: 180_000,
}, async () => {
  const t0 = performance.now();
  const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const random = seededRandom(seed);
  const web = await startTestWeb(
    Array.from({ length: SITES }, (_, s) =>
      generateSite({ pages: PAGES, prefix: `c${s}`, words: (i) => token(s, i), delayMs: 10 }),
    ),
  );
  const expected = SITES * PAGES;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-chaos-'));
  const env = { CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_WORKERS: '2' };
  const servers: AppProcess[] = [];
  let app = await startAppProcess({ dataDir, env });
  servers.push(app);
  const primaries = new Set<number>();
  const overlaps: string[] = [];
  let db: Database | undefined;
  const monitor = setInterval(() => {
    // Every primary ever seen (an orphan stays known after its server died); two with workers = two arbiters.
    for (const s of servers) {
      const p = s.running() ? s.primaryPid() : undefined;
      if (p !== undefined) primaries.add(p);
    }
    const withWorkers = [...primaries].filter((p) => isAlive(p) && workerChildren(p).length > 0);
    if (withWorkers.length > 1)
      overlaps.push(`${(performance.now() - t0).toFixed(0)} ms: primaries ${withWorkers.join(', ')}`);
  }, 20);
  const kills: Kill[] = [];
  const orphanExitMs: number[] = [];
  try {
    for (const site of web.sites) {
      const res = await app.postJson('/api/seeds', { url: site.url('/'), depth: generatedDepth(PAGES) });
      assert.ok(res.status === 201, `seed accepted: ${JSON.stringify(res)}`);
    }
    db = openDatabase(dataDir, { readonly: true });
    const countPages = db.prepare('SELECT COUNT(*) AS n FROM pages');
    const stored = () => (countPages.get() as { n: number }).n;

    const plan: Kind[] = KINDS.flatMap((k) => Array<Kind>(KILLS[k]).fill(k));
    for (let i = plan.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [plan[i], plan[j]] = [plan[j], plan[i]];
    }
    for (const [n, kind] of plan.entries()) {
      const threshold = Math.floor((expected * (n + 1)) / (plan.length + 2));
      // Kill only a crawl in full swing: enough pages stored, and a primary with both its workers.
      await waitFor(() => stored() >= threshold && app.workerPids().length === 2, {
        timeoutMs: 40_000,
        message: `${threshold} pages stored and two workers up before kill ${n + 1} (${kind})`,
      });
      const atPages = stored();
      const atMs = Math.round(performance.now() - t0);
      if (kind === 'worker') {
        const workers = app.workerPids();
        const victim = workers[Math.floor(random() * workers.length)];
        process.kill(victim, 'SIGKILL');
        kills.push({ kind, pid: victim, atPages, atMs });
        await waitFor(() => !isAlive(victim), { timeoutMs: 5_000, message: `worker ${victim} to die` });
      } else if (kind === 'primary') {
        const victim = app.primaryPid()!;
        process.kill(victim, 'SIGKILL');
        kills.push({ kind, pid: victim, atPages, atMs });
        await waitFor(() => !isAlive(victim), { timeoutMs: 5_000, message: `primary ${victim} to die` });
      } else {
        const orphan = app.primaryPid()!;
        await app.kill('SIGKILL');
        const killedAt = performance.now();
        kills.push({ kind, pid: app.pid, atPages, atMs });
        const orphanGone = waitFor(() => !isAlive(orphan) && performance.now(), {
          timeoutMs: ORPHAN_EXIT_MS,
          intervalMs: 10,
          message: `primary ${orphan} of the killed server to exit on its own`,
        });
        orphanGone.catch(() => undefined); // awaited below; this only keeps an early failure from being "unhandled"
        // A person starts it again at once, while the orphaned primary is still finishing its fetches.
        app = await startAppProcess({ dataDir, port: app.port, env });
        servers.push(app);
        orphanExitMs.push(Math.round((await orphanGone) - killedAt));
      }
    }

    await waitFor(
      () => {
        const s = db!.prepare(`SELECT state, COUNT(*) AS n FROM frontier GROUP BY state`).all() as Array<{
          state: string;
          n: number;
        }>;
        const by = Object.fromEntries(s.map((r) => [r.state, r.n]));
        return (by.queued ?? 0) === 0 && (by.leased ?? 0) === 0 && stored() === expected;
      },
      { timeoutMs: 60_000, message: `the crawl to finish with ${expected} pages (stored ${stored()})` },
    );

    const status = await waitFor(
      async () => {
        const s = await app.getJson<{
          pages: number;
          indexed: number;
          queued: number;
          inFlight: number;
          crawler: string;
        }>('/api/status');
        return s.queued === 0 && s.inFlight === 0 && s.crawler === 'running' && s;
      },
      { timeoutMs: 10_000, message: 'the crawler to report an empty queue' },
    );
    assert.equal(status.pages, expected, '/api/status counts every page');
    assert.equal(status.indexed, expected, '/api/status: every page indexed');

    // The search finds every page by its own word.
    const missing: string[] = [];
    for (const [s, site] of web.sites.entries()) {
      for (let i = 0; i < PAGES; i++) {
        const r = await app.getJson<{ results: Array<{ url: string }> }>(`/api/search?q=${token(s, i)}&limit=3`);
        if (!r.results.some((x) => x.url === site.url(generatedPath(i))))
          missing.push(`${token(s, i)} → ${site.url(generatedPath(i))}`);
      }
    }
    assert.deepEqual(missing, [], 'search finds every page by its unique word');

    const exit = await app.kill('SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null }, 'the last server stops cleanly');
    clearInterval(monitor);

    // Storage: exactly once, nothing leased or given up, an intact file.
    const counts = db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT url) AS d FROM pages').get();
    assert.deepEqual(counts, { n: expected, d: expected }, 'every page stored exactly once');
    const states = db.prepare(`SELECT state, COUNT(*) AS n FROM frontier GROUP BY state`).all();
    assert.deepEqual(states, [{ state: 'done', n: expected }], 'every URL done; none leased, queued or failed');
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');

    // Politeness, judged by the sites themselves across every kill and restart.
    for (const site of web.sites) {
      const report = politenessReport(site.log, DELAY_MS);
      assert.equal(report.maxInFlight, 1, `${site.host}: never two requests in flight`);
      assert.deepEqual(
        report.violations.map(
          (v) => `${v.prev.path}${v.prev.aborted ? ' (aborted)' : ''} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`,
        ),
        [],
        `${site.host}: no gap below ${DELAY_MS} ms`,
      );
    }

    // Only one primary at a time; every orphan left by its own accord; nothing of any run is left.
    assert.deepEqual(overlaps, [], 'never two primaries with workers at once');
    const output = servers.map((s) => s.output()).join('\n');
    assert.equal(
      (output.match(/crawler: stopping \(the server went away\)/g) ?? []).length,
      KILLS.server,
      'each orphaned primary noticed its server died',
    );
    assert.doesNotMatch(output, /did not stop in/, 'no primary had to be killed by the next one');
    for (const s of servers) assert.deepEqual(s.groupPids(), [], `nothing left of server ${s.pid}'s process group`);
    assert.equal(kills.length, plan.length);
    const lockWaits = (output.match(/primary-lock: waiting for crawler \d+ to stop/g) ?? []).length;

    const requests = web.sites.reduce((n, s) => n + s.log.filter((r) => r.path !== '/robots.txt').length, 0);
    const minGap = Math.min(...web.sites.map((s) => politenessReport(s.log, DELAY_MS).minGapMs));
    console.log(
      `chaos: seed ${seed}; ${kills.length} kills (${kills.map((k) => `${k.kind}@${k.atPages}p/${(k.atMs / 1000).toFixed(1)}s`).join(', ')}); ` +
        `${expected} pages in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${requests} page requests (${requests - expected} repeated after kills); ` +
        `orphaned primaries exited ${orphanExitMs.join(', ')} ms after their server; ` +
        `${lockWaits} new primaries waited for an orphan on the lock; smallest gap ${minGap.toFixed(1)} ms`,
    );
  } catch (err) {
    const output = servers
      .map(
        (s) =>
          `--- server ${s.pid} ---\n${s
            .output()
            .split('\n')
            .filter((l) => !l.startsWith('{'))
            .slice(-60)
            .join('\n')}`,
      )
      .join('\n');
    throw new Error(`${(err as Error).message}\n(CHAOS_SEED=${seed}; kills ${JSON.stringify(kills)})\n${output}`, {
      cause: err,
    });
  } finally {
    clearInterval(monitor);
    for (const s of servers) s.killGroup();
    db?.close();
    await web.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('kill -9 the server during a fetch: its primary finishes the fetch and exits; the next primary waits for it on the lock', {
  timeout: 60_000,
}, async () => {
  const held: Array<() => void> = [];
  const web = await startTestWeb([
    {
      pages: {
        '/': '<title>Home</title><p>home</p><a href="/held">held</a> <a href="/after1">1</a> <a href="/after2">2</a>',
        // Answers only when the test says so: in flight across the server's death and the next primary's start.
        '/held': {
          handler: (_req, res) => {
            held.push(() =>
              res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Held</title><p>heldword</p>'),
            );
          },
        },
        '/after1': '<title>A1</title><p>after one</p>',
        '/after2': '<title>A2</title><p>after two</p>',
      },
    },
  ]);
  const [site] = web.sites;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-orphan-'));
  const env = { CRAWL_DELAY_MS: String(DELAY_MS), CRAWL_WORKERS: '2' };
  const app = await startAppProcess({ dataDir, env });
  // The next primary is forked the way a restarted server forks it, and already waits on the lock when
  // the server dies: then no race with the orphan's 5 s grace can decide the outcome on a busy machine.
  let next: ReturnType<typeof fork> | undefined;
  let nextErr = '';
  try {
    assert.equal((await app.postJson('/api/seeds', { url: site.url('/'), depth: 1 })).status, 201);
    await waitFor(() => held.length === 1, { timeoutMs: 20_000, message: '/held in flight' });
    const orphan = app.primaryPid()!;
    const nextEnv = { ...process.env, ...env, DATA_DIR: dataDir, CRAWL_ALLOW_PRIVATE: '1' };
    next = fork(fileURLToPath(new URL('../primary.ts', import.meta.url)), [configArgument(loadConfig(nextEnv))], {
      env: nextEnv,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    next.stderr!.on('data', (chunk: Buffer) => {
      nextErr += chunk.toString();
    });
    await waitFor(() => nextErr.includes(`primary-lock: waiting for crawler ${orphan} to stop`), {
      timeoutMs: 20_000,
      message: 'the next primary to wait for the running one on the lock',
    });
    await app.kill('SIGKILL');
    await waitFor(() => /crawler: stopping \(the server went away\); 1 fetches in flight/.test(app.output()), {
      timeoutMs: 3_000,
      message: 'the orphaned primary to notice that its server died',
    });
    assert.ok(isAlive(orphan), 'the orphan still runs (finishing its fetch)');
    assert.deepEqual(workerChildren(next.pid!), [], 'the next primary has no workers while the orphan runs');

    held.shift()!();
    await waitFor(() => !isAlive(orphan), { timeoutMs: 5_000, message: 'the orphan to exit once its fetch is done' });
    await waitFor(() => workerChildren(next!.pid!).length === 2, {
      timeoutMs: 20_000,
      message: 'the next primary to start its workers',
    });
    const db = openDatabase(dataDir, { readonly: true });
    try {
      await waitFor(
        () => (db.prepare(`SELECT COUNT(*) AS n FROM frontier WHERE state = 'done'`).get() as { n: number }).n === 4,
        {
          timeoutMs: 20_000,
          message: 'the next primary to finish the crawl',
        },
      );
      assert.deepEqual(db.prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT url) AS d FROM pages').get(), { n: 4, d: 4 });
    } finally {
      db.close();
    }
    assert.doesNotMatch(nextErr, /did not stop in/, 'the orphan exited by itself');
    const h = site.requestsTo('/held');
    assert.equal(h.length, 1, 'the held page was fetched once: the orphan stored it');
    assert.equal(h[0].aborted, false);
    const report = politenessReport(site.log, DELAY_MS);
    assert.equal(report.maxInFlight, 1, 'never two requests at once, across the two primaries');
    assert.deepEqual(
      report.violations.map(
        (v) => `${v.prev.path}${v.prev.aborted ? ' (aborted)' : ''} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`,
      ),
      [],
      'the host clock carried over',
    );
  } catch (err) {
    throw new Error(
      `${(err as Error).message}\n--- server ---\n${app
        .output()
        .split('\n')
        .filter((l) => !l.startsWith('{'))
        .join('\n')}\n--- next primary ---\n${nextErr}`,
      { cause: err },
    );
  } finally {
    for (const release of held) release();
    if (next && next.exitCode === null && next.signalCode === null) {
      const exited = new Promise((resolve) => next!.once('exit', resolve));
      if (next.connected) next.send({ type: 'shutdown' });
      else next.kill('SIGTERM');
      await exited;
    }
    app.killGroup();
    await web.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
