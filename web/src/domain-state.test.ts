import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { robotsText, stateDetail, stateLabel } from './domain-state.ts';

describe('stateLabel', () => {
  test('names every state in the words of the Domains view', () => {
    assert.equal(stateLabel('crawling'), 'crawling');
    assert.equal(stateLabel('backoff'), 'backing off');
    assert.equal(stateLabel('robots-blocked'), 'blocked by robots.txt');
    assert.equal(stateLabel('robots-unreachable'), 'robots.txt unreachable');
    assert.equal(stateLabel('robots-unusable'), 'robots.txt unusable');
  });
});

describe('stateDetail', () => {
  test('drops the label the badge already shows', () => {
    assert.equal(stateDetail('idle', 'idle: nothing queued'), 'nothing queued');
    assert.equal(stateDetail('waiting', 'waiting 0.4 s for its turn'), '0.4 s for its turn');
    assert.equal(
      stateDetail('backoff', 'backing off until 14:03:05 UTC (429 Retry-After)'),
      'until 14:03:05 UTC (429 Retry-After)',
    );
    assert.equal(stateDetail('failing', 'failing: connect ECONNREFUSED'), 'connect ECONNREFUSED');
  });
  test('keeps a sentence that says something else, or that would start mid-phrase', () => {
    assert.equal(stateDetail('crawling', 'fetching now'), 'fetching now');
    assert.equal(stateDetail('waiting', 'due now'), 'due now');
    assert.equal(
      stateDetail('robots-unreachable', 'robots.txt unreachable (HTTP 503); nothing fetched until it answers'),
      'robots.txt unreachable (HTTP 503); nothing fetched until it answers',
    );
  });
  test('is null when nothing is left to add', () => {
    assert.equal(stateDetail('idle', 'idle'), null);
    assert.equal(stateDetail('idle', 'Idle '), null);
    assert.equal(stateDetail('idle', ''), null);
  });
});

describe('robotsText', () => {
  test('says the status in words with the HTTP status, and what a 304 means', () => {
    const robots = (
      status: 'ok' | 'allow-all' | 'unreachable' | 'unusable' | 'pending',
      httpStatus: number | null,
    ) => ({ status, httpStatus, fetchedAt: null, crawlDelayMs: null });
    assert.equal(robotsText(robots('ok', 200)), 'ok (200)');
    assert.equal(robotsText(robots('ok', 304)), 'ok (304, unchanged)');
    assert.equal(robotsText(robots('allow-all', 404)), 'allow all (404)');
    assert.equal(robotsText(robots('pending', null)), 'pending');
    assert.equal(robotsText(robots('unusable', 200)), 'unusable (200)');
  });
});
