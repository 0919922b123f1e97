import type { FetchError } from './protocol.ts';

/**
 * A fetch failure carrying its kind (retryable, throttled, fatal), branched on by the primary, a short
 * machine word (`code`: 'timeout', 'too-large', 'dns', ...) and a message for a person that names the
 * host and says what went wrong.
 */
export class FetchFailure extends Error {
  constructor(
    readonly kind: FetchError['kind'],
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The time limits a message may quote (seconds are shown, not milliseconds). */
export interface TimeLimits {
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  bodyTimeoutMs: number;
  totalTimeoutMs: number;
}

/** A byte count for people: "512 bytes", "48 KiB", "5 MiB", "1.5 GiB". */
export function describeBytes(n: number): string {
  const units: Array<[number, string]> = [
    [1024 ** 3, 'GiB'],
    [1024 ** 2, 'MiB'],
    [1024, 'KiB'],
  ];
  for (const [size, unit] of units) {
    if (n >= size) {
      const v = n / size;
      return `${v >= 10 || Number.isInteger(v) ? Math.round(v) : v.toFixed(1)} ${unit}`;
    }
  }
  return `${n} byte${n === 1 ? '' : 's'}`;
}

/** " within 2.5 s" for a known limit, '' for none. */
const within = (ms: number | undefined): string => (ms === undefined ? '' : ` within ${Math.round(ms / 100) / 10} s`);

/** Certificate and handshake error codes in words ("its certificate is self-signed"). */
function tlsWords(code: string): string {
  if (/SELF_SIGNED/.test(code)) return 'its certificate is self-signed';
  if (/CERT_HAS_EXPIRED/.test(code)) return 'its certificate has expired';
  if (/CERT_NOT_YET_VALID/.test(code)) return 'its certificate is not valid yet';
  if (/ALTNAME|HOSTNAME/.test(code)) return 'its certificate is for another name';
  if (/UNABLE_TO_(GET_ISSUER|VERIFY_LEAF)/.test(code)) return 'its certificate is not signed by a trusted authority';
  return 'the handshake was refused';
}

/**
 * undici's timeout errors, by the `code` each of its error classes sets. Matched by code rather than by
 * `instanceof undici.errors.*`, so that this module does not load undici: the crawler primary reaches it
 * (through extract/sitemap.ts) and never fetches, and undici costs a process about 15 MiB.
 */
const UNDICI_TIMEOUT = {
  headers: 'UND_ERR_HEADERS_TIMEOUT',
  body: 'UND_ERR_BODY_TIMEOUT',
  connect: 'UND_ERR_CONNECT_TIMEOUT',
} as const;

/**
 * Turns anything thrown while fetching into a typed failure with a message for a person. `limits`,
 * when given, lets timeout messages say which limit was hit.
 */
export function classifyError(err: unknown, url: string, limits?: TimeLimits): FetchFailure {
  if (err instanceof FetchFailure) return err;
  const e = (err ?? {}) as { code?: string; name?: string; message?: string; cause?: unknown };
  const cause = e.cause as { code?: string; message?: string } | undefined;
  if (cause instanceof FetchFailure) return cause;
  const code = e.code ?? cause?.code ?? e.name ?? 'error';
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  if (e.code === UNDICI_TIMEOUT.headers)
    return new FetchFailure(
      'retryable',
      'timeout',
      `fetcher: ${host} sent no response headers${within(limits?.headersTimeoutMs)}`,
    );
  if (e.code === UNDICI_TIMEOUT.body)
    return new FetchFailure(
      'retryable',
      'timeout',
      `fetcher: ${host} stopped sending the body (nothing more came${within(limits?.bodyTimeoutMs)})`,
    );
  if (e.code === UNDICI_TIMEOUT.connect)
    return new FetchFailure(
      'retryable',
      'timeout',
      `fetcher: could not connect to ${host}${within(limits?.connectTimeoutMs)}`,
    );
  if (e.name === 'TimeoutError' || e.name === 'AbortError')
    return new FetchFailure(
      'retryable',
      'timeout',
      `fetcher: ${host} did not finish its answer${within(limits?.totalTimeoutMs)}`,
    );
  switch (code) {
    case 'ECONNREFUSED':
      return new FetchFailure(
        'retryable',
        'connection-refused',
        `fetcher: ${host} refused the connection (nothing listens there)`,
      );
    case 'ECONNRESET':
    case 'EPIPE':
    case 'UND_ERR_SOCKET':
      return new FetchFailure('retryable', 'connection-reset', `fetcher: ${host} closed the connection mid-answer`);
    case 'ENOTFOUND':
    case 'ENODATA':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return new FetchFailure('retryable', 'dns', `fetcher: the host name ${host} does not resolve`);
    case 'EAI_AGAIN':
      return new FetchFailure(
        'retryable',
        'dns',
        `fetcher: the host name ${host} could not be resolved right now (the name server did not answer)`,
      );
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new FetchFailure('retryable', 'unreachable', `fetcher: ${host} is unreachable`);
  }
  if (/CERT|SSL|TLS|SELF_SIGNED/i.test(code))
    return new FetchFailure(
      'fatal',
      'tls',
      `fetcher: the TLS handshake with ${host} failed: ${tlsWords(code)} (${code})`,
    );
  if (code.startsWith('HPE_') || code === 'UND_ERR_INFO' || code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return new FetchFailure('fatal', 'bad-response', `fetcher: ${host} sent a malformed HTTP response (${code})`);
  }
  return new FetchFailure('retryable', 'network', `fetcher: request to ${host} failed: ${e.message ?? code}`);
}
