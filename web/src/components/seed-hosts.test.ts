/**
 * A seed's hosts in the Seeds table: a plain count, or, once links to further hosts were left out
 * (CRAWL_MAX_HOSTS_PER_SEED), the count marked and a note saying how many and an example host, isolated.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Seed } from '../api.ts';
import { SeedHosts } from './seed-hosts.tsx';

const seed: Seed = {
  id: 1,
  url: 'https://wild.example.org/',
  host: 'wild.example.org',
  depth: 2,
  scope: 'domain',
  createdAt: '2026-01-01T00:00:00.000Z',
  found: 10,
  fetched: 9,
  queued: 0,
  failed: 0,
  lastCrawledAt: null,
  nextCrawlAt: null,
  doneAt: null,
  title: null,
  folder: null,
  labels: [],
  hosts: 3,
  maxHosts: 1000,
  hostsRefused: 0,
  lastRefusedHost: null,
  state: 'done',
  failure: null,
};

test('within the limit: the count alone', () => {
  assert.equal(renderToStaticMarkup(createElement(SeedHosts, { seed })), '3');
});

test('at the limit: how many links were left out, and a host they led to, isolated from the sentence', () => {
  const html = renderToStaticMarkup(
    createElement(SeedHosts, {
      seed: { ...seed, hosts: 1000, hostsRefused: 4123, lastRefusedHost: 'a1001.wild.example.org' },
    }),
  );
  assert.ok(html.startsWith('<span class="warn-text">1,000</span>'), html);
  assert.ok(
    html.includes(
      'the limit: 4,123 links to further hosts not followed, e.g. <bdi class="crawled-text">a1001.wild.example.org</bdi>',
    ),
    html,
  );
  assert.ok(html.includes('title="CRAWL_MAX_HOSTS_PER_SEED is 1000"'), html);
});
