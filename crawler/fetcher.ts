import { lookup as dnsLookup } from 'node:dns';
import zlib from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { Agent, request, errors as undiciErrors } from 'undici';
import { checkUrl, isPrivateAddress } from './url.ts';
import { parseRetryAfter } from './backoff.ts';
import { ROBOTS_MAX_BYTES } from './robots.ts';
import type { FetchError, FetchJob, FetchResult, WorkerSettings } from './protocol.ts';

/** Fetch limits, in one place (the worker gets them from the primary in WorkerSettings). */
export const FETCH_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 20_000,
  bodyTimeoutMs: 15_000,
  totalTimeoutMs: 45_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxLinks: 5000,
} as const;

/** robots.txt bodies are read up to this size (RFC 9309 asks parsers for at least 500 KiB). */
export const ROBOTS_READ_BYTES = ROBOTS_MAX_BYTES;

/** A fetch failure carrying its kind (retryable, throttled, fatal), branched on by the primary. */
export class FetchFailure extends Error {
  constructor(readonly kind: FetchError['kind'], readonly code: string, message: string) {
    super(message);
  }
}

/** The raw answer of one request: status, chosen headers and the (decompressed, capped) body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer | null;
  startedAt: number;
  endedAt: number;
}

const now = () => performance.timeOrigin + performance.now();

/**
 * An undici Agent whose DNS lookup refuses private addresses (unless allowed), so the check is made on
 * the address actually connected to, not on the name in the URL.
 */
export function createAgent(settings: WorkerSettings): Agent {
  const lookup: typeof dnsLookup = ((hostname: string, options: object, callback: (...args: unknown[]) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err);
      const list = addresses as Array<{ address: string; family: number }>;
      const bad = settings.allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) {
        const e = new FetchFailure('fatal', 'private-address', `fetcher: ${hostname} resolves to the private address ${bad.address}; set CRAWL_ALLOW_PRIVATE=1 to crawl local networks`);
        return callback(e);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  }) as typeof dnsLookup;
  return new Agent({
    connect: { timeout: settings.connectTimeoutMs, lookup },
    headersTimeout: settings.headersTimeoutMs,
    bodyTimeout: settings.bodyTimeoutMs,
    keepAliveTimeout: 4_000,
    connections: 4,
  });
}

function decoderFor(encoding: string | undefined): Transform | null {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'br':
      return zlib.createBrotliDecompress();
    default:
      return null;
  }
}

/** Reads a body through its decoder, stopping (and failing) past `cap` decompressed bytes. */
async function readCapped(body: Readable, encoding: string | undefined, cap: number, truncateOk: boolean): Promise<Buffer> {
  const decoder = decoderFor(encoding);
  const source: Readable = decoder ? body.pipe(decoder) : body;
  if (decoder) body.on('error', (e) => decoder.destroy(e));
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const buf = chunk as Buffer;
      if (size + buf.length > cap) {
        if (truncateOk) {
          chunks.push(buf.subarray(0, cap - size));
          size = cap;
          break;
        }
        throw new FetchFailure('fatal', 'too-large', `fetcher: the body is larger than ${Math.round(cap / 1024)} KiB (after decompression); skipped`);
      }
      chunks.push(buf);
      size += buf.length;
    }
  } finally {
    body.on('error', () => undefined); // our own early stop (cap reached) surfaces as an abort: expected
    body.destroy();
    decoder?.destroy();
  }
  return Buffer.concat(chunks, size);
}

