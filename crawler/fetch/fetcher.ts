/**
 * One GET through undici within Lantern's limits: every connection's address checked on the answer
 * actually connected to (guardedLookup), redirects never followed, the body read only when wanted,
 * decompressed and capped (readCapped), every failure a FetchFailure (crawler/common/fetch-failure.ts).
 * Kept by hand, and why: the capped decompression, because undici's decompress interceptor can only
 * fail past its maxSize (off by default in 7.30; added in 7.29.1, per GHSA-3xpg-4rpp-hhhm), while
 * robots.txt and sitemaps are read truncated to what fits, and a bomb's message and a slow body's say
 * how many bytes came off the wire;
 * the guarded lookup, because only a lookup hook sees the address a socket connects to (DNS
 * rebinding), and the address ranges themselves are net.BlockLists in crawler/common/url.ts.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import zlib from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import { Agent, request } from 'undici';
import { checkUrl, isPrivateAddress } from '../common/url.ts';
import { parseRetryAfter } from '../politeness/backoff.ts';
import { ROBOTS_MAX_BYTES } from '../politeness/robots.ts';
import { classifyError, describeBytes, FetchFailure } from '../common/fetch-failure.ts';
import type { FetchJob, FetchResult, WorkerSettings } from '../common/protocol.ts';
import { machineNow } from '../common/machine-clock.ts';
import { checkSendLimit, RequestNotSent, sendLimit } from './send-limit.ts';

export { RequestNotSent } from './send-limit.ts';
export { classifyError, describeBytes, FetchFailure } from '../common/fetch-failure.ts';
export { FETCH_DEFAULTS, fetchLimits } from './fetch-limits.ts';

/** robots.txt bodies are read up to this size (RFC 9309 asks parsers for at least 500 KiB). */
export const ROBOTS_READ_BYTES = ROBOTS_MAX_BYTES;

/** The raw answer of one request: status, chosen headers and the (decompressed, capped) body. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer | null;
  startedAt: number;
  endedAt: number;
}

/** A name resolver in the shape of dns.lookup with `all: true` (injectable, so tests can play a hostile DNS). */
export type Resolver = (
  hostname: string,
  options: { all: true; family?: number; hints?: number },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

const systemResolver: Resolver = (hostname, options, callback) => dnsLookup(hostname, options, callback);

const now = () => performance.timeOrigin + performance.now();

/**
 * The lookup every connection makes: it resolves the name, refuses the connection when any answer is a
 * private address (unless allowed), and hands the socket exactly the addresses it checked. It runs for
 * every new connection, so a name that changes its answer (DNS rebinding) is judged on each answer
 * actually used. A resolver that does not answer within half the connect time fails as a 'dns' error.
 */
export function guardedLookup(
  settings: Pick<WorkerSettings, 'allowPrivate' | 'connectTimeoutMs'>,
  resolve: Resolver = systemResolver,
): LookupFunction {
  const limitMs = Math.max(500, Math.floor(settings.connectTimeoutMs / 2));
  return ((
    hostname: string,
    options: { all?: boolean; family?: number; hints?: number },
    callback: (...args: unknown[]) => void,
  ) => {
    let settled = false;
    const finish = (err: Error | null, list: LookupAddress[] = []): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) callback(err);
      else if (options.all) callback(null, list);
      else callback(null, list[0].address, list[0].family);
    };
    const timer = setTimeout(
      () =>
        finish(
          new FetchFailure(
            'retryable',
            'dns',
            `fetcher: the host name ${hostname} did not resolve within ${limitMs / 1000} s (the name server is slow or unreachable)`,
          ),
        ),
      limitMs,
    );
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (err, addresses) => {
      if (err) return finish(err);
      const list = addresses ?? [];
      if (list.length === 0)
        return finish(new FetchFailure('retryable', 'dns', `fetcher: the host name ${hostname} has no address`));
      const bad = settings.allowPrivate ? undefined : list.find((a) => isPrivateAddress(a.address));
      if (bad) {
        return finish(
          new FetchFailure(
            'fatal',
            'private-address',
            `fetcher: ${hostname} resolves to the private address ${bad.address}; refused at connect time (set CRAWL_ALLOW_PRIVATE=1 to crawl local networks)`,
          ),
        );
      }
      finish(null, list);
    });
  }) as LookupFunction;
}

