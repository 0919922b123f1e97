/**
 * `npm run bench:domains`: what GET /api/domains and the Domains view cost with many hosts. The app is
 * real (server with every plugin, web build, Chromium at /usr/bin/chromium); its hosts are set on its
 * crawler link as a crawler snapshot sets them (test-support/many-hosts.ts).
 *
 * API: latency of one page (default, sorted, filtered by text, by state) over `--requests` requests, and
 * its bytes against the whole list (what every poll carried before paging). View: time from navigation
 * to the first page of rows, then over `--polls` polls the bytes per poll, the rows in the DOM and the
 * JS heap. Needs `npm run build` first. Options: --hosts N (5000), --requests N (200), --polls N (10),
 * --no-write leaves docs/benchmarks.md alone.
 */
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { machineInfo, writeSection } from '../crawl/benchmarks-doc.ts';
import { startAppWithHosts, syntheticHosts } from '../../test-support/many-hosts.ts';
import { queryDomains } from '../../server/domain-query.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DOC = path.join(HERE, '..', '..', 'docs', 'benchmarks.md');
const MARKERS = { start: '<!-- domains:start -->', end: '<!-- domains:end -->' } as const;

const { values } = parseArgs({
  options: {
    hosts: { type: 'string', default: '5000' },
    requests: { type: 'string', default: '200' },
    polls: { type: 'string', default: '10' },
    'no-write': { type: 'boolean', default: false },
  },
});
const HOSTS = Number(values.hosts);
const REQUESTS = Number(values.requests);
const POLLS = Number(values.polls);

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

async function main(): Promise<void> {
  const hosts = syntheticHosts(HOSTS);
  const app = await startAppWithHosts(hosts);
  const loadAtStart = os.loadavg()[0];
  const lines: string[] = [];
  try {
    // The pure query alone (sort + filter + page of 5,000 rows), then whole requests.
    const pure: number[] = [];
    for (let i = 0; i < REQUESTS; i++) {
      const t = performance.now();
      queryDomains(hosts, { q: '', sort: 'fetched', dir: 'desc', limit: 100, offset: 0 });
      pure.push(performance.now() - t);
    }
    pure.sort((a, b) => a - b);
    const all = JSON.stringify({ domains: hosts, now: new Date().toISOString() }).length;
    lines.push(`| query | p50 ms | p99 ms | bytes |`, `|---|---|---|---|`);
    lines.push(
      `| queryDomains alone (sort by fetched, ${HOSTS.toLocaleString('en-US')} rows) | ${quantile(pure, 0.5).toFixed(2)} | ${quantile(pure, 0.99).toFixed(2)} | — |`,
    );
    for (const [name, query] of [
      ['default page (100, by host)', ''],
      ['sorted by fetched, descending', '?sort=fetched&dir=desc'],
      ['text filter `h012`', '?q=h012'],
      ['state filter `failing`', '?state=failing'],
      ['page 50 of 50', '?offset=4900'],
    ] as const) {
      const times: number[] = [];
      let bytes = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const t = performance.now();
        const res = await fetch(`${app.baseURL}/api/domains${query}`);
        bytes = (await res.text()).length;
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      lines.push(
        `| GET /api/domains${query} — ${name} | ${quantile(times, 0.5).toFixed(1)} | ${quantile(times, 0.99).toFixed(1)} | ${kb(bytes)} |`,
      );
    }
    lines.push(`| the whole list, as every poll carried it before paging | — | — | ${kb(all)} |`);

    // The view in Chromium.
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      const polls: number[] = [];
      page.on('response', (response) => {
        if (!response.url().includes('/api/domains')) return;
        response.body().then(
          (b) => polls.push(b.length),
          () => undefined,
        ); // a poll the view cancelled has no body: not counted
      });
      const t = performance.now();
      await page.goto(`${app.baseURL}/domains`);
      await page.locator('tbody tr.expanded, tbody tr[role="row"]').nth(99).waitFor();
      const firstRows = performance.now() - t;
      const seen = polls.length;
      while (polls.length < seen + POLLS) await page.waitForTimeout(200); // polls come every second: wait for the count
      const dom = await page.evaluate(() => ({
        rows: document.querySelectorAll('tbody tr[role="row"]').length,
        nodes: document.getElementsByTagName('*').length,
        heap: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
      }));
      const perPoll = polls.slice(seen).sort((a, b) => a - b);
      lines.push(
        '',
        `| view | figure |`,
        `|---|---|`,
        `| navigation to 100 rows shown | ${firstRows.toFixed(0)} ms |`,
        `| bytes per poll (median of ${POLLS}, each 1 s) | ${kb(quantile(perPoll, 0.5))} (the whole list: ${kb(all)}) |`,
        `| table rows in the DOM | ${dom.rows} |`,
        `| DOM elements | ${dom.nodes.toLocaleString('en-US')} |`,
        `| JS heap used | ${(dom.heap / 1024 ** 2).toFixed(1)} MB |`,
      );
    } finally {
      await browser.close();
    }
  } finally {
    await app.close();
  }
  const m = machineInfo();
  const header = `### ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — ${m.cpu.split(' ').slice(0, 2).join(' ')}, ${m.cores} cores, ${m.ramGiB} GiB RAM, Node ${m.node}; load average ${loadAtStart.toFixed(1)} at start`;
  const body = [
    '## Domains with many hosts (`npm run bench:domains`)',
    '',
    `${HOSTS.toLocaleString('en-US')} hosts set on a real app's crawler link (test-support/many-hosts.ts); ${REQUESTS} requests per line, one at a`,
    'time over loopback; the view in Chromium. Before paging, every poll of the view carried every host and the browser kept',
    'a row for each; now the server filters, sorts and sends one page of 100, and the view polls only that page.',
    '',
    header,
    '',
    ...lines,
  ].join('\n');
  process.stdout.write(`${body}\n`);
  if (!values['no-write']) writeSection(DOC, MARKERS, body);
}

await main();
