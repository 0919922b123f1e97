/**
 * The parse-only limit: how many of the benchmark's pages processPage (decode, htmlparser2 parse,
 * extraction, link checks, hash: everything a crawler worker does after the fetch) can handle per
 * second on all cores, one child process per core, with no network and no storage.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../test-support/wait-for.ts';
import type { BenchSiteOptions } from './bench-pages.ts';

const CHILD = fileURLToPath(new URL('./parse-child.ts', import.meta.url));

/** Messages to a parse child. */
export type ParentToChild =
  | { type: 'prepare'; origins: string[]; site: BenchSiteOptions; shard: number; shards: number }
  | { type: 'go'; startAt: number; durationMs: number };

/** Messages from a parse child. */
export type ChildToParent =
  | { type: 'ready' }
  | { type: 'prepared'; digest: string; sharePages: number; warmupMs: number }
  | { type: 'result'; pages: number; bytes: number; elapsedMs: number; cpuMs: number };

/** What `measureParseLimit` found. */
export interface ParseLimit {
  processes: number;
  durationMs: number;
  /** Σ over processes of pages / elapsed: pages per second on all of them together. */
  pagesPerSec: number;
  /** Mean time one page takes in one process (ms of wall time). */
  msPerPage: number;
  /** CPU time per page (ms), over all processes: what parsing costs regardless of what else the machine runs. */
  cpuMsPerPage: number;
  /** Share of the window the processes were actually on a core (CPU time / wall time, averaged). */
  onCpuShare: number;
  /** Digest of the pages the children built (equal in all of them, checked). */
  digest: string;
  perProcess: Array<{ pages: number; elapsedMs: number }>;
}

/**
 * Forks `processes` children that each build the same pages and parse their share of them, all
 * starting together and running for `durationMs`. Throws (after stopping the children) if a child
 * fails or builds pages whose digest differs from `expectDigest`.
 */
export async function measureParseLimit(opts: {
  origins: string[];
  site: BenchSiteOptions;
  processes: number;
  durationMs: number;
  expectDigest: string;
}): Promise<ParseLimit> {
  const children: ChildProcess[] = [];
  const inbox: ChildToParent[][] = [];
  const failures: string[] = [];
  const received = <T extends ChildToParent['type']>(i: number, type: T) =>
    inbox[i].find((m): m is Extract<ChildToParent, { type: T }> => m.type === type);
  const all = async <T extends ChildToParent['type']>(type: T, timeoutMs: number) =>
    waitFor(
      () => {
        if (failures.length > 0) throw new Error(`parse-limit: a parse child failed: ${failures.join('; ')}`);
        const got = children.map((_, i) => received(i, type));
        return got.every((m) => m !== undefined) ? (got as Array<Extract<ChildToParent, { type: T }>>) : undefined;
      },
      { timeoutMs, intervalMs: 10, message: `every parse child to answer ${type}` },
    );
  try {
    for (let i = 0; i < opts.processes; i++) {
      const child = fork(CHILD, [], { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      inbox.push([]);
      child.on('message', (m: ChildToParent) => inbox[i].push(m));
      child.on('exit', (code, signal) => {
        if (!received(i, 'result')) failures.push(`child ${i} exited (${signal ?? `code ${code}`})`);
      });
      children.push(child);
    }
    await all('ready', 60_000);
    children.forEach(
      (c, i) =>
        void c.send({
          type: 'prepare',
          origins: opts.origins,
          site: opts.site,
          shard: i,
          shards: opts.processes,
        } satisfies ParentToChild),
    );
    const prepared = await all('prepared', 120_000);
    const bad = prepared.find((p) => p.digest !== opts.expectDigest);
    if (bad)
      throw new Error(
        `parse-limit: a child built different pages (digest ${bad.digest}, expected ${opts.expectDigest})`,
      );
    const startAt = performance.timeOrigin + performance.now() + 100;
    for (const c of children) c.send({ type: 'go', startAt, durationMs: opts.durationMs } satisfies ParentToChild);
    const results = await all('result', opts.durationMs + 60_000);
    const pagesPerSec = results.reduce((s, r) => s + (r.pages * 1000) / r.elapsedMs, 0);
    const msPerPage = results.reduce((s, r) => s + r.elapsedMs / r.pages, 0) / results.length;
    const pages = results.reduce((s, r) => s + r.pages, 0);
    const cpuMsPerPage = results.reduce((s, r) => s + r.cpuMs, 0) / pages;
    const onCpuShare = results.reduce((s, r) => s + r.cpuMs / r.elapsedMs, 0) / results.length;
    return {
      processes: opts.processes,
      durationMs: opts.durationMs,
      pagesPerSec,
      msPerPage,
      cpuMsPerPage,
      onCpuShare,
      digest: opts.expectDigest,
      perProcess: results.map((r) => ({ pages: r.pages, elapsedMs: r.elapsedMs })),
    };
  } finally {
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((r) => c.once('exit', r));
        c.kill('SIGTERM');
        await exited;
      }),
    );
  }
}
