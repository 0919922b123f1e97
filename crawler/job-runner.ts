/**
 * What a crawler worker does with one job: fetches it (fetch/fetcher.ts, with its limits), then reads the
 * body as the job's kind asks: a robots.txt read and compiled (so that the primary never reads it), a sitemap's entries, or a page or document (HTML,
 * PDF in a thread of its own, plain text, Markdown) read and its links judged. Every failure, the parser's included, becomes the result's `error`: a job fails, the worker
 * never does. crawler/worker.ts wires it to the primary's messages.
 * A worker runs several fetches at once and an HTML parse is synchronous, so a page is parsed in slices
 * (processPageSteps) and the worker's event loop gets a turn whenever a page has held it for
 * PARSE_SLICE_MS: a page of 100,000 links no longer holds the worker's other fetches for its whole
 * parse (crawler/integration/hostile-parse-hold.test.ts shows it by the order of events: the healthy
 * site's request sent between a big page's parse's start and end, as the CRAWL_PARSE_TRACE hook reports them).
 */
import type { Agent } from 'undici';
import {
  classifyError,
  describeBytes,
  emptyResult,
  fetchRaw,
  FetchFailure,
  resultFromResponse,
  RequestNotSent,
  ROBOTS_READ_BYTES,
} from './fetch/fetcher.ts';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { processPageSteps } from './extract/page-processor.ts';
import { documentKind } from './extract/document-kind.ts';
import { processTextDocument } from './extract/text-document.ts';
import { extractPdf, PDF_LIMITS } from './extract/pdf-runner.ts';
import { pdfPage } from './extract/pdf-document.ts';
import { scanSitemap, SITEMAP_MAX_BYTES, sitemapText } from './extract/sitemap.ts';
import { compileRobotsInSteps, type CompiledRobots } from './politeness/robots.ts';
import type { FetchJob, FetchResult, ParsedPage, WorkerSettings } from './common/protocol.ts';

/** Longest a page's parse holds the worker's event loop before its other fetches get a turn (ms). */
export const PARSE_SLICE_MS = 4;

/**
 * Runs a generator of slices to its end, giving the event loop a turn (setImmediate: pending I/O first)
 * whenever the slices have run for PARSE_SLICE_MS since the last turn. An ordinary page is done within
 * one stretch and never waits.
 */
export async function runInSlices<T>(steps: Generator<void, T, void>, sliceMs = PARSE_SLICE_MS): Promise<T> {
  let since = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - since >= sliceMs) {
      await nextTurn();
      since = performance.now();
    }
  }
}

/**
 * A test hook (crawler/worker.ts wires it to CRAWL_PARSE_TRACE): told, with the worker's clock, when an
 * HTML page's parse starts (before its first slice) and when it ends (after its last), so that a test can
 * order the parse against a site's request log. It only observes; absent, nothing is told.
 */
export type ParseObserver = (event: { url: string; phase: 'start' | 'end'; at: number }) => void;

/**
 * Parses a fetched page or document (HTML, PDF in a thread of its own, plain text, Markdown); one the
 * parser cannot handle fails that URL (fatal), never the worker.
 */
async function parse(
  job: FetchJob,
  body: Buffer,
  headers: Record<string, string | undefined>,
  s: WorkerSettings,
  now: () => number,
  observe?: ParseObserver,
): Promise<ParsedPage | null> {
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
    observe?.({ url: job.url, phase: 'start', at: now() });
    try {
      return await runInSlices(processPageSteps(input));
    } finally {
      observe?.({ url: job.url, phase: 'end', at: now() });
    }
  } catch (err) {
    throw new FetchFailure(
      'fatal',
      'parse',
      `worker: could not parse the page (${describeBytes(body.length)}): ${(err as Error).message ?? String(err)}`,
    );
  }
}

/**
 * Reads and compiles a robots.txt in the worker, so that the primary never reads the file (see
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

/**
 * Runs one job with the worker's settings and agent; `now` is the worker's clock (for a failure's times),
 * `observe` an optional test hook told when an HTML parse starts and ends (ParseObserver).
 */
export async function runJob(
  job: FetchJob,
  s: WorkerSettings,
  agent: Agent,
  now: () => number,
  observe?: ParseObserver,
): Promise<FetchResult> {
  const startedAt = now();
  try {
    const raw = await fetchRaw(job.url, {
      agent,
      settings: s,
      cap: job.kind === 'robots' ? ROBOTS_READ_BYTES : job.kind === 'sitemap' ? SITEMAP_MAX_BYTES : s.maxBodyBytes,
      truncateOk: job.kind !== 'page', // the part of a robots.txt or sitemap that fits is read
      validators: job.validators,
      sendBy: job.sendBy,
      wantBody: (status, type) =>
        status >= 200 && status < 300 && (job.kind !== 'page' || documentKind(type, job.url) !== null),
    });
    const result = resultFromResponse(job, raw, s.allowPrivate);
    if (raw.body && job.kind === 'robots') {
      result.robotsRules = await readRobots(`${job.robotsFor ?? job.origin}/robots.txt`, raw.body, s.userAgent);
    } else if (raw.body && job.kind === 'sitemap') {
      result.sitemap = scanSitemap(sitemapText(raw.body), job.url, { allowPrivate: s.allowPrivate });
    } else if (raw.body) {
      result.page = await parse(job, raw.body, raw.headers, s, now, observe);
    }
    return result;
  } catch (err) {
    const result = emptyResult(job, startedAt);
    result.endedAt = now();
    if (err instanceof RequestNotSent) {
      result.unsent = err.message; // nothing reached the site
      return result;
    }
    const failure = classifyError(err, job.url, s);
    result.error = { kind: failure.kind, code: failure.code, message: failure.message };
    return result;
  }
}
