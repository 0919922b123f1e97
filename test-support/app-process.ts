/**
 * The whole Lantern app as a real process for node:test: the server (its build, dist/server/main.js, when that
 * is fresh, else `node --import tsx server/main.ts`) in its own process group, so tests can kill the server, its crawler primary or a worker the way a crash or a
 * person would, restart it on the same DATA_DIR and port, and check through /proc that nothing is left.
 * (Playwright tests use e2e/fixtures.ts; this is the same idea without Playwright.)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { SERVER_BUILD, staleBuild } from './build-freshness.ts';
import { childPids, groupMembers, isAlive, runsCrawler, workerChildren } from './proc.ts';
import { waitFor } from './wait-for.ts';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUTPUT_LIMIT = 4_000_000;

/** How a process ended. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A running (or ended) Lantern server process. */
export interface AppProcess {
  /** The server's pid; also its process group id. */
  pid: number;
  port: number;
  /** e.g. 'http://127.0.0.1:41234' */
  baseURL: string;
  dataDir: string;
  /** Everything the server, its crawler primary and workers wrote to stdout and stderr (the last ~4 MB). */
  output(): string;
  /** Resolves when the server process has exited. */
  exited: Promise<Exit>;
  /** Whether the server process still runs. */
  running(): boolean;
  /** The crawler primary the server forked (its live child running crawler/primary.ts or its build), if any. */
  primaryPid(): number | undefined;
  /** The live cluster workers of that primary. */
  workerPids(): number[];
  /** Live processes of the server's process group (the server, the primary, workers, also orphans). */
  groupPids(): number[];
  /** GET a JSON API path; throws on a non-2xx answer. */
  getJson<T>(path: string): Promise<T>;
  /** POST JSON; resolves to the status and the parsed answer. */
  postJson<T>(path: string, body: unknown): Promise<{ status: number; body: T }>;
  /** Sends `signal` to the server process only (not its children) and waits for it to exit. */
  kill(signal: NodeJS.Signals): Promise<Exit>;
  /** Whatever of the process group still lives gets SIGKILL (test cleanup; a no-op when all is gone). */
  killGroup(): void;
}

/** Options of `startAppProcess`. */
export interface StartAppProcessOptions {
  dataDir: string;
  /** Listen here (e.g. to restart on the same port); a free port by default. */
  port?: number;
  /** Extra environment (PORT, HOST and DATA_DIR are set from the options). */
  env?: Record<string, string>;
  /** How long the server may take to answer GET /api/health (default 30 s). */
  healthTimeoutMs?: number;
}

/** A server started by `spawnMain`: its process, its exit code, and what it wrote so far. */
export interface MainProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  stdout(): string;
  stderr(): string;
}

/**
 * Starts `node <args>` (the server's entry, built or through tsx) in `cwd` with only `env` beyond PATH and HOME
 * (and one crawler worker), its output kept: what a person's `npm start` gets, for tests of the start itself.
 */
export function spawnMain(args: readonly string[], cwd: string, env: Record<string, string>): MainProcess {
  const child = spawn(process.execPath, [...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CRAWL_WORKERS: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('app-process: could not read a free port'))));
    });
  });
}

/**
 * Node's arguments for the server: its build when it is fresh (as `npm start` runs it; `npm test` builds first,
 * and a build loads no TypeScript, so each start costs seconds less on a loaded machine), else its source through
 * tsx (a test run alone after an edit, without `npm run build`). The server forks its crawler the same way.
 */
function serverArgs(): string[] {
  return staleBuild(SERVER_BUILD) === undefined ? [SERVER_BUILD.built] : ['--import', 'tsx', 'server/main.ts'];
}

/**
 * Starts the server (see serverArgs: built or through tsx; CRAWL_ALLOW_PRIVATE=1, two workers unless `env`
 * says otherwise) and resolves once GET /api/health answers 200; rejects with the output if it exits first.
 */
export async function startAppProcess(options: StartAppProcessOptions): Promise<AppProcess> {
  const port = options.port ?? (await freePort());
  const baseURL = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(process.execPath, serverArgs(), {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      CRAWL_ALLOW_PRIVATE: '1',
      CRAWL_WORKERS: '2',
      ...options.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: options.dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('app-process: could not spawn the server');
  let log = '';
  const append = (chunk: Buffer): void => {
    log += chunk.toString('utf8');
    if (log.length > OUTPUT_LIMIT) log = log.slice(-OUTPUT_LIMIT / 2);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  let ended = false;
  void exited.then(() => {
    ended = true;
  });

  const app: AppProcess = {
    pid,
    port,
    baseURL,
    dataDir: options.dataDir,
    output: () => log,
    exited,
    running: () => !ended,
    primaryPid() {
      return childPids(pid).find((c) => runsCrawler(c, 'primary'));
    },
    workerPids() {
      const primary = app.primaryPid();
      return primary === undefined ? [] : workerChildren(primary);
    },
    groupPids: () => groupMembers(pid),
    async getJson<T>(path: string): Promise<T> {
      const res = await fetch(baseURL + path, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) throw new Error(`app-process: GET ${path} answered ${res.status}: ${await res.text()}`);
      return (await res.json()) as T;
    },
    async postJson<T>(path: string, body: unknown) {
      const res = await fetch(baseURL + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
    async kill(signal) {
      if (!ended) child.kill(signal);
      return exited;
    },
    killGroup() {
      if (groupMembers(pid).length === 0) return;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // ESRCH: the group emptied meanwhile.
      }
    },
  };

  try {
    await waitFor(
      async () => {
        if (ended) throw new Error(`app-process: the server exited before it was healthy. Output:\n${log}`);
        try {
          const res = await fetch(`${baseURL}/api/health`, { signal: AbortSignal.timeout(2000) });
          return res.ok;
        } catch {
          return false;
        }
      },
      {
        timeoutMs: options.healthTimeoutMs ?? 30_000,
        intervalMs: 50,
        message: `GET ${baseURL}/api/health to answer 200`,
      },
    );
  } catch (err) {
    app.killGroup();
    throw err;
  }
  return app;
}

export { isAlive };
