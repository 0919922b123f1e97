import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { emptyResult } from '../fetch/fetcher.ts';
import { pageOutcome } from './page-outcome.ts';
import type { FetchResult, ParsedPage } from '../common/protocol.ts';

function result(part: Partial<FetchResult>): FetchResult {
  return {
    ...emptyResult({ jobId: 1, kind: 'page', url: 'https://a.example/', origin: 'https://a.example' }, 0),
    status: 200,
    contentType: 'text/html',
    ...part,
  };
}

const page: ParsedPage = {
  finalUrl: 'https://a.example/',
  title: 'A',
  description: '',
  headings: [],
  text: 'words',
  lang: null,
  canonical: null,
  links: [],
  noindex: false,
  nofollow: false,
  noarchive: false,
  nosnippet: false,
  contentHash: 'h',
};

describe('pageOutcome', () => {
  test('network failures: retryable ones retry and back off after a streak, throttled ones back off at once, fatal ones give up', () => {
    const err = (kind: 'retryable' | 'throttled' | 'fatal') =>
      pageOutcome(result({ status: null, error: { kind, code: 'x', message: 'm' } }), false);
    assert.deepEqual(err('retryable'), {
      kind: 'failed',
      message: 'm',
      retry: true,
      streak: true,
      backoff: 'after-streak',
      backoffReason: 'x',
      retryAfterMs: null,
    });
    assert.equal((err('throttled') as { backoff: string }).backoff, 'now');
    assert.deepEqual(err('fatal'), {
      kind: 'failed',
      message: 'm',
      retry: false,
      streak: false,
      backoff: 'never',
      backoffReason: 'x',
      retryAfterMs: null,
    });
  });

  test('429 and 503 back off at once with Retry-After; other 5xx after a streak', () => {
    assert.deepEqual(pageOutcome(result({ status: 429, retryAfterMs: 2000 }), false), {
      kind: 'failed',
      message: 'the site answered 429 (too many requests)',
      retry: true,
      streak: true,
      backoff: 'now',
      backoffReason: 'HTTP 429, Retry-After 2 s',
      retryAfterMs: 2000,
    });
    assert.equal((pageOutcome(result({ status: 503 }), false) as { backoffReason: string }).backoffReason, 'HTTP 503');
    assert.equal((pageOutcome(result({ status: 502 }), false) as { backoff: string }).backoff, 'after-streak');
  });

  test('304 keeps the stored page only when the request was conditional', () => {
    assert.deepEqual(pageOutcome(result({ status: 304 }), true), { kind: 'not-modified' });
    const bogus = pageOutcome(result({ status: 304 }), false);
    assert.equal(bogus.kind, 'failed');
    assert.equal((bogus as { retry: boolean }).retry, false);
  });

  test('redirects, HTTP errors (404 and 410 mean gone), non-HTML bodies and pages', () => {
    assert.deepEqual(pageOutcome(result({ status: 301 }), false), { kind: 'redirect' });
    assert.deepEqual(pageOutcome(result({ status: 410 }), false), { kind: 'http-error', status: 410, gone: true });
    assert.deepEqual(pageOutcome(result({ status: 403 }), false), { kind: 'http-error', status: 403, gone: false });
    assert.deepEqual(pageOutcome(result({ contentType: 'application/pdf' }), false), {
      kind: 'not-html',
      why: 'not HTML (application/pdf)',
    });
    assert.deepEqual(pageOutcome(result({ contentType: 'text/html' }), false), {
      kind: 'not-html',
      why: 'not HTML: the body is binary data, though served as text/html',
    });
    assert.deepEqual(pageOutcome(result({ page }), false), { kind: 'page', page });
  });
});
