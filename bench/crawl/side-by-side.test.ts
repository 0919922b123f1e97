import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestRecord } from '../../test-support/test-web.ts';
import { crawlWindow, sideBySideRows, sideBySideSection, type SideRun } from './side-by-side.ts';

function rec(path: string, start: number, end: number): RequestRecord {
  return { method: 'GET', path, userAgent: 'x', status: 200, start, end, aborted: false, connection: 1 };
}

function run(over: Partial<SideRun>): SideRun {
  return {
    name: 'r',
    pages: 1500,
    expected: 1500,
    pageRequests: 1500,
    windowMs: 3000,
    crawlerCpuMs: 6000,
    testWebCpuMs: 1500,
    maxInFlightPerHost: 1,
    crawlerMaxInFlightPerHost: 1,
    crawlerMaxInFlight: 8,
    loadStart: 1,
    ...over,
  };
}

describe('crawlWindow', () => {
  test('the window runs from the first page request (robots.txt left out) to the last page crawled', () => {
    const hosts = [
      { host: 'a', log: [rec('/robots.txt', 0, 5), rec('/', 10, 20), rec('/p/1', 20, 30)] },
      { host: 'b', log: [rec('/', 15, 25), rec('/p/1', 22, 40)] },
    ];
    const w = crawlWindow(hosts, 100);
    assert.equal(w.pageRequests, 4);
    assert.equal(w.windowMs, 90);
    assert.equal(w.maxInFlightPerHost, 2, "b's two requests overlap");
    assert.equal(w.meanResponseMs, (10 + 10 + 10 + 18) / 4);
  });
});

describe('sideBySideRows', () => {
  test('rates, CPU per page and the ratios against Lantern', () => {
    const lantern = run({ name: 'Lantern', windowMs: 3000, crawlerCpuMs: 6000 }); // 500 pages/s, 4 ms
    const crawlee = run({ name: 'crawlee', windowMs: 7500, crawlerCpuMs: 15000, testWebCpuMs: 3000 }); // 200 pages/s, 10 ms
    const [l, c] = sideBySideRows(lantern, [crawlee]);
    assert.equal(l.pagesPerSec, 500);
    assert.equal(l.crawlerCpuMsPerPage, 4);
    assert.equal(l.speedRatio, 1);
    assert.equal(l.cpuRatio, 1);
    assert.equal(c.pagesPerSec, 200);
    assert.equal(c.crawlerCpuMsPerPage, 10);
    assert.equal(c.testWebCpuMsPerPage, 2);
    assert.equal(c.speedRatio, 2.5);
    assert.equal(c.cpuRatio, 2.5);
  });

  test('an incomplete run gets no rate and no speed ratio, and the table says so', () => {
    const rows = sideBySideRows(run({ name: 'Lantern' }), [run({ name: 'crawlee', pages: 1499 })]);
    assert.equal(rows[1].complete, false);
    assert.equal(rows[1].pagesPerSec, undefined);
    assert.equal(rows[1].speedRatio, undefined);
    const table = sideBySideSection(rows, 'note').join('\n');
    assert.match(table, /\| crawlee \| incomplete: 1499 of 1500 pages \|/);
    assert.match(table, /\| Lantern \| \*\*500\.0\*\* \| 4\.00 ms \| 1\.00 ms \| 1 \/ 1 \| 8 \| 1\.00× \| 1\.00× \|/);
  });

  test('CPU that could not be read leaves its figures n/a', () => {
    const rows = sideBySideRows(
      run({
        name: 'Lantern',
        crawlerCpuMs: undefined,
        crawlerMaxInFlightPerHost: undefined,
        crawlerMaxInFlight: undefined,
      }),
      [run({ name: 'crawlee' })],
    );
    assert.equal(rows[1].cpuRatio, undefined);
    assert.match(
      sideBySideSection(rows, '').join('\n'),
      /\| Lantern \| \*\*500\.0\*\* \| n\/a \| 1\.00 ms \| 1 \/ n\/a \| n\/a \|/,
    );
    assert.match(
      sideBySideSection(rows, '').join('\n'),
      /\| crawlee \| \*\*500\.0\*\* \| 4\.00 ms \| 1\.00 ms \| 1 \/ 1 \| 8 \| 1\.00× \| n\/a \|/,
    );
  });
});
