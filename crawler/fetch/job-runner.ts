/**
 * What a crawler worker does with one job: fetches it (fetcher.ts, with its limits), then reads the
 * body as the job's kind asks: a robots.txt's text, a sitemap's entries, or a page or document (HTML,
 * PDF in a thread of its own, plain text, Markdown) read and its links judged. Every failure, the parser's included, becomes the result's `error`: a job fails, the worker
 * never does. crawler/worker.ts wires it to the primary's messages.
 */
import type { Agent } from 'undici';
import { classifyError, describeBytes, emptyResult, fetchRaw, FetchFailure, resultFromResponse, ROBOTS_READ_BYTES } from './fetcher.ts';
import { processPage } from '../extract/page-processor.ts';
import { documentKind } from '../extract/document-kind.ts';
import { processTextDocument } from '../extract/text-document.ts';
import { extractPdf, PDF_LIMITS } from '../extract/pdf-runner.ts';
import { pdfPage } from '../extract/pdf-document.ts';
import { parseSitemap, SITEMAP_MAX_BYTES, sitemapText } from '../extract/sitemap.ts';
import type { FetchJob, FetchResult, ParsedPage, WorkerSettings } from '../coordination/protocol.ts';

/**
 * Parses a fetched page or document (HTML, PDF in a thread of its own, plain text, Markdown); one the
 * parser cannot handle fails that URL (fatal), never the worker.
 */
async function parse(job: FetchJob, body: Buffer, headers: Record<string, string | undefined>, s: WorkerSettings): Promise<ParsedPage | null> {
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

/** Runs one job with the worker's settings and agent; `now` is the worker's clock (for a failure's times). */
export async function runJob(job: FetchJob, s: WorkerSettings, agent: Agent, now: () => number): Promise<FetchResult> {
  const startedAt = now();
  try {
    const raw = await fetchRaw(job.url, {
      agent,
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
      result.page = await parse(job, raw.body, raw.headers, s);
    }
    return result;
  } catch (err) {
    const failure = classifyError(err, job.url, s);
    const result = emptyResult(job, startedAt);
    result.endedAt = now();
    result.error = { kind: failure.kind, code: failure.code, message: failure.message };
    return result;
  }
}