/** Turns anything thrown while fetching into a typed failure with a message for a person. */
export function classifyError(err: unknown, url: string): FetchFailure {
  if (err instanceof FetchFailure) return err;
  const e = err as { code?: string; name?: string; message?: string; cause?: unknown };
  const cause = e.cause as { code?: string; message?: string } | undefined;
  const code = e.code ?? cause?.code ?? e.name ?? 'error';
  const host = (() => { try { return new URL(url).host; } catch { return url; } })();
  if (cause instanceof FetchFailure) return cause;
  if (err instanceof undiciErrors.HeadersTimeoutError) return new FetchFailure('retryable', 'timeout', `fetcher: ${host} sent no response headers in time`);
  if (err instanceof undiciErrors.BodyTimeoutError) return new FetchFailure('retryable', 'timeout', `fetcher: ${host} stopped sending the body`);
  if (err instanceof undiciErrors.ConnectTimeoutError) return new FetchFailure('retryable', 'timeout', `fetcher: connecting to ${host} timed out`);
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return new FetchFailure('retryable', 'timeout', `fetcher: ${host} took too long to answer in full`);
  switch (code) {
    case 'ECONNREFUSED': return new FetchFailure('retryable', 'connection-refused', `fetcher: ${host} refused the connection`);
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET': return new FetchFailure('retryable', 'connection-reset', `fetcher: ${host} closed the connection mid-answer`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN': return new FetchFailure('retryable', 'dns', `fetcher: the host name ${host} does not resolve`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH': return new FetchFailure('retryable', 'unreachable', `fetcher: ${host} is unreachable`);
  }
  if (/CERT|SSL|TLS|ERR_TLS|SELF_SIGNED/i.test(code)) return new FetchFailure('fatal', 'tls', `fetcher: the TLS handshake with ${host} failed (${code})`);
  if (code === 'HPE_INVALID_CONSTANT' || code.startsWith('HPE_') || code === 'UND_ERR_INFO') {
    return new FetchFailure('fatal', 'bad-response', `fetcher: ${host} sent a malformed HTTP response (${code})`);
  }
  return new FetchFailure('retryable', 'network', `fetcher: request to ${host} failed: ${e.message ?? code}`);
}

/**
 * Makes one GET request (never following redirects: the primary queues the target as its own URL),
 * reading the body only when it will be used (HTML pages, robots.txt), decompressed and capped.
 */
export async function fetchRaw(url: string, opts: { agent: Agent; settings: WorkerSettings; wantBody: (status: number, contentType: string | undefined) => boolean; cap: number; truncateOk: boolean }): Promise<RawResponse> {
  const startedAt = now();
  const res = await request(url, {
    method: 'GET',
    dispatcher: opts.agent,
    headers: {
      'user-agent': opts.settings.userAgent,
      accept: 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5,*/*;q=0.1',
      'accept-encoding': 'gzip, deflate, br',
    },
    signal: AbortSignal.timeout(opts.settings.totalTimeoutMs),
  });
  const header = (name: string): string | undefined => {
    const v = res.headers[name];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  const contentType = header('content-type');
  let body: Buffer | null = null;
  if (opts.wantBody(res.statusCode, contentType)) {
    body = await readCapped(res.body, header('content-encoding'), opts.cap, opts.truncateOk);
  } else {
    // We do not want this body (not HTML, or an error page): close the stream without reading it.
    // The abort error that destroy() raises is the expected outcome, so it is handled here.
    res.body.on('error', () => undefined);
    res.body.destroy();
  }
  return {
    status: res.statusCode,
    headers: {
      'content-type': contentType,
      location: header('location'),
      'retry-after': header('retry-after'),
      etag: header('etag'),
      'last-modified': header('last-modified'),
      // One line per header occurrence: a bot prefix in one must not capture the directives of another.
      'x-robots-tag': Array.isArray(res.headers['x-robots-tag']) ? res.headers['x-robots-tag'].join('\n') : header('x-robots-tag'),
    },
    body,
    startedAt,
    endedAt: now(),
  };
}

/** An empty result for a job, filled in by the caller. */
export function emptyResult(job: FetchJob, startedAt: number): FetchResult {
  return {
    jobId: job.jobId, startedAt, endedAt: startedAt, status: null, contentType: null, etag: null, lastModified: null,
    retryAfterMs: null, location: null, locationRefusal: null, robotsBody: null, page: null, error: null,
  };
}

/** Fills the parts of a result that come from the response headers (redirect target, Retry-After, validators). */
export function resultFromResponse(job: FetchJob, raw: RawResponse, allowPrivate: boolean): FetchResult {
  const result = emptyResult(job, raw.startedAt);
  result.endedAt = raw.endedAt;
  result.status = raw.status;
  result.contentType = raw.headers['content-type'] ?? null;
  result.etag = raw.headers.etag ?? null;
  result.lastModified = raw.headers['last-modified'] ?? null;
  result.retryAfterMs = parseRetryAfter(raw.headers['retry-after'], Date.now()) ?? null;
  if (raw.status >= 300 && raw.status < 400 && raw.headers.location !== undefined) {
    const target = checkUrl(raw.headers.location, { allowPrivate }, job.url);
    if (target.ok) result.location = target.url;
    else result.locationRefusal = target.message;
  }
  return result;
}
