/**
 * The fetch and hand-over part of a page, alone: one child (fetch-child.ts) fetches the benchmark
 * pages from the test web running in this process and sends each result over IPC as a worker does;
 * this process serves the pages and receives the results, as the sites and the primary do in a crawl.
 * Nothing else runs, so each side's CPU time per page is its own cost, free of contention.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitFor } from '../../test-support/wait-for.ts';
import { FETCH_DEFAULTS } from '../../crawler/fetch/fetcher.ts';
import { WORKER_IPC_SERIALIZATION } from '../../crawler/common/protocol.ts';
import type { BenchSiteOptions } from './bench-pages.ts';
import type { FromFetchChild, ToFetchChild } from './fetch-child.ts';

const CHILD = fileURLToPath(new URL('./fetch-child.ts', import.meta.url));

/** What `measureFetchCost` found (CPU ms per page). */
export interface FetchCost {
  pages: number;
  /** The fetching process: request, response, body, result, IPC send (a worker's work besides parsing). */
  fetchSendMs: number;
  /** This process: serving the page (test web, request log included) and receiving the result over IPC. */
  serveReceiveMs: number;
}

/**
 * Fetches every page of `origins` (served by this process's test web) `rounds` times after one
 * warm-up round, with one worker's fetch slots, and measures both sides' CPU over the measured rounds.
 */
export async function measureFetchCost(opts: {
  origins: string[];
  site: BenchSiteOptions;
  rounds: number;
}): Promise<FetchCost> {
  const inbox: FromFetchChild[] = [];
  let failure: string | undefined;
  let received = 0;
  const child = fork(CHILD, [], {
    execArgv: process.execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: WORKER_IPC_SERIALIZATION, // as the primary's workers send
  });
  child.on('message', (m: FromFetchChild) => {
    if (m.type === 'done') received++;
    else inbox.push(m);
  });
  child.on('exit', (code, signal) => {
    failure ??= `the fetch child exited (${signal ?? `code ${code}`})`;
  });
  const answer = async <T extends FromFetchChild['type']>(type: T, timeoutMs: number) =>
    waitFor(
      () => {
        const m = inbox.find((x): x is Extract<FromFetchChild, { type: T }> => x.type === type);
        if (m) inbox.splice(inbox.indexOf(m), 1);
        else if (failure) throw new Error(`fetch-cost: ${failure}`);
        return m;
      },
      { timeoutMs, intervalMs: 5, message: `the fetch child to answer ${type}` },
    );
  const go = (rounds: number) =>
    child.send({ type: 'go', rounds, concurrency: FETCH_DEFAULTS.fetchesPerWorker } satisfies ToFetchChild);
  try {
    child.send({ type: 'prepare', origins: opts.origins, site: opts.site } satisfies ToFetchChild);
    const { pages } = await answer('prepared', 120_000);
    go(1); // warm-up: connections opened, code compiled on both sides
    await answer('finished', 120_000);
    received = 0;
    const cpu0 = process.cpuUsage();
    go(opts.rounds);
    const done = await answer('finished', 300_000);
    const cpu = process.cpuUsage(cpu0);
    // `finished` is sent after the last `done`, and one channel keeps their order.
    if (received !== done.pages || done.pages !== pages * opts.rounds) {
      throw new Error(
        `fetch-cost: ${received} results received for ${done.pages} fetches of ${pages} pages × ${opts.rounds}`,
      );
    }
    return {
      pages: done.pages,
      fetchSendMs: done.cpuMs / done.pages,
      serveReceiveMs: (cpu.user + cpu.system) / 1000 / done.pages,
    };
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      failure = 'stopped';
      child.kill('SIGTERM');
      await exited;
    }
  }
}
