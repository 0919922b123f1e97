/**
 * The status header on PostgreSQL says how many crawler nodes are alive and lists each with what it does, the
 * groups it holds and when it was last heard from; a node whose heartbeat stopped reads "silent since …"; while
 * PostgreSQL does not answer the nodes are "unknown"; on SQLite (no cluster) none of it shows. Node text is text.
 * Rendered with React's server renderer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import type { ClusterStatus, Status } from '../api.ts';
import { StatusHeader } from './status-header.tsx';
import { RUNNING_STATUS } from './status-fixture.ts';

const base: Status = RUNNING_STATUS;

const cluster: ClusterStatus = {
  answered: true,
  aliveWithinMs: 90_000,
  alive: 2,
  silent: 1,
  left: 1,
  nodes: [
    {
      node: 'node-a',
      state: 'alive',
      doing: 'crawling',
      groups: 12,
      startedAgoMs: 3_600_000,
      heartbeatAgoMs: 4_200,
      leftAgoMs: null,
    },
    {
      node: 'node-b',
      state: 'alive',
      doing: 'starting',
      groups: 1,
      startedAgoMs: 2_000,
      heartbeatAgoMs: 300,
      leftAgoMs: null,
    },
    {
      node: 'node-lost',
      state: 'silent',
      doing: 'crawling',
      groups: 0,
      startedAgoMs: 7_200_000,
      heartbeatAgoMs: 185_000,
      leftAgoMs: null,
    },
    {
      node: 'node-old',
      state: 'left',
      doing: 'left',
      groups: 0,
      startedAgoMs: 9_000_000,
      heartbeatAgoMs: 700_000,
      leftAgoMs: 600_000,
    },
  ],
};

const render = (status: Status) => renderToStaticMarkup(createElement(StatusHeader, { status }));
/** Each node's line as text, tags dropped. */
const lines = (html: string) =>
  [...html.matchAll(/<li class="node node-\w+" data-node="[^"]*">(.*?)<\/li>/g)].map((m) =>
    (m[1] ?? '').replace(/<[^>]+>/g, ''),
  );

test('on PostgreSQL: how many nodes are alive and silent, and each node on a line', () => {
  const html = render({ ...base, cluster });
  assert.match(
    html,
    /<dt>Crawler nodes<\/dt><dd>2<span class="unit"> alive<\/span><span class="unit silent-count" title="[^"]+">, 1 silent<\/span><\/dd>/,
  );
  assert.deepEqual(lines(html), [
    'alive node-a · crawling · 12 groups · heartbeat 4 s ago',
    'alive node-b · starting · 1 group · heartbeat a moment ago',
    'silent node-lost · last said crawling · 0 groups · silent since 3 min ago',
    'left node-old · 0 groups · left 10 min ago',
  ]);
  const silent = /<li class="node node-silent"[^>]*>.*?<\/li>/.exec(html)?.[0] ?? '';
  assert.match(silent, /title="Its heartbeat stopped: the node stopped, was killed, or lost the database\./, silent);
});

test('all alive: no silent count; more nodes than listed says how many more', () => {
  const html = render({
    ...base,
    cluster: { ...cluster, alive: 30, silent: 0, left: 0, nodes: cluster.nodes.slice(0, 2) },
  });
  assert.match(html, /<dt>Crawler nodes<\/dt><dd>30<span class="unit"> alive<\/span><\/dd>/);
  assert.ok(html.includes('28 more heard from in the last day, not listed'), html);
});

test('PostgreSQL not answering: the nodes are unknown, not none', () => {
  const html = render({ ...base, cluster: { ...cluster, answered: false, alive: 0, silent: 0, left: 0, nodes: [] } });
  assert.match(html, /<dt>Crawler nodes<\/dt><dd><span class="unit">unknown<\/span><\/dd>/);
  assert.ok(!html.includes('node-list'), html);
});

test('on SQLite (no cluster) nothing of the nodes shows', () => {
  const html = render(base);
  assert.ok(!html.includes('Crawler nodes') && !html.includes('node-list'), html);
});

test("a node's id and words are text, never HTML", () => {
  const hostile = '<img src=x onerror=alert(1)>';
  const html = render({
    ...base,
    cluster: { ...cluster, nodes: [{ ...cluster.nodes[0]!, node: hostile, doing: `<b>${hostile}</b>` }] },
  });
  assert.ok(!html.includes('<img') && !html.includes('<b>'), html);
  assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'), html);
});
