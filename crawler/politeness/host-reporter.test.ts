/**
 * What the primary tells of its hosts (HostReporter) over a real Scheduler: each host's timeline as
 * /api/domains/:host/requests shows it, and its report's facts read from its row and clock, sent again
 * only when they changed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newHostRow, type HostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { HostReporter } from './host-reporter.ts';
import { Scheduler } from './scheduler.ts';

const DOCS = 'https://docs.site.example';
const WWW = 'https://www.site.example';
const NOW = Date.parse('2030-01-01T12:00:00Z');

test("a host's timeline keeps each request's URL, status, start, duration in whole ms and error, oldest first", () => {
  const reporter = new HostReporter(new Scheduler<CrawlJob>(100), new Map(), () => 0);
  reporter.logRequest(DOCS, `${DOCS}/a`, { status: 200, startedAt: NOW, endedAt: NOW + 12.6, error: null });
  const reset = { kind: 'retryable' as const, code: 'ECONNRESET', message: 'fetcher: connection reset' };
  reporter.logRequest(DOCS, `${DOCS}/b`, { status: null, startedAt: NOW + 500, endedAt: NOW + 505, error: reset });
  assert.deepEqual(reporter.requests(DOCS), [
    { url: `${DOCS}/a`, status: 200, startedAt: '2030-01-01T12:00:00.000Z', durationMs: 13, error: null },
    {
      url: `${DOCS}/b`,
      status: null,
      startedAt: '2030-01-01T12:00:00.500Z',
      durationMs: 5,
      error: 'fetcher: connection reset',
    },
  ]);
  assert.deepEqual(reporter.requests(WWW), [], 'a host without requests has an empty timeline');
});

test("every host's row reads its queue and skipped count; a snapshot sends a host again only when it changed", () => {
  const scheduler = new Scheduler<CrawlJob>(100);
  const rows = new Map<string, HostRow>([
    [WWW, { ...newHostRow(WWW, 'www.site.example'), robotsStatus: 'allow-all' }],
    [DOCS, { ...newHostRow(DOCS, 'docs.site.example'), robotsStatus: 'allow-all' }],
  ]);
  const reporter = new HostReporter(scheduler, rows, (origin) => (origin === DOCS ? 3 : 0));
  const beyond = (origin: string) => (origin === DOCS ? 7 : 0);

  const all = reporter.describeAll(NOW, beyond);
  assert.deepEqual(
    all.map((d) => [d.host, d.queued]),
    [
      ['docs.site.example', 7],
      ['www.site.example', 0],
    ],
    'sorted by host; URLs waiting beyond the scheduler count as queued',
  );

  const first = reporter.changedFacts(NOW, false, beyond);
  assert.deepEqual(
    first.hosts.map((f) => [f.row.host, f.robotsSkipped]),
    [
      ['www.site.example', 0],
      ['docs.site.example', 3],
    ],
  );
  assert.equal(first.queued, 7);
  assert.deepEqual(reporter.changedFacts(NOW, false, beyond).hosts, [], 'nothing changed: nothing sent');
  rows.get(WWW)!.fetchedCount++;
  assert.deepEqual(
    reporter.changedFacts(NOW, false, beyond).hosts.map((f) => [f.row.host, f.row.fetchedCount]),
    [['www.site.example', 1]],
  );
  assert.equal(reporter.changedFacts(NOW, true, beyond).hosts.length, 2, 'full: every host');
});
