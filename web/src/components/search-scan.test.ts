/**
 * Pure parts of the views: a page of results as the API dealt it, the crawler's word in the header, the
 * timeline's robots.txt 404, precise countdowns, a seed's phase. Rendered with React's server
 * renderer where it is markup.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { SearchResult, Seed, Status } from '../api.ts';
import { formatCountdownPrecise, urlParts } from '../format.ts';
import { statusClass } from '../timeline.ts';
import { ResultList } from './result-list.tsx';
import { seedPhase } from './seed-progress.tsx';
import { crawlerWord } from './status-header.tsx';
import { RUNNING_STATUS } from './status-fixture.ts';

const r = (host: string, n: number, moreFromSite = false): SearchResult => ({
  url: `http://${host}/p${n}`,
  title: `${host} ${n}`,
  host,
  snippet: [],
  score: 1,
  fetchedAt: '2026-12-01T10:00:00.000Z',
  stored: true,
  moreFromSite,
  missing: [],
  labels: [],
  fileType: 'html',
  page: null,
});

test('a page of results is shown whole, in order; "More from <host>" where more of a site waits', () => {
  const page = [r('a', 1), r('b', 1), r('a', 2, true), r('c', 1), r('b', 2)];
  const html = renderToStaticMarkup(
    createElement(ResultList, {
      results: page,
      start: 11,
      moreHref: (x) => `/?q=site:${x.host}`,
      storedHref: () => '/',
    }),
  );
  assert.match(html, /^<ol class="results" start="11">/);
  assert.equal((html.match(/<li /g) ?? []).length, 5, 'every result shown');
  assert.doesNotMatch(html, / hidden=/);
  assert.equal((html.match(/class="site-more">More from a</g) ?? []).length, 1);
  assert.equal((html.match(/More from this site/g) ?? []).length, 4);
  assert.equal(html.match(/class="result-host">a</g)?.length, 2, 'the host once per result');
});

test('a URL shows as its site and path, once', () => {
  assert.deepEqual(urlParts('https://www.docs.example.org/3/library/os.path.html'), {
    site: 'docs.example.org',
    path: '3 › library › os.path.html',
  });
  assert.deepEqual(urlParts('http://127.0.0.2:4000/'), { site: '127.0.0.2:4000', path: '' });
});

test('the header says idle when the crawler runs and no host has work', () => {
  const s: Status = { ...RUNNING_STATUS, pages: 5, indexed: 5, queued: 0, inFlight: 0, fetchRatePerMin: 0 };

  assert.deepEqual(crawlerWord(s), { word: 'idle', tone: 'idle' });
  assert.equal(crawlerWord({ ...s, queued: 3 }).word, 'running');
  assert.equal(crawlerWord({ ...s, crawler: 'stopped' }).word, 'stopped');
});

test('a robots.txt that is not there is no error on the timeline; a page 404 is', () => {
  const at = { startedAt: '2026-12-01T10:00:00.000Z', durationMs: 3, error: null };
  assert.equal(statusClass({ url: 'http://h/robots.txt', status: 404, ...at }), 'none');
  assert.equal(statusClass({ url: 'http://h/robots.txt', status: 429, ...at }), '4xx');
  assert.equal(statusClass({ url: 'http://h/missing', status: 404, ...at }), '4xx');
});

test('the next fetch in tenths of a second under 10 s', () => {
  const now = Date.parse('2026-12-01T10:00:00.000Z');
  assert.equal(formatCountdownPrecise('2026-12-01T10:00:00.180Z', now), 'in 0.2 s');
  assert.equal(formatCountdownPrecise('2026-12-01T10:00:03.000Z', now), 'in 3.0 s');
  assert.equal(formatCountdownPrecise('2026-12-01T10:00:40.000Z', now), 'in 40 s');
  assert.equal(formatCountdownPrecise('2026-12-01T09:59:59.000Z', now), 'due now');
});

test('a seed is starting, crawling, then done', () => {
  const seed: Seed = {
    id: 1,
    url: 'http://a/',
    host: 'a',
    depth: 1,
    scope: 'host',
    createdAt: '2026-12-01T10:00:00.000Z',
    found: 0,
    fetched: 0,
    queued: 0,
    failed: 0,
    lastCrawledAt: null,
    nextCrawlAt: null,
    doneAt: null,
    title: null,
    folder: null,
    labels: [],
    hosts: 1,
    maxHosts: 1000,
    hostsRefused: 0,
    lastRefusedHost: null,
    state: 'crawling',
    failure: null,
  };
  assert.equal(seedPhase(seed), 'starting');
  assert.equal(seedPhase({ ...seed, found: 5, fetched: 2, queued: 3 }), 'crawling');
  assert.equal(seedPhase({ ...seed, found: 5, fetched: 5, queued: 0, doneAt: '2026-12-01T10:05:00.000Z' }), 'done');
});
