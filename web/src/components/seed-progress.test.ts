import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Seed } from '../api.ts';
import { SeedProgress, seedPhase } from './seed-progress.tsx';

const seed: Seed = {
  id: 1,
  url: 'https://example.org/big.pdf',
  host: 'example.org',
  depth: 0,
  scope: 'host',
  createdAt: '2026-12-01T10:00:00.000Z',
  found: 1,
  fetched: 0,
  queued: 0,
  failed: 1,
  lastCrawledAt: '2026-12-01T10:00:01.000Z',
  nextCrawlAt: null,
  doneAt: '2026-12-01T10:00:01.000Z',
  title: null,
  folder: null,
  labels: [],
  hosts: 1,
  maxHosts: 1000,
  hostsRefused: 0,
  lastRefusedHost: null,
  state: 'failed',
  failure: 'fetcher: example.org announced a body of 6.2 MiB (Content-Length), over the 5 MiB limit',
};

test('a seed whose own page failed reads "failed" with the reason, never "done"', () => {
  assert.equal(seedPhase(seed), 'failed');
  const html = renderToStaticMarkup(createElement(SeedProgress, { seed }));
  assert.match(html, /0 fetched of 1 found · <span class="seed-phase">failed<\/span>/);
  assert.match(html, /over the 5 MiB limit/);
  assert.doesNotMatch(html, /done/);
});

test('a done seed with a failed link says how many failed beside "done at"', () => {
  const done: Seed = { ...seed, state: 'done', failure: null, found: 3, fetched: 2 };
  assert.equal(seedPhase(done), 'done');
  assert.match(renderToStaticMarkup(createElement(SeedProgress, { seed: done })), /done at .* · 1 failed/);
});
