/**
 * The fetch limits, in a file of their own (no undici): the crawler primary sends them to its workers
 * in WorkerSettings and never fetches, so it must not load the fetcher (fetcher.ts re-exports them).
 */
import type { WorkerSettings } from '../common/protocol.ts';
import { PDF_LIMITS } from '../common/pdf-limits.ts';

/**
 * Fetch limits, in one place (the worker gets them from the primary in WorkerSettings). One request may
 * take `totalTimeoutMs` from connect to last byte; connecting (name lookup and TLS included) gets at most
 * 10 s of it, the wait for headers and any silence inside the body half of it. A body is read up to
 * `maxBodyBytes` after decompression.
 */
export const FETCH_DEFAULTS = {
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  totalTimeoutMs: 30_000,
  maxBodyBytes: 5 * 1024 * 1024,
  maxLinks: 5000,
  /** Fetches one worker runs at once (each of a different host): slow sites must not hold whole workers. */
  fetchesPerWorker: 4,
} as const;

/** The fetch limits for a total time limit per request (CRAWL_TIMEOUT_MS); the default gives FETCH_DEFAULTS. */
export function fetchLimits(
  totalTimeoutMs: number = FETCH_DEFAULTS.totalTimeoutMs,
): Omit<WorkerSettings, 'userAgent' | 'allowPrivate'> {
  return {
    connectTimeoutMs: Math.min(FETCH_DEFAULTS.connectTimeoutMs, Math.round(totalTimeoutMs / 3)),
    headersTimeoutMs: Math.round(totalTimeoutMs / 2),
    bodyTimeoutMs: Math.round(totalTimeoutMs / 2),
    totalTimeoutMs,
    maxBodyBytes: FETCH_DEFAULTS.maxBodyBytes,
    maxLinks: FETCH_DEFAULTS.maxLinks,
    pdf: { ...PDF_LIMITS },
  };
}
