import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Domain } from './api.ts';
import { nextSort, sortDomains } from './domain-sort.ts';

function domain(host: string, extra: Partial<Domain> = {}): Domain {
  return {
    host,
    origin: `https://${host}`,
    state: 'idle',
    stateText: 'idle',
    queued: 0,
    fetched: 0,
    errors: 0,
    inFlight: 0,
    lastFetchAt: null,
    nextFetchAt: null,
    crawlDelayMs: 1000,
    delaySource: 'default',
    delayText: '1.0 s: the default delay',
    group: { name: host, hosts: 1, inFlight: 0, lastFetchAt: null, nextFetchAt: null },
    backoffUntil: null,
    lastError: null,
    robots: { status: 'ok', httpStatus: 200, fetchedAt: null, crawlDelayMs: null },
    ...extra,
  };
}

const hosts = (list: Domain[]): string[] => list.map((d) => d.host);

describe('sortDomains', () => {
  const list = [
    domain('c.example', { fetched: 5, state: 'crawling', lastFetchAt: '2025-01-01T00:00:05Z' }),
    domain('a.example', { fetched: 9, state: 'backoff' }),
    domain('b.example', { fetched: 5, state: 'waiting', lastFetchAt: '2025-01-01T00:00:09Z' }),
  ];

  test('sorts by host A–Z and Z–A', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'host', dir: 'asc' }, '')), ['a.example', 'b.example', 'c.example']);
    assert.deepEqual(hosts(sortDomains(list, { key: 'host', dir: 'desc' }, '')), ['c.example', 'b.example', 'a.example']);
  });
  test('ties fall back to the host name, so equal rows keep a stable order', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'fetched', dir: 'desc' }, '')), ['a.example', 'b.example', 'c.example']);
    assert.deepEqual(hosts(sortDomains(list, { key: 'fetched', dir: 'asc' }, '')), ['b.example', 'c.example', 'a.example']);
  });
  test('sorting by state puts busy hosts first', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'state', dir: 'asc' }, '')), ['c.example', 'b.example', 'a.example']);
  });
  test('hosts never fetched go last in both directions', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'lastFetch', dir: 'desc' }, '')), ['b.example', 'c.example', 'a.example']);
    assert.deepEqual(hosts(sortDomains(list, { key: 'lastFetch', dir: 'asc' }, '')), ['c.example', 'b.example', 'a.example']);
  });
  test('filters by a case-insensitive substring of the host', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'host', dir: 'asc' }, ' B.EX ')), ['b.example']);
  });
  test('does not reorder the array it was given', () => {
    sortDomains(list, { key: 'host', dir: 'asc' }, '');
    assert.deepEqual(hosts(list), ['c.example', 'a.example', 'b.example']);
  });
});

describe('nextSort', () => {
  test('a new column starts in its natural direction; the same column flips', () => {
    assert.deepEqual(nextSort({ key: 'host', dir: 'asc' }, 'errors'), { key: 'errors', dir: 'desc' });
    assert.deepEqual(nextSort({ key: 'errors', dir: 'desc' }, 'errors'), { key: 'errors', dir: 'asc' });
    assert.deepEqual(nextSort({ key: 'errors', dir: 'desc' }, 'host'), { key: 'host', dir: 'asc' });
  });
});
