import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHostRow, type HostRow } from '../../db/hosts.ts';
import { describeHost, RequestRing, SLOW_FETCH_MS, type HostFacts } from './host-report.ts';

const NOW = Date.parse('2030-01-01T12:00:00Z');

function facts(row: Partial<HostRow>, live: Partial<Omit<HostFacts, 'row'>> = {}): HostFacts {
  return {
    row: { ...newHostRow('http://a.example', 'a.example'), robotsStatus: 'allow-all', ...row },
    queued: 0,
    inFlight: 0,
    dueAt: NOW,
    delay: { ms: 1000, source: 'default', text: '1.0 s: the default delay' },
    robotsSkipped: 0,
    group: 'a.example',
    ...live,
  };
}

test('a fetch in flight for long is called slow, with its duration', () => {
  assert.equal(
    describeHost(facts({ lastRequestStart: NOW - 200 }, { inFlight: 1, queued: 1 }), NOW).stateText,
    'fetching now',
  );
  const slow = describeHost(facts({ lastRequestStart: NOW - SLOW_FETCH_MS - 7000 }, { inFlight: 1, queued: 1 }), NOW);
  assert.equal(slow.state, 'crawling');
  assert.equal(slow.stateText, 'fetching now, for 12 s: the site is slow to answer');
});

test('a backoff after fetch errors names the count, the kind in words and the last error', () => {
  const error = 'fetcher: a.example sent no response headers within 15 s';
  const row = describeHost(
    facts(
      { backoffUntil: NOW + 5000, backoffReason: 'timeout', consecutiveErrors: 2, errorCount: 2, lastError: error },
      { queued: 1 },
    ),
    NOW,
  );
  assert.equal(row.state, 'backoff');
  assert.equal(row.stateText, `backing off until 12:00:05 UTC after 2 failures in a row (timeouts): ${error}`);
  // A Retry-After reason is kept as it was written.
  const throttled = describeHost(
    facts(
      {
        backoffUntil: NOW + 2000,
        backoffReason: 'HTTP 429, Retry-After 2 s',
        consecutiveErrors: 1,
        lastError: 'the site answered 429 (too many requests)',
      },
      { queued: 1 },
    ),
    NOW,
  );
  assert.equal(throttled.stateText, 'backing off until 12:00:02 UTC (HTTP 429, Retry-After 2 s)');
});

test('a retry after one error says so; repeated errors are failing, with the last one', () => {
  const error = 'fetcher: a.example closed the connection mid-answer';
  assert.equal(
    describeHost(facts({ consecutiveErrors: 1, errorCount: 1, lastError: error }, { queued: 1 }), NOW).stateText,
    `waiting to retry after an error: ${error}`,
  );
  const failing = describeHost(facts({ consecutiveErrors: 4, errorCount: 4, lastError: error }), NOW);
  assert.equal(failing.state, 'failing');
  assert.equal(failing.stateText, `failing: 4 failures in a row, the last: ${error}`);
});

test('a host where nothing could be fetched is failing; one with some pages and some errors is idle, with the last error', () => {
  const error = 'fetcher: a.example sent a body larger than 5 MiB; stopped reading, the page is skipped';
  const none = describeHost(facts({ errorCount: 1, lastError: error }), NOW);
  assert.equal(none.state, 'failing');
  assert.equal(none.stateText, `failing: nothing could be fetched (1 error), the last: ${error}`);
  const some = describeHost(facts({ errorCount: 2, fetchedCount: 3, lastError: error }), NOW);
  assert.equal(some.state, 'idle');
  assert.equal(some.stateText, `idle: nothing queued; 2 errors, the last: ${error}`);
  assert.equal(describeHost(facts({ fetchedCount: 3 }), NOW).stateText, 'idle: nothing queued');
});

test('robots.txt unreachable keeps its own sentence, with the error and the retry time', () => {
  const error = 'fetcher: the host name a.example does not resolve';
  const row = describeHost(
    facts(
      {
        robotsStatus: 'unreachable',
        lastError: error,
        backoffUntil: NOW + 10_000,
        errorCount: 2,
        consecutiveErrors: 0,
      },
      { queued: 1 },
    ),
    NOW,
  );
  assert.equal(row.state, 'robots-unreachable');
  assert.equal(
    row.stateText,
    `robots.txt unreachable (${error}); nothing fetched until it answers, retry at 12:00:10 UTC`,
  );
});

test('robots.txt unusable says why, that nothing is fetched, and when robots.txt is asked again', () => {
  const error =
    'robots: its 25,000 rules for this crawler take more than 400,000 steps to check one URL (http://a.example/x); they are too costly to use';
  const row = describeHost(
    facts(
      { robotsStatus: 'unusable', lastError: error, backoffUntil: NOW + 5000, errorCount: 1 },
      { queued: 3, dueAt: NOW + 5000 },
    ),
    NOW,
  );
  assert.equal(row.state, 'robots-unusable');
  assert.equal(
    row.stateText,
    `robots.txt unusable (${error}); nothing fetched until a later robots.txt gives usable rules, asked again at 12:00:05 UTC`,
  );
  assert.equal(row.robots.status, 'unusable');
  assert.equal(row.nextFetchAt, '2030-01-01T12:00:05.000Z');
  assert.equal(row.backoffUntil, '2030-01-01T12:00:05.000Z');
});

test("a host's request log keeps its last 100 requests, oldest first, as /api/domains/:host/requests shows them", () => {
  const ring = new RequestRing();
  const at = (i: number) => Date.UTC(2026, 0, 1) + i * 1000;
  for (let i = 0; i < 250; i++)
    ring.push({
      url: `https://a.example/${i}`,
      status: i % 10 === 0 ? null : 200,
      startedAt: at(i),
      durationMs: i,
      error: i % 10 === 0 ? 'timeout' : null,
    });
  const list = ring.list();
  assert.equal(list.length, 100);
  assert.deepEqual(list[0], {
    url: 'https://a.example/150',
    status: null,
    startedAt: new Date(at(150)).toISOString(),
    durationMs: 150,
    error: 'timeout',
  });
  assert.deepEqual(
    list.map((e) => e.durationMs),
    Array.from({ length: 100 }, (_, k) => 150 + k),
    'oldest first, the newest last',
  );
  const short = new RequestRing();
  short.push({ url: 'https://a.example/', status: 404, startedAt: at(0), durationMs: 5, error: null });
  assert.deepEqual(short.list(), [
    { url: 'https://a.example/', status: 404, startedAt: new Date(at(0)).toISOString(), durationMs: 5, error: null },
  ]);
});
