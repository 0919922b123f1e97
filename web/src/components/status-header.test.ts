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
import { RUNNING_STATUS } from './status-fixture.ts';

const status: Status = RUNNING_STATUS;

test('a crawler problem is shown as an alert, in words', () => {
  const message =
    'cannot write to the database in /data (SQLITE_FULL: database or disk is full): is the disk full or the file read-only?';
  const html = renderToStaticMarkup(createElement(StatusHeader, { status: { ...status, lastError: message } }));
  assert.match(html, /<p class="notice error crawler-error" role="alert"><strong>Crawler problem:<\/strong> /);
  assert.ok(html.includes('database or disk is full'), html);
});

test('a running crawler without workers says it is idle; with workers, or stopped, only the number', () => {
  const idle = renderToStaticMarkup(
    createElement(StatusHeader, { status: { ...status, queued: 0, inFlight: 0, workers: 0 } }),
  );
  assert.match(idle, /<dt>Workers alive<\/dt><dd>0<span class="unit" title="[^"]*"> \(idle\)<\/span><\/dd>/);
  assert.ok(!idle.includes('role="alert"'), 'no problem is reported');
  const busy = renderToStaticMarkup(createElement(StatusHeader, { status }));
  assert.match(busy, /<dt>Workers alive<\/dt><dd>2<\/dd>/);
  const stopped = renderToStaticMarkup(
    createElement(StatusHeader, { status: { ...status, workers: 0, crawler: 'stopped' } }),
  );
  assert.match(stopped, /<dt>Workers alive<\/dt><dd>0<\/dd>/);
});

test('no problem, no alert', () => {
  const html = renderToStaticMarkup(createElement(StatusHeader, { status }));
  assert.ok(!html.includes('role="alert"'), html);
  assert.ok(html.includes('Pages stored'), html);
});

test('a crawl paused for want of room says why, and what to do', () => {
  const reason =
    'crawling is paused: only 512 MB free on the disk of /data (CRAWL_MIN_FREE_DISK is 1 GB): free some space, or lower CRAWL_MIN_FREE_DISK. ' +
    'Nothing new is queued or stored meanwhile; what is stored stays searchable, and the crawl resumes by itself once there is room';
  const html = renderToStaticMarkup(
    createElement(StatusHeader, { status: { ...status, disk: { ...status.disk, paused: true, reason } } }),
  );
  assert.ok(
    html.includes(
      '<p class="notice warn crawl-paused" role="status">Crawling is paused: only 512 MB free on the disk of /data',
    ),
    html,
  );
  assert.ok(
    !renderToStaticMarkup(createElement(StatusHeader, { status })).includes('crawl-paused'),
    'not while there is room',
  );
});

test('PostgreSQL out of reach is shown as the disk pause is, with its time, once; gone on recovery', () => {
  const message =
    "database unreachable since 2026-12-07T03:00:00Z: PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432). The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy.";
  const down: Status = {
    ...status,
    lastError: message,
    storage: {
      engine: 'postgres',
      reachable: false,
      writable: false,
      since: '2026-12-07T03:00:00.000Z',
      reason:
        'PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer (ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432)',
      effect:
        "The crawl is paused; what was fetched is kept and stored when it answers again; search answers from this server's copy.",
      action:
        'start PostgreSQL, or check DATABASE_URL and the network to it; Lantern carries on by itself when it answers',
      message,
      seenBy: 'crawler',
    },
  };
  const html = renderToStaticMarkup(createElement(StatusHeader, { status: down }));
  const clock = new Intl.DateTimeFormat('en', {
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hour12: false,
  }).format(new Date('2026-12-07T03:00:00.000Z'));
  assert.ok(
    html.includes(
      `<p class="notice warn storage-outage" role="status"><strong>Database unreachable</strong> since <time dateTime="2026-12-07T03:00:00.000Z"`,
    ),
    html,
  );
  assert.ok(
    html.includes(`>${clock}</time>: PostgreSQL at lantern@127.0.0.1:5432/lantern does not answer (ECONNREFUSED`),
    html,
  );
  assert.ok(
    html.includes('search answers from this server&#x27;s copy. Start PostgreSQL, or check DATABASE_URL'),
    html,
  );
  assert.ok(!html.includes('role="alert"'), 'the same words are not repeated as an alarm');

  const back = renderToStaticMarkup(createElement(StatusHeader, { status: { ...status, storage: null } }));
  assert.ok(!back.includes('storage-outage') && !back.includes('Database unreachable'), back);
});

test('a full SQLite disk is shown the same way, in its own words', () => {
  const message =
    'cannot write to the database in /data (SQLITE_FULL: database or disk is full): is the disk full or the file read-only? The crawl is paused; what was fetched is kept and stored as soon as the database takes writes again';
  const html = renderToStaticMarkup(
    createElement(StatusHeader, {
      status: {
        ...status,
        lastError: message,
        storage: {
          engine: 'sqlite',
          reachable: true,
          writable: false,
          since: '2026-12-07T03:00:00.000Z',
          reason:
            'cannot write to the database in /data (SQLITE_FULL: database or disk is full): is the disk full or the file read-only?',
          effect: 'The crawl is paused; what was fetched is kept and stored as soon as the database takes writes again',
          action: 'free some space on the disk of /data, or make its files writable; Lantern carries on by itself',
          message,
          seenBy: 'crawler',
        },
      },
    }),
  );
  assert.ok(html.includes('<strong>Database refuses writes</strong> since <time'), html);
  assert.ok(
    html.includes(
      'Cannot write to the database in /data (SQLITE_FULL: database or disk is full): is the disk full or the file read-only? The crawl is paused;',
    ),
    html,
  );
  assert.ok(html.includes('takes writes again. Free some space on the disk of /data'), html);
});

test('a crawler waiting for disk room or for its database says "paused", not "running"', () => {
  const badge = (s: Status) =>
    /<span class="badge crawler crawler-(\w+)">.*?<\/span>(\w+)<\/span>/.exec(
      renderToStaticMarkup(createElement(StatusHeader, { status: s })),
    );
  assert.deepEqual(badge(status)?.slice(1), ['running', 'running']);
  const full = { ...status, disk: { ...status.disk, paused: true, reason: 'free disk space below 1 GiB' } };
  assert.deepEqual(badge(full)?.slice(1), ['paused', 'paused']);
  const outage: Status = {
    ...status,
    storage: {
      engine: 'postgres',
      reachable: false,
      writable: false,
      since: '2026-12-07T03:00:00.000Z',
      reason: 'PostgreSQL does not answer',
      effect: 'the crawl is paused',
      action: 'start PostgreSQL',
      message: 'database unreachable',
      seenBy: 'crawler',
    },
  };
  assert.deepEqual(badge(outage)?.slice(1), ['paused', 'paused']);
  assert.deepEqual(badge({ ...full, crawler: 'stopped' })?.slice(1), ['stopped', 'stopped']);
});
