import cluster from 'node:cluster';
import type { Agent } from 'undici';
import { classifyError, createAgent, describeBytes, emptyResult, fetchRaw, FetchFailure, resultFromResponse, ROBOTS_READ_BYTES } from './fetch/fetcher.ts';
import { processPage } from './extract/page-processor.ts';
import { documentKind } from './extract/document-kind.ts';
import { processTextDocument } from './extract/text-document.ts';
import { extractPdf, PDF_LIMITS } from './extract/pdf-runner.ts';
import { pdfPage } from './extract/pdf-document.ts';
import { parseSitemap, SITEMAP_MAX_BYTES, sitemapText } from './extract/sitemap.ts';
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

/**
 * Parses a fetched page or document (HTML, PDF in a thread of its own, plain text, Markdown); one the
 * parser cannot handle fails that URL (fatal), never this worker.
 */
async function parse(job: FetchJob, body: Buffer, headers: Record<string, string | undefined>): Promise<ParsedPage | null> {
  const s = settings!;
  const input = {
    url: job.url,
    body,
    contentType: headers['content-type'],
    xRobotsTag: headers['x-robots-tag'],
    userAgent: s.userAgent,
    allowPrivate: s.allowPrivate,
    maxLinks: s.maxLinks,
  };
  const kind = documentKind(input.contentType, job.url);
  if (kind === 'pdf') return pdfPage(input, await extractPdf(body, job.url, s.pdf ?? PDF_LIMITS));
  try {
    if (kind === 'text' || kind === 'markdown') return processTextDocument(input, kind);
    return processPage(input);
  } catch (err) {
    throw new FetchFailure('fatal', 'parse', `worker: could not parse the page (${describeBytes(body.length)}): ${(err as Error).message ?? String(err)}`);
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
      wantBody: (status, type) => status >= 200 && status < 300 && (job.kind !== 'page' || documentKind(type, job.url) !== null),
    });
    const result = resultFromResponse(job, raw, s.allowPrivate);
    if (raw.body && job.kind === 'robots') {
      result.robotsBody = raw.body.toString('utf8');
    } else if (raw.body && job.kind === 'sitemap') {
      result.sitemap = parseSitemap(sitemapText(raw.body), job.url, { allowPrivate: s.allowPrivate });
    } else if (raw.body) {
      result.page = await parse(job, raw.body, raw.headers);
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
