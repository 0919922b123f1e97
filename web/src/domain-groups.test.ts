import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Domain } from './api.ts';
import { groupDomains, isSharedGroup } from './domain-groups.ts';

function domain(host: string, group: string, hosts: number): Domain {
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
    group: { name: group, hosts, inFlight: 0, lastFetchAt: null, nextFetchAt: null },
    backoffUntil: null,
    lastError: null,
    robots: { status: 'ok', httpStatus: 200, fetchedAt: null, crawlDelayMs: null },
  };
}

test("hosts of one group stay together, in the place of the group's first row", () => {
  const sorted = [
    domain('docs.python.org', 'python.org', 2),
    domain('alice.github.io', 'alice.github.io', 1),
    domain('www.python.org', 'python.org', 2),
    domain('127.0.0.5:8080', '127.0.0.5', 1),
  ];
  const groups = groupDomains(sorted);
  assert.deepEqual(
    groups.map((g) => [g.group.name, g.domains.map((d) => d.host)]),
    [
      ['python.org', ['docs.python.org', 'www.python.org']],
      ['alice.github.io', ['alice.github.io']],
      ['127.0.0.5', ['127.0.0.5:8080']],
    ],
  );
  assert.deepEqual(groups.map(isSharedGroup), [true, false, false]);
});
