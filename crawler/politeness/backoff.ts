/**
 * How long a host is left alone after it asked us to slow down or kept failing. Pure.
 * Defaults in one place: backoff starts at a few seconds, doubles, and is capped at an hour;
 * a Retry-After is honoured as given (up to a day) and never shortened.
 */
export const BACKOFF = {
  firstMs: 5_000,
  maxMs: 60 * 60 * 1000,
  maxRetryAfterMs: 24 * 60 * 60 * 1000,
  /** Consecutive 5xx / timeouts / connection failures before the host is backed off. */
  errorsBeforeBackoff: 2,
  /** How many times one URL is tried before it is given up. */
  maxAttempts: 4,
  /** First wait before retrying one URL; doubles with each attempt. */
  retryFirstMs: 2_000,
} as const;

/** When a failure backs its host off: at once, once the host's error streak is long enough, or not at all. */
export type BackoffRule = 'now' | 'after-streak' | 'never';

/**
 * Parses a Retry-After header (delay-seconds or an HTTP date) into milliseconds from `now`;
 * undefined when absent or unparsable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value == null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.min(Math.ceil(Number(v) * 1000), BACKOFF.maxRetryAfterMs);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), BACKOFF.maxRetryAfterMs);
}

/** The next backoff after `previousMs` (0 for none yet): first, then doubling, capped. */
export function nextBackoffMs(previousMs: number): number {
  return previousMs <= 0 ? BACKOFF.firstMs : Math.min(previousMs * 2, BACKOFF.maxMs);
}

/** When to try one URL again after its `attempts`-th failure. */
export function retryDelayMs(attempts: number): number {
  return Math.min(BACKOFF.retryFirstMs * 2 ** Math.max(0, attempts - 1), BACKOFF.maxMs);
}

/** Whether a backoff holds only the host that failed or every host of its politeness group. */
export type BackoffScope = 'host' | 'group';

/**
 * Which hosts a failure's backoff holds. A 503 (the server is unavailable) and a 429 (too many
 * requests, usually counted per client across every name the server answers for) say the whole
 * server wants less: the group waits, as a site owner with four names on one server would want.
 * Anything else (5xx, timeouts, refused connections, DNS, TLS) may be one name's own trouble, often a
 * different backend: only that host waits, and its siblings go on at the group's pace.
 */
export function backoffScope(status: number | null): BackoffScope {
  return status === 429 || status === 503 ? 'group' : 'host';
}
