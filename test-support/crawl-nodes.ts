/**
 * Crawler nodes as separate processes for the tests of several nodes on one PostgreSQL (issue 29): each one is
 * `npm run crawl-node` (crawler/crawl-node.ts, which forks the crawler primary and its workers) with its own node
 * id, DATA_DIR and User-Agent, so that a site's request log tells which node sent each request. Helpers to wait for
 * its primary, kill it hard (kill -9 of the primary, then of its crawl-node, as a machine that dies), or stop it as
 * a person would (SIGTERM: it releases its groups and leaves).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectPath } from '../shared/project-root.ts';
import { waitFor } from './wait-for.ts';

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
  /** SIGTERM: the node stops cleanly; resolves with its exit code. */
  stop(): Promise<number | null>;
  /** Removes its DATA_DIR (after it exited). */
  cleanUp(): void;
}

/** Whether a process has exited. */
const gone = (p: ChildProcess) => p.exitCode !== null || p.signalCode !== null;

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
  proc.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
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
    async stop() {
      if (!gone(proc)) proc.kill('SIGTERM');
      await waitFor(() => gone(proc), {
        timeoutMs: 60_000,
        message: () => `crawler node ${id} to stop after SIGTERM; its stderr: ${err.slice(-1500)}`,
      });
      return proc.exitCode;
    },
    cleanUp() {
      if (!gone(proc)) proc.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
