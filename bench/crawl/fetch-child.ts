/**
 * One process of the fetch-cost measurement (forked by fetch-cost.ts): a crawler worker without the
 * parse. It fetches the benchmark pages through the worker's own fetch code (its agent, settings,
 * limits and result), attaches each page as processPage parsed it beforehand, and sends every result
 * to its parent as a worker sends `done`. Its CPU time over the loop is what a worker spends on a
 * page besides parsing.
 */
import { DEFAULTS } from '../../shared/config.ts';
import { createAgent, fetchLimits, fetchRaw, resultFromResponse } from '../../crawler/fetch/fetcher.ts';
import type { FetchJob, ParsedPage, WorkerSettings, WorkerToPrimary } from '../../crawler/common/protocol.ts';
import { benchPages, parseLikeWorker, type BenchSiteOptions } from './bench-pages.ts';

/** Messages to a fetch child. */
export type ToFetchChild =
  | { type: 'prepare'; origins: string[]; site: BenchSiteOptions }
  | { type: 'go'; rounds: number; concurrency: number };

/** Messages from a fetch child: `done` exactly as a worker sends it, then one `finished` per `go`. */
export type FromFetchChild =
  | { type: 'prepared'; pages: number }
  | WorkerToPrimary
  | { type: 'finished'; pages: number; cpuMs: number; elapsedMs: number };

const settings: WorkerSettings = { userAgent: DEFAULTS.userAgent, allowPrivate: true, ...fetchLimits() };
const agent = createAgent(settings);
let urls: string[] = [];
const parsed = new Map<string, ParsedPage>();

function send(msg: FromFetchChild): void {
  if (process.connected) process.send!(msg);
}

async function fetchOne(jobId: number, url: string): Promise<void> {
  const job: FetchJob = { jobId, kind: 'page', url, origin: new URL(url).origin };
  const raw = await fetchRaw(url, {
    agent,
    settings,
    cap: settings.maxBodyBytes,
    truncateOk: false,
    wantBody: () => true,
  });
  const result = resultFromResponse(job, raw, settings.allowPrivate);
  if (!raw.body) throw new Error(`fetch-child: ${url} answered ${raw.status} without a body`);
  result.page = parsed.get(url)!;
  send({ type: 'done', result, sinceEndMs: performance.timeOrigin + performance.now() - result.endedAt });
}

/** Fetches every page `rounds` times, `concurrency` at once (the fetch slots of one worker). */
async function go(rounds: number, concurrency: number): Promise<void> {
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  let next = 0;
  const total = urls.length * rounds;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < total; i = next++) await fetchOne(i + 1, urls[i % urls.length]);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  send({
    type: 'finished',
    pages: total,
    cpuMs: (cpu.user + cpu.system) / 1000,
    elapsedMs: performance.now() - started,
  });
}

process.on('message', (msg: ToFetchChild) => {
  if (msg.type === 'prepare') {
    for (const p of benchPages(msg.origins, msg.site)) {
      const page = parseLikeWorker(p);
      if (!page) throw new Error(`fetch-child: ${p.url} was not parsed as HTML`);
      parsed.set(p.url, page);
    }
    urls = [...parsed.keys()];
    send({ type: 'prepared', pages: urls.length });
  } else {
    go(msg.rounds, msg.concurrency).catch((err: unknown) => {
      process.stderr.write(`fetch-child: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    });
  }
});
process.on('disconnect', () => process.exit(0));
