/**
 * The status header shows the crawler's current problem (e.g. a full disk) as an alert, in words,
 * and shows nothing of the kind when there is none. Rendered with React's server renderer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Status } from '../api.ts';
import { StatusHeader } from './status-header.tsx';

const status: Status = {
  pages: 120, indexed: 118, queued: 40, inFlight: 1, workers: 2, fetchRatePerMin: 300,
  crawler: 'running', searchReady: true, lastError: null,
  disk: { paused: false, reason: null, freeBytes: 5e10, dbBytes: 1e6, minFreeBytes: 1024 ** 3, maxDbBytes: 20 * 1024 ** 3, checkedAt: null },
};

test('a crawler problem is shown as an alert, in words', () => {
  const message = 'cannot write to the database in /data (SQLITE_FULL: database or disk is full): is the disk full or the file read-only?';
  const html = renderToStaticMarkup(createElement(StatusHeader, { status: { ...status, lastError: message } }));
  assert.match(html, /<p class="notice error crawler-error" role="alert"><strong>Crawler problem:<\/strong> /);
  assert.ok(html.includes('database or disk is full'), html);
});

test('no problem, no alert', () => {
  const html = renderToStaticMarkup(createElement(StatusHeader, { status }));
  assert.ok(!html.includes('role="alert"'), html);
  assert.ok(html.includes('Pages stored'), html);
});

test('a crawl paused for want of room says why, and what to do', () => {
  const reason = 'crawling is paused: only 512 MB free on the disk of /data (CRAWL_MIN_FREE_DISK is 1 GB): free some space, or lower CRAWL_MIN_FREE_DISK. ' +
    'Nothing new is queued or stored meanwhile; what is stored stays searchable, and the crawl resumes by itself once there is room';
  const html = renderToStaticMarkup(createElement(StatusHeader, { status: { ...status, disk: { ...status.disk, paused: true, reason } } }));
  assert.ok(html.includes('<p class="notice warn crawl-paused" role="status">Crawling is paused: only 512 MB free on the disk of /data'), html);
  assert.ok(!renderToStaticMarkup(createElement(StatusHeader, { status })).includes('crawl-paused'), 'not while there is room');
});
