/**
 * Crawler nodes as separate processes for the tests of several nodes on one PostgreSQL (issue 29): each one is
 * `npm run crawl-node` (crawler/crawl-node.ts, which forks the crawler primary and its workers) with its own node
 * id, DATA_DIR and User-Agent, so that a site's request log tells which node sent each request. Helpers to wait for
 * its primary, kill it hard (kill -9 of the primary, then of its crawl-node, as a machine that dies), pause it whole
 * (SIGSTOP of the primary, its workers and its crawl-node, as a machine that stalls) and let it go on (SIGCONT), or
 * stop it as a person would (SIGTERM: it releases its groups and leaves).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type pg from 'pg';
import { migratePg } from '../db/pg/migrate-pg.ts';
import { openPgPool } from '../db/pg/pool.ts';
import { projectPath } from '../shared/project-root.ts';
import { startTestPostgres, type TestPostgres } from './postgres.ts';
import { waitFor } from './wait-for.ts';

/** The default delay the nodes' tests crawl their sites with. */
export const NODE_TEST_DELAY_MS = 150;

/**
 * The settings the nodes' tests run crawler nodes with: one worker, NODE_TEST_DELAY_MS, a 1 s request timeout and
 * short leases (4 s, 0.5 s margin: lease × 2/3 − margin ≥ timeout + margin), so that a dead node's groups move
 * within seconds.
 */
export const NODE_TEST_ENV = {
  CRAWL_WORKERS: '1',
  CRAWL_DELAY_MS: String(NODE_TEST_DELAY_MS),
  CRAWL_TIMEOUT_MS: '1000',
  CRAWL_LEASE_MS: '4000',
  CRAWL_LEASE_MARGIN_MS: '500',
} as const;

/**
 * A test file's databases: each call answers a new migrated database, with a pool (`max` connections) for the
 * test's own reads and writes, on one throwaway cluster started at the first call and stopped after the file.
 */
export function fileDatabases(max = 2): () => Promise<{ url: string; pool: pg.Pool }> {
  let cluster: Promise<TestPostgres> | undefined;
  after(async () => {
    if (cluster !== undefined) (await cluster).stop();
  });
  return async () => {
    cluster ??= startTestPostgres();
    const url = await (await cluster).createDatabase();
    const pool = openPgPool(url, { max });
    await migratePg(pool);
    return { url, pool };
  };
}

/** One crawler node process and what it wrote. */
export interface CrawlNode {
  /** Its CRAWL_NODE_ID. */
  readonly id: string;
  /** The User-Agent its requests carry (CRAWL_USER_AGENT): how a site's log names it. */
  readonly userAgent: string;
  /** The crawl-node process. */
  readonly proc: ChildProcess;
  /** Its stderr so far (its primary's and workers' lines too). */
  stderr(): string;
  /** The pid of its crawler primary, once it said it started. */
  primaryPid(): Promise<number>;
  /** kill -9 of the primary (its workers exit with it) and of the crawl-node: a node that dies at once. */
  killHard(): Promise<void>;
  /**
   * SIGSTOP of the whole node at once, synchronously (a site's handler may call it before it answers): its primary
   * first (no more dispatch), then the primary's workers, then the crawl-node. Answers the pids stopped. The primary
   * must have started (primaryPid resolved).
   */
  pause(): number[];
  /** SIGCONT of every process `pause` stopped. */
  resume(): void;
  /** SIGTERM: the node stops cleanly; resolves with its exit code. */
  stop(): Promise<number | null>;
  /** Removes its DATA_DIR (after it exited). */
  cleanUp(): void;
}

/** Whether a process has exited. */
const gone = (p: ChildProcess) => p.exitCode !== null || p.signalCode !== null;

/** A node's processes could not be paused as asked (its primary not started yet). */
export class CrawlNodeError extends Error {
  override readonly name = 'CrawlNodeError';
}

/** The pids of the live children of `parent`, read from /proc (the primary's cluster workers). */
export function childPids(parent: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // it exited while the folder was read
    }
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after its last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === parent) pids.push(Number(name));
  }
  return pids;
}

/** Starts `npm run crawl-node`'s entry as node `id`, on `databaseUrl`, with `env` added. */
export function startCrawlNode(id: string, databaseUrl: string, env: Record<string, string> = {}): CrawlNode {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `lantern-${id}-`));
  const userAgent = `LanternTest-${id}/1.0`;
  const proc = spawn(process.execPath, ['--import', 'tsx', projectPath('crawler/crawl-node.ts')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      DATA_DIR: dataDir,
      CRAWL_NODE_ID: id,
      CRAWL_USER_AGENT: userAgent,
      CRAWL_ALLOW_PRIVATE: '1',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'pipe'],
  });
  let err = '';
  let paused: number[] = [];
  /** The pid of the last primary this node said it started, or 0 (kept as lines come, since `err` is trimmed). */
  let primary = 0;
  proc.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
    const said = [...err.slice(-4000).matchAll(/crawl-node: crawler primary (\d+) started/g)].at(-1);
    if (said !== undefined) primary = Number(said[1]);
    if (err.length > 200_000) err = err.slice(-100_000);
  });
  const primaryPid = async (): Promise<number> => {
    let pid = 0;
    await waitFor(
      () => {
        const all = [...err.matchAll(/crawl-node: crawler primary (\d+) started/g)];
        pid = Number(all.at(-1)?.[1] ?? 0);
        return pid > 0;
      },
      { timeoutMs: 120_000, message: () => `crawler node ${id} to start its primary; its stderr: ${err.slice(-1500)}` },
    );
    return pid;
  };
  return {
    id,
    userAgent,
    proc,
    stderr: () => err,
    primaryPid,
    async killHard() {
      const pid = await primaryPid();
      process.kill(pid, 'SIGKILL');
      proc.kill('SIGKILL'); // before it starts another primary
      await waitFor(() => gone(proc), { timeoutMs: 10_000, message: () => `crawler node ${id} to die` });
    },
    pause() {
      if (primary === 0)
        throw new CrawlNodeError(`crawl-nodes: node ${id} has no primary to pause yet; await primaryPid()`);
      const pids = [primary, ...childPids(primary), proc.pid!];
      for (const pid of pids) process.kill(pid, 'SIGSTOP');
      paused = pids;
      return pids;
    },
    resume() {
      for (const pid of paused) process.kill(pid, 'SIGCONT');
      paused = [];
    },
    async stop() {
      if (!gone(proc)) proc.kill('SIGTERM');
      await waitFor(() => gone(proc), {
        timeoutMs: 60_000,
        message: () => `crawler node ${id} to stop after SIGTERM; its stderr: ${err.slice(-1500)}`,
      });
      return proc.exitCode;
    },
    cleanUp() {
      // A node left paused (a test that failed meanwhile) would never exit by itself: its processes are killed.
      for (const pid of paused) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e; // already gone
        }
      }
      paused = [];
      if (!gone(proc)) proc.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
