import cluster from 'node:cluster';
import type { Agent } from 'undici';
import { classifyError, createAgent, describeBytes, emptyResult, fetchRaw, FetchFailure, resultFromResponse, ROBOTS_READ_BYTES } from './fetch/fetcher.ts';
import { isPageType, processPage } from './extract/page-processor.ts';
import { parseSitemap, SITEMAP_MAX_BYTES, sitemapText } from './extract/sitemap.ts';
import { compileRobotsInSteps, type CompiledRobots } from './politeness/robots.ts';
import type { FetchJob, FetchResult, ParsedPage, PrimaryToWorker, WorkerSettings, WorkerToPrimary } from './coordination/protocol.ts';

/**
 * A crawler worker (a cluster worker): it never opens the database and never chooses what or when to
 * fetch. Once loaded it says `ready` (the primary answers with its settings); then for each job the primary hands it fetches, parses and reports
 * `done`; reporting `done` is also how it says it is ready for the next job.
 */
let settings: WorkerSettings | null = null;
let agent: Agent | null = null;

function send(msg: WorkerToPrimary): void {
  // The primary can die (kill -9) after `connected` was read but before the write: the write then fails
  // with EPIPE. Given a callback, Node hands that error to it instead of emitting an unhandled 'error'
  // that crashes this worker with a stack trace; with no primary left we exit, as on 'disconnect'.
  if (process.connected) process.send!(msg, (err: Error | null) => { if (err) process.exit(0); });
}

/** Parses a fetched page; a page the parser cannot handle fails that URL (fatal), never this worker. */
function parse(job: FetchJob, body: Buffer, headers: Record<string, string | undefined>): ParsedPage | null {
  const s = settings!;
  try {
    return processPage({
      url: job.url,
      body,
      contentType: headers['content-type'],
      xRobotsTag: headers['x-robots-tag'],
      userAgent: s.userAgent,
      allowPrivate: s.allowPrivate,
      maxLinks: s.maxLinks,
    });
  } catch (err) {
    throw new FetchFailure('fatal', 'parse', `worker: could not parse the page (${describeBytes(body.length)}): ${(err as Error).message ?? String(err)}`);
  }
}

/**
 * Reads and compiles a robots.txt here, so that the primary never reads the file (see
 * crawler/politeness/robots.ts), pausing every few thousand lines or rules for this worker's other fetches.
 */
async function readRobots(robotsUrl: string, body: Buffer, userAgent: string): Promise<CompiledRobots> {
  const steps = compileRobotsInSteps(robotsUrl, body, userAgent);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function run(job: FetchJob): Promise<FetchResult> {
  const s = settings!;
  const startedAt = performance.timeOrigin + performance.now();
  try {
    const raw = await fetchRaw(job.url, {
      agent: agent!,
      settings: s,
      cap: job.kind === 'robots' ? ROBOTS_READ_BYTES : job.kind === 'sitemap' ? SITEMAP_MAX_BYTES : s.maxBodyBytes,
      truncateOk: job.kind !== 'page', // the part of a robots.txt or sitemap that fits is read
      validators: job.validators,
      wantBody: (status, type) => status >= 200 && status < 300 && (job.kind !== 'page' || isPageType(type)),
    });
    const result = resultFromResponse(job, raw, s.allowPrivate);
    if (raw.body && job.kind === 'robots') {
      result.robotsRules = await readRobots(`${job.robotsFor ?? job.origin}/robots.txt`, raw.body, s.userAgent);
    } else if (raw.body && job.kind === 'sitemap') {
      result.sitemap = parseSitemap(sitemapText(raw.body), job.url, { allowPrivate: s.allowPrivate });
    } else if (raw.body) {
      result.page = parse(job, raw.body, raw.headers);
    }
    return result;
  } catch (err) {
    const failure = classifyError(err, job.url, s);
    const result = emptyResult(job, startedAt);
    result.endedAt = performance.timeOrigin + performance.now();
    result.error = { kind: failure.kind, code: failure.code, message: failure.message };
    return result;
  }
}

if (cluster.isPrimary) {
  throw new Error('worker: crawler/worker.ts runs only as a cluster worker forked by crawler/primary.ts');
}

process.on('message', (msg: PrimaryToWorker) => {
  if (msg.type === 'settings') {
    settings = msg.settings;
    agent = createAgent(msg.settings);
  } else if (msg.type === 'fetch') {
    void run(msg.job).then((result) => send({ type: 'done', result, sinceEndMs: performance.timeOrigin + performance.now() - result.endedAt }));
  }
});
// Loaded and listening: the primary answers with the settings, then jobs.
send({ type: 'ready' });
// Ctrl+C reaches the whole process group; the primary decides when workers stop.
process.on('SIGINT', () => undefined);
// The primary is our only reason to exist: when it goes, in-flight sockets close with us.
process.on('disconnect', () => process.exit(0));
