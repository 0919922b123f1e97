import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { DomainInfo as Domain } from '../crawler/common/protocol.ts';
import { queryDomains, sortDomains } from './domain-query.ts';

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

// Moved from web/src/domain-sort.test.ts with the sorting itself (the server sorts now), assertions unchanged.
describe('sortDomains', () => {
  const list = [
    domain('c.example', { fetched: 5, state: 'crawling', lastFetchAt: '2025-01-01T00:00:05Z' }),
    domain('a.example', { fetched: 9, state: 'backoff' }),
    domain('b.example', { fetched: 5, state: 'waiting', lastFetchAt: '2025-01-01T00:00:09Z' }),
  ];

  test('sorts by host A–Z and Z–A', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'host', dir: 'asc' }, '')), [
      'a.example',
      'b.example',
      'c.example',
    ]);
    assert.deepEqual(hosts(sortDomains(list, { key: 'host', dir: 'desc' }, '')), [
      'c.example',
      'b.example',
      'a.example',
    ]);
  });
  test('ties fall back to the host name, so equal rows keep a stable order', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'fetched', dir: 'desc' }, '')), [
      'a.example',
      'b.example',
      'c.example',
    ]);
    assert.deepEqual(hosts(sortDomains(list, { key: 'fetched', dir: 'asc' }, '')), [
      'b.example',
      'c.example',
      'a.example',
    ]);
  });
  test('sorting by state puts busy hosts first', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'state', dir: 'asc' }, '')), [
      'c.example',
      'b.example',
      'a.example',
    ]);
  });
  test('hosts never fetched go last in both directions', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'lastFetch', dir: 'desc' }, '')), [
      'b.example',
      'c.example',
      'a.example',
    ]);
    assert.deepEqual(hosts(sortDomains(list, { key: 'lastFetch', dir: 'asc' }, '')), [
      'c.example',
      'b.example',
      'a.example',
    ]);
  });
  test('filters by a case-insensitive substring of the host', () => {
    assert.deepEqual(hosts(sortDomains(list, { key: 'host', dir: 'asc' }, ' B.EX ')), ['b.example']);
  });
  test('does not reorder the array it was given', () => {
    sortDomains(list, { key: 'host', dir: 'asc' }, '');
    assert.deepEqual(hosts(list), ['c.example', 'a.example', 'b.example']);
  });
});

describe('queryDomains', () => {
  const states = ['crawling', 'waiting', 'idle', 'idle', 'failing'] as const;
  const all = Array.from({ length: 250 }, (_, i) =>
    domain(`h${String(i).padStart(3, '0')}.example${i % 2 === 0 ? '' : '.org'}`, {
      state: states[i % states.length],
      fetched: i,
    }),
  );
  const page = (q: Partial<Parameters<typeof queryDomains>[1]> = {}) =>
    queryDomains(all, { q: '', sort: 'host', dir: 'asc', limit: 100, offset: 0, ...q });

  test('one page of the sorted hosts, with how many match and how many there are', () => {
    const first = page();
    assert.equal(first.domains.length, 100);
    assert.deepEqual([first.total, first.hosts], [250, 250]);
    assert.equal(first.domains[0].host, 'h000.example');
    const last = page({ offset: 200 });
    assert.deepEqual([last.domains.length, last.domains.at(-1)!.host], [50, 'h249.example.org']);
    assert.deepEqual(page({ offset: 250 }).domains, [], 'past the end: an empty page, the totals still said');
  });

  test('the text filter and the state filter narrow the total; the state counts follow the text filter', () => {
    const org = page({ q: '.ORG' });
    assert.deepEqual([org.total, org.hosts], [125, 250]);
    assert.deepEqual(org.states, {
      crawling: 25,
      waiting: 25,
      backoff: 0,
      'robots-blocked': 0,
      'robots-unreachable': 0,
      'robots-unusable': 0,
      failing: 25,
      idle: 50,
    });
    const failing = page({ q: '.org', state: 'failing', sort: 'fetched', dir: 'desc', limit: 3 });
    assert.equal(failing.total, 25);
    assert.deepEqual(hosts(failing.domains), ['h249.example.org', 'h239.example.org', 'h229.example.org']);
  });
});
