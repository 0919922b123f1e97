/**
 * What the result of a page fetch means, decided before anything is written: a failure (retried or
 * not, backing the host off or not), a redirect, a 304 for a conditional request, an HTTP error, a
 * body that is not HTML, or a page to store. Pure: the coordinator applies the outcome.
 */
import { isHtmlContentType } from '../common/charset.ts';
import type { PageRecord } from '../../db/pages.ts';
import type { BackoffRule } from '../politeness/backoff.ts';
import type { FetchResult, ParsedPage } from '../common/protocol.ts';

/** A URL's last_error after a conditional re-fetch answered 304. */
export const NOT_MODIFIED = 'not modified since the last fetch (HTTP 304): the stored page is kept';
/** A URL's last_error when its page has no text: stored for bookkeeping, not indexed. */
export const EMPTY_PAGE = 'the page has no text to index (an empty body, or markup only)';

/** The meaning of one page fetch's result. */
export type PageOutcome =
  | {
      kind: 'failed';
      /** For the URL's last_error and the host's row. */
      message: string;
      /** Whether the URL gets another attempt later (up to BACKOFF.maxAttempts). */
      retry: boolean;
      /** Whether this failure counts toward the host's error streak (it says something about the host). */
      streak: boolean;
      backoff: BackoffRule;
      /** Why the host is backed off, as /api/domains shows it, and the site's Retry-After if it gave one. */
      backoffReason: string;
      retryAfterMs: number | null;
    }
  | { kind: 'not-modified' }
  | { kind: 'redirect' }
  | { kind: 'http-error'; status: number; gone: boolean }
  | { kind: 'not-html'; why: string }
  | { kind: 'page'; page: ParsedPage };

/**
 * Reads a page job's result. `conditional`: the request carried the stored page's validators, so a
 * 304 means the stored page is current; to any other request a 304 is the site's error.
 */
export function pageOutcome(result: FetchResult, conditional: boolean): PageOutcome {
  const status = result.status;
  if (result.error) {
    const { kind, code, message } = result.error;
    if (kind === 'fatal') return failed(message, { retry: false, streak: false, backoff: 'never', reason: code });
    return failed(message, {
      retry: true,
      streak: true,
      backoff: kind === 'throttled' ? 'now' : 'after-streak',
      reason: code,
    });
  }
  if (status === 429 || status === 503) {
    const reason =
      result.retryAfterMs !== null
        ? `HTTP ${status}, Retry-After ${Math.round(result.retryAfterMs / 1000)} s`
        : `HTTP ${status}`;
    return failed(`the site answered ${status} (${status === 429 ? 'too many requests' : 'unavailable'})`, {
      retry: true,
      streak: true,
      backoff: 'now',
      reason,
      retryAfterMs: result.retryAfterMs,
    });
  }
  if (status !== null && status >= 500) {
    return failed(`the site answered ${status}`, {
      retry: true,
      streak: true,
      backoff: 'after-streak',
      reason: `HTTP ${status}`,
      retryAfterMs: result.retryAfterMs,
    });
  }
  if (status === 304) {
    return conditional
      ? { kind: 'not-modified' }
      : failed('the site answered 304 (not modified) to a request that was not conditional', {
          retry: false,
          streak: false,
          backoff: 'never',
          reason: 'HTTP 304',
        });
  }
  if (status !== null && status >= 300 && status < 400) return { kind: 'redirect' };
  if (status !== null && status >= 400) return { kind: 'http-error', status, gone: status === 404 || status === 410 };
  if (!result.page) {
    const type = result.contentType;
    const why =
      type === null
        ? 'not HTML (no content type, and the body does not look like HTML)'
        : isHtmlContentType(type)
          ? `not HTML: the body is binary data, though served as ${type}`
          : `not HTML (${type})`;
    return { kind: 'not-html', why };
  }
  return { kind: 'page', page: result.page };
}

function failed(
  message: string,
  o: { retry: boolean; streak: boolean; backoff: BackoffRule; reason: string; retryAfterMs?: number | null },
): PageOutcome {
  return {
    kind: 'failed',
    message,
    retry: o.retry,
    streak: o.streak,
    backoff: o.backoff,
    backoffReason: o.reason,
    retryAfterMs: o.retryAfterMs ?? null,
  };
}

/** A page without any text (an empty body, or markup only): kept for bookkeeping but not indexed. */
export function isEmptyPage(page: ParsedPage): boolean {
  return page.title === '' && page.text === '';
}

/** The row of a page fetched for a seed: the stored row, with its seed and its text's hash always known. */
export type FetchedPageRecord = PageRecord & { seedId: number; contentHash: string };

/**
 * The row a fetched page is stored as. Searchable unless the page said noindex or has no text at all
 * (an empty body, or markup only: kept for bookkeeping, see EMPTY_PAGE).
 */
export function pageRecord(
  at: { url: string; origin: string; host: string; seedId: number },
  result: FetchResult,
  page: ParsedPage,
  fetchedAt: number,
): FetchedPageRecord {
  return {
    url: at.url,
    finalUrl: page.finalUrl,
    origin: at.origin,
    host: at.host,
    seedId: at.seedId,
    status: result.status ?? 0,
    contentType: result.contentType,
    title: page.title,
    description: page.description,
    headings: page.headings,
    body: page.text,
    lang: page.lang,
    canonical: page.canonical,
    fetchedAt,
    etag: result.etag,
    lastModified: result.lastModified,
    contentHash: page.contentHash,
    noindex: page.noindex,
    nofollow: page.nofollow,
    noarchive: page.noarchive,
    nosnippet: page.nosnippet,
    indexed: !page.noindex && !isEmptyPage(page),
    linkDensity: page.linkDensity ?? null,
    fileType: page.fileType ?? 'html',
    pageStarts: page.pageStarts ?? null,
  };
}
