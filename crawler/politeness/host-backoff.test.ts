/**
 * A host's error streak and backoff (HostBackoff) on a real Scheduler with an injected clock: a failure
 * backs its host off at once or after a streak, a group-wide backoff (a 503 or 429) holds every name of
 * the registrable domain, and a good answer of any of them releases the group.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { BACKOFF } from './backoff.ts';
import { HostBackoff, type HostFailure } from './host-backoff.ts';
import { Scheduler } from './scheduler.ts';

const DOCS = 'https://docs.site.example';
const WWW = 'https://www.site.example';
const NOW = 1_000_000;

const failure = (over: Partial<HostFailure> = {}): HostFailure => ({
  message: 'HTTP 500',
  streak: true,
  backoff: 'after-streak',
  backoffReason: 'HTTP 500',
  retryAfterMs: null,
  ...over,
});

test('a failure that counts backs its host off once the streak reaches BACKOFF.errorsBeforeBackoff', () => {
  const scheduler = new Scheduler<CrawlJob>(100);
  const backoff = new HostBackoff(scheduler);
  const docs = newHostRow(DOCS, 'docs.site.example');
  assert.equal(backoff.noteFailure(docs, NOW, failure({ streak: false })), undefined, 'not counted: no backoff');
  for (let i = 1; i < BACKOFF.errorsBeforeBackoff; i++)
    assert.equal(backoff.noteFailure(docs, NOW, failure()), undefined);
  const until = backoff.noteFailure(docs, NOW, failure());
  assert.equal(until, NOW + BACKOFF.firstMs);
  assert.deepEqual(
    [docs.consecutiveErrors, docs.backoffUntil, docs.backoffReason],
    [BACKOFF.errorsBeforeBackoff, NOW + BACKOFF.firstMs, 'HTTP 500'],
  );
  assert.equal(scheduler.dueAt(DOCS), NOW + BACKOFF.firstMs, 'the scheduler holds the host as its row says');
  assert.equal(backoff.noteFailure(docs, NOW, failure()), NOW + 2 * BACKOFF.firstMs, 'the next step doubles');

  backoff.clearBackoff(docs);
  assert.deepEqual([docs.consecutiveErrors, docs.backoffMs, docs.backoffUntil, docs.backoffReason], [0, 0, 0, null]);
  assert.equal(scheduler.dueAt(DOCS), 0, 'released in the scheduler too');
});

test('a group backoff holds every name of the domain until a good answer of any of them; Retry-After sets its length', () => {
  const scheduler = new Scheduler<CrawlJob>(100, { grouping: 'domain' });
  const backoff = new HostBackoff(scheduler);
  const docs = newHostRow(DOCS, 'docs.site.example');
  const www = newHostRow(WWW, 'www.site.example');
  const overloaded = failure({ backoff: 'now', backoffReason: 'HTTP 503', retryAfterMs: 30_000, scope: 'group' });
  assert.equal(backoff.noteFailure(docs, NOW, overloaded), NOW + 30_000);
  assert.equal(scheduler.dueAt(WWW), NOW + 30_000, 'the other name is held too');
  assert.equal(scheduler.delayReason(WWW, NOW).source, 'retry-after');

  backoff.clearBackoff(www);
  assert.equal(scheduler.dueAt(WWW), 0, 'a good answer of the other name releases the group');
  assert.equal(scheduler.dueAt(DOCS), NOW + 30_000, "the 503's own name keeps its own backoff");
  assert.equal(www.backoffUntil, 0);
});