/**
 * An undici Agent whose every connection goes through guardedLookup, so the private-address check is
 * made on the address actually connected to, not on the name in the URL. `resolve` defaults to the
 * system resolver (dns.lookup).
 */
export function createAgent(settings: WorkerSettings, resolve: Resolver = systemResolver): Agent {
  return new Agent({
    connect: { timeout: settings.connectTimeoutMs, lookup: guardedLookup(settings, resolve) },
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

/** How far a body got: bytes off the wire, and after decompression. */
interface Progress {
  received: number;
  decoded: number;
}

/**
 * Reads a body through its decoder, stopping past `cap` decompressed bytes: it fails (or, with
 * `truncateOk`, keeps the first `cap` bytes). Either way the connection is closed at once, so the rest
 * is never downloaded, and a compression bomb is never inflated beyond the cap.
 */
async function readCapped(
  body: Readable,
  encoding: string | undefined,
  cap: number,
  truncateOk: boolean,
  host: string,
  progress: Progress,
): Promise<Buffer> {
  const decoder = decoderFor(encoding);
  let bodyError: unknown;
  body.on('error', (e) => {
    bodyError = e;
    decoder?.destroy(e);
  });
  if (decoder) {
    body.on('data', (c: Buffer) => {
      progress.received += c.length;
    });
    body.pipe(decoder);
  }
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of decoder ?? body) {
      const buf = chunk as Buffer;
      if (!decoder) progress.received += buf.length;
      if (progress.decoded + buf.length > cap) {
        if (truncateOk) {
          chunks.push(buf.subarray(0, cap - progress.decoded));
          progress.decoded = cap;
          break;
        }
        const bomb = decoder
          ? ` once decompressed, from ${describeBytes(progress.received)} of ${encoding!.trim()} (a compression bomb?)`
          : '';
        throw new FetchFailure(
          'fatal',
          'too-large',
          `fetcher: ${host} sent a body larger than ${describeBytes(cap)}${bomb}; stopped reading, the page is skipped`,
        );
      }
      chunks.push(buf);
      progress.decoded += buf.length;
    }
  } catch (err) {
    if (decoder && err !== bodyError && !(err instanceof FetchFailure)) {
      const why = (err as Error).message ?? String(err);
      throw new FetchFailure(
        'fatal',
        'bad-encoding',
        `fetcher: ${host} sent a body that is not valid ${encoding!.trim()} (Content-Encoding says so): ${why}`,
      );
    }
    throw err;
  } finally {
    body.destroy(); // our own early stop surfaces as an abort on `body`: handled by the listener above
    decoder?.destroy();
  }
  return Buffer.concat(chunks, progress.decoded);
}

/** If-None-Match / If-Modified-Since for a page fetched before (RFC 9110 §13.1); none without validators. */
function conditionalHeaders(v: FetchJob['validators']): Record<string, string> {
  const headers: Record<string, string> = {};
  if (v?.etag) headers['if-none-match'] = v.etag;
  if (v?.lastModified) headers['if-modified-since'] = v.lastModified;
  return headers;
}

/**
 * Makes one GET request (never following redirects: the primary queues the target as its own URL),
 * reading the body only when it will be used (HTML pages, robots.txt, sitemaps), decompressed and capped;
 * conditional (If-None-Match / If-Modified-Since) when `validators` are given.
 * Everything that goes wrong is thrown as a FetchFailure whose message says what happened.
 */
export async function fetchRaw(
  url: string,
  opts: {
    agent: Agent;
    settings: WorkerSettings;
    wantBody: (status: number, contentType: string | undefined) => boolean;
    cap: number;
    truncateOk: boolean;
    validators?: FetchJob['validators'];
    /** A crawler node's send limit on the machine's clock (FetchJob.sendBy, send-limit.ts); absent: none. */
    sendBy?: number;
  },
): Promise<RawResponse> {
  const { settings, sendBy } = opts;
  checkSendLimit(url, sendBy, machineNow()); // not even a connection past it
  const startedAt = now();
  const target = new URL(url);
  // IP literals never reach the lookup hook, so they are judged here (checkUrl already refused them upstream).
  if (!settings.allowPrivate && isPrivateAddress(target.hostname)) {
    throw new FetchFailure(
      'fatal',
      'private-address',
      `fetcher: ${target.hostname} is a private address; refused (set CRAWL_ALLOW_PRIVATE=1 to crawl local networks)`,
    );
  }
  const host = target.host;
  const progress: Progress = { received: 0, decoded: 0 };
  try {
    const res = await request(url, {
      method: 'GET',
      dispatcher: sendBy === undefined ? opts.agent : opts.agent.compose(sendLimit(url, sendBy)),
      headers: {
        'user-agent': settings.userAgent,
        accept:
          'text/html,application/xhtml+xml;q=0.9,application/pdf;q=0.8,text/markdown;q=0.6,text/plain;q=0.5,*/*;q=0.1',
        'accept-encoding': 'gzip, deflate, br',
        ...conditionalHeaders(opts.validators),
      },
      signal: AbortSignal.timeout(settings.totalTimeoutMs),
    });
    const header = (name: string): string | undefined => {
      const v = res.headers[name];
      return Array.isArray(v) ? v.join(', ') : v;
    };
    const contentType = header('content-type');
    let body: Buffer | null = null;
    if (opts.wantBody(res.statusCode, contentType)) {
      const declared = Number(header('content-length'));
      if (!opts.truncateOk && Number.isFinite(declared) && declared > opts.cap) {
        res.body.on('error', () => undefined);
        res.body.destroy();
        throw new FetchFailure(
          'fatal',
          'too-large',
          `fetcher: ${host} announced a body of ${describeBytes(declared)} (Content-Length), over the ${describeBytes(opts.cap)} limit; not downloaded, the page is skipped`,
        );
      }
      body = await readCapped(res.body, header('content-encoding'), opts.cap, opts.truncateOk, host, progress);
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
        'x-robots-tag': Array.isArray(res.headers['x-robots-tag'])
          ? res.headers['x-robots-tag'].join('\n')
          : header('x-robots-tag'),
      },
      body,
      startedAt,
      endedAt: now(),
    };
  } catch (err) {
    if (err instanceof RequestNotSent) throw err; // not the site's failure: the job goes back as it was
    const failure = classifyError(err, url, settings);
    if (failure.code === 'timeout' && progress.received > 0) {
      // The headers came; the body did not end in time: say how far it got (a drip, or a body without end).
      const name = (err as { name?: string }).name;
      const drip = name === 'TimeoutError' || name === 'AbortError' ? ' (it drips slowly or never ends)' : '';
      throw new FetchFailure(
        failure.kind,
        failure.code,
        `${failure.message}; ${describeBytes(progress.received)} of body had arrived${drip}`,
      );
    }
    throw failure;
  }
}

/** An empty result for a job, filled in by the caller. */
export function emptyResult(job: FetchJob, startedAt: number): FetchResult {
  return {
    jobId: job.jobId,
    startedAt,
    endedAt: startedAt,
    status: null,
    contentType: null,
    etag: null,
    lastModified: null,
    retryAfterMs: null,
    location: null,
    locationRefusal: null,
    robotsBody: null,
    page: null,
    error: null,
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
