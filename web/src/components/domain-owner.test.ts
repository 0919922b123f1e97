/**
 * Domains on PostgreSQL: an Owner column gives each host the crawler node that holds its politeness group and
 * since when ("—" for a group nobody holds, "unknown" while PostgreSQL does not answer, an expired lease said so),
 * and a shared group's row names its owner once; on SQLite (no `owners`) the column is not there. Node ids are
 * text. Rendered with React's server renderer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { Domain, DomainsResponse } from '../api.ts';
import { DomainTable } from './domain-table.tsx';

const NOW = Date.UTC(2026, 11, 7, 9, 0, 0);

/** docs.python.org and www.python.org share python.org, held by node-a; example.org expired; free.test free. */
function rows(): Domain[] {
  const names: Array<[string, string, Domain['lease']]> = [
    ['docs.python.org', 'python.org', { node: 'node-a', heldForMs: 300_000, expiresInMs: 60_000 }],
    ['example.org', 'example.org', { node: 'node-b', heldForMs: 120_000, expiresInMs: -3_000 }],
    ['free.test', 'free.test', null],
    ['www.python.org', 'python.org', { node: 'node-a', heldForMs: 300_000, expiresInMs: 60_000 }],
  ];
  return names.map(([host, group, lease]) => ({
    host,
    origin: `https://${host}`,
    state: 'waiting',
    stateText: 'waiting',
    queued: 3,
    fetched: 10,
    errors: 0,
    inFlight: 0,
    lastFetchAt: new Date(NOW - 5_000).toISOString(),
    nextFetchAt: new Date(NOW + 1_000).toISOString(),
    crawlDelayMs: 1000,
    delaySource: 'default',
    delayText: '1.0 s: the default delay',
    group: { name: group, hosts: group === 'python.org' ? 2 : 1, inFlight: 0, lastFetchAt: null, nextFetchAt: null },
    backoffUntil: null,
    lastError: null,
    robots: { status: 'ok', httpStatus: 200, fetchedAt: null, crawlDelayMs: null },
    lease,
  }));
}

const render = (domains: Domain[], owners: DomainsResponse['owners']) =>
  renderToStaticMarkup(
    createElement(DomainTable, {
      domains,
      sort: { key: 'host', dir: 'asc' },
      onSort: () => undefined,
      expanded: new Set<string>(),
      onToggle: () => undefined,
      now: NOW,
      owners,
    }),
  );

/** Each host's Owner cell as text, tags dropped. */
const owners = (html: string) =>
  Object.fromEntries(
    [
      ...html.matchAll(
        /<tr role="row"[^>]*>.*?<\/span>([a-z.]+)<\/button>.*?<td role="cell" class="owner-cell" data-label="Owner">(.*?)<\/td><\/tr>/g,
      ),
    ].map((m) => [
      m[1],
      (m[2] ?? '')
        .replace(/<[^>]+>/g, ' ')
        .replace(/\s+/g, ' ')
        .trim(),
    ]),
  );

test('on PostgreSQL each host shows the node that holds its group and since when', () => {
  const html = render(rows(), 'known');
  assert.match(
    html,
    /<th scope="col" role="columnheader" title="[^"]*"><span class="column-label">Owner<\/span><\/th><\/tr><\/thead>/,
  );
  assert.deepEqual(owners(html), {
    'docs.python.org': 'node-a since 5 min ago',
    'www.python.org': 'node-a since 5 min ago',
    'example.org': 'node-b lease expired 3 s ago',
    'free.test': '—',
  });
  assert.match(html, /data-group="python.org"><td role="cell" colSpan="10">/, 'the group row spans the new column');
  assert.match(
    html,
    /held by <bdi class="owner-node">node-a<\/bdi> \(since 5 min ago\)/,
    'the shared group names its owner',
  );
});

test('PostgreSQL not answering: every owner is unknown', () => {
  const unknown = rows().map((d) => ({ ...d, lease: null }));
  assert.deepEqual(Object.values(owners(render(unknown, 'unknown'))), ['unknown', 'unknown', 'unknown', 'unknown']);
});

test('on SQLite there is no Owner column', () => {
  const sqlite = rows().map(({ lease: _lease, ...d }) => d);
  const html = render(sqlite, undefined);
  assert.ok(!html.includes('Owner') && !html.includes('owner-cell') && !html.includes('held by'), html);
  assert.match(html, /data-group="python.org"><td role="cell" colSpan="9">/);
});

test("an owner node's id is text, never HTML", () => {
  const hostile = rows().map((d) => ({
    ...d,
    lease: d.lease === null ? null : { ...d.lease!, node: '<img src=x onerror=alert(1)>' },
  }));
  const html = render(hostile, 'known');
  assert.ok(!html.includes('<img'), html);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), html);
});
