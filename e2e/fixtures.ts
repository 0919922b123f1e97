/**
 * Playwright fixtures: every test gets the real Lantern app (server + crawler) started as a child
 * process on a free loopback port with a fresh data directory, and Playwright's `baseURL` pointing
 * at it, so `page.goto('/')` opens the app. Extra environment per test: `test.use({ appEnv: {...} })`.
 * The app is the build `npm start` runs (dist/server/main.js, which forks dist/crawler/*.js): the
 * browser tests test what a person runs, and a start costs a third of the CPU of compiling the sources
 * with tsx in the server, the primary and each worker (0.75 s against 2.4 s for the server alone).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { test as base, expect } from '@playwright/test';
import { freePort } from '../test-support/app-process.ts';
import { SERVER_BUILD, staleBuild, WEB_BUILD } from '../test-support/build-freshness.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The server's bundle (`npm run build:app`); it finds the crawler's bundles beside it (shared/project-root.ts). */
const SERVER_BUNDLE = SERVER_BUILD.built;
const HEALTH_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 10_000;
const LOG_LIMIT = 200_000;

/** A running Lantern app. */
export interface RunningApp {
  /** e.g. 'http://127.0.0.1:41234' */
  baseURL: string;
  port: number;
  /** The app's DATA_DIR (removed by `stop()` unless it was passed in). */
  dataDir: string;
  /** Everything the process wrote to stdout and stderr so far (the last ~200 kB). */
  output(): string;
  /**
   * SIGTERM, then SIGKILL after 10 s; waits for the exit and removes the data dir it created, unless
   * `keepData` (to restart on the same data with `startApp({ dataDir, port })`; a later `stop()` removes it).
   */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** Options of `startApp`. */
export interface StartAppOptions {
  /** Extra environment, overriding the test defaults. */
  env?: Record<string, string>;
  /** Use this data directory (kept on stop) instead of a fresh temporary one, e.g. to restart on the same data. */
  dataDir?: string;
  /** Listen on this port instead of a fresh free one (e.g. a restart the open page should reconnect to). */
  port?: number;
}

/** A free TCP port on 127.0.0.1 (one helper for the browser fixture and the node:test app helper). */
export { freePort };

/** Throws unless the build the browser tests run (server and web app) is there and newer than its sources. */
function checkBuild(): void {
  for (const build of [SERVER_BUILD, WEB_BUILD]) {
    const problem = staleBuild(build);
    if (problem) throw new Error(`fixtures: ${problem}; run \`npm run build\` before the browser tests`);
  }
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal); // the app runs in its own process group: this reaches crawler children too
  } catch {
    // ESRCH: nothing left in the group
  }
}

/**
 * Starts the built app (`node dist/server/main.js`) with test settings (loopback, private addresses allowed,
 * 200 ms crawl delay, 2 workers) and resolves once `GET /api/health` answers 200. Fails with the
 * process output if it exits first or is not healthy within 30 s.
 */
export async function startApp(options: StartAppOptions = {}): Promise<RunningApp> {
  checkBuild();
  const port = options.port ?? (await freePort());
  const ownsDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'lantern-e2e-')));
  const baseURL = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [SERVER_BUNDLE], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      CRAWL_ALLOW_PRIVATE: '1',
      CRAWL_DELAY_MS: '200',
      CRAWL_WORKERS: '2',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let log = '';
  const append = (chunk: Buffer): void => {
    log += chunk.toString('utf8');
    if (log.length > LOG_LIMIT) log = log.slice(-LOG_LIMIT);
  };
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  const exit = exited(child);
  let spawnError: Error | null = null;
  child.once('error', (error) => {
    spawnError = error;
  });

  const removeDataDir = async (): Promise<void> => {
    if (ownsDataDir) await rm(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  };

  let stopped: Promise<void> | null = null;
  const stopProcess = (): Promise<void> => {
    stopped ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timedOut = await Promise.race([
          exit.then(() => false),
          new Promise<boolean>((resolve) => {
            timer = setTimeout(() => resolve(true), STOP_GRACE_MS);
          }),
        ]);
        clearTimeout(timer);
        if (timedOut) {
          append(Buffer.from(`\n[fixtures] app did not exit within ${STOP_GRACE_MS} ms of SIGTERM; sending SIGKILL\n`));
          killGroup(child.pid, 'SIGKILL');
          await exit;
        }
      }
      killGroup(child.pid, 'SIGKILL'); // anything the app left behind
    })();
    return stopped;
  };
  const stop = async (stopOptions: { keepData?: boolean } = {}): Promise<void> => {
    await stopProcess();
    if (stopOptions.keepData !== true) await removeDataDir();
  };

  const app: RunningApp = { baseURL, port, dataDir, output: () => log, stop };
  const deadline = Date.now() + HEALTH_TIMEOUT_MS;
  let lastProblem = 'no answer yet';
  for (;;) {
    if (spawnError !== null || child.exitCode !== null || child.signalCode !== null) {
      await stop();
      const how = spawnError !== null ? String(spawnError) : `exit code ${child.exitCode ?? child.signalCode}`;
      throw new Error(`fixtures: the app exited before it was healthy (${how}). Output:\n${log}`);
    }
    try {
      const response = await fetch(`${baseURL}/api/health`, { signal: AbortSignal.timeout(2000) });
      if (response.ok) return app;
      lastProblem = `HTTP ${response.status}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(
        `fixtures: GET /api/health did not answer 200 within ${HEALTH_TIMEOUT_MS} ms (${lastProblem}). Output:\n${log}`,
      );
    }
    await Promise.race([exit, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
}

/** Fixtures of Lantern's browser tests. */
export interface AppFixtures {
  /** Extra environment for the app of this test (an option: set it with `test.use`). */
  appEnv: Record<string, string>;
  /** The running app of this test. */
  app: RunningApp;
}

/** Playwright's `test` with a fresh Lantern app per test, and `baseURL` set to it. */
export const test = base.extend<AppFixtures>({
  appEnv: [{}, { option: true }],
  app: async ({ appEnv }, use, testInfo) => {
    const app = await startApp({ env: appEnv });
    try {
      await use(app);
    } finally {
      await app.stop();
      if (testInfo.status !== testInfo.expectedStatus) {
        await testInfo.attach('app-output.txt', { body: app.output(), contentType: 'text/plain' });
      }
    }
  },
  baseURL: async ({ app }, use) => {
    await use(app.baseURL);
  },
  // Every page runs under the app's Content-Security-Policy: anything it blocked (a script, a style, a
  // request) would be a part of the app that silently does not work, so it fails the test.
  page: async ({ page }, use) => {
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) blocked.push(message.text());
    });
    await use(page);
    expect(blocked, 'the Content-Security-Policy blocked nothing').toEqual([]);
  },
});

export { expect };
