/**
 * A neighbour site serving pages of 150,000 links each (4.4 MB, under the 5 MiB cap), and one worker
 * (CRAWL_WORKERS=1) fetches both it and a healthy site. A worker runs up to four fetches at once and
 * parsing is synchronous; the worker parses a page in slices and lets its other fetches run in between
 * (crawler/job-runner.ts), so the healthy site's crawl goes on while the big pages are read.
 *
 * Judged by the order of events, never by how long anything took, so a slow or busy machine decides
 * nothing. The worker notes in a file when each parse starts and ends (CRAWL_PARSE_TRACE), and the
 * healthy site reads that file when each request comes in and when it answers. The sites hold their
 * answers so that the scenario happens: the big pages are answered only once the healthy site's third
 * page request came in, and that request is answered only once a big page's parse has started. The
 * proof is two consecutive healthy requests around one parse: the site answered the first while the
 * parse was running, and the next came in while that same parse was still running. One request to a
 * host is in flight at a time, so the worker read that answer and sent the next request in the middle
 * of the parse: only a worker whose event loop turns during a parse can. A worker that parsed in one go
 * would read the answer after the parse ended, and its next request would find the parse over.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestWeb, generateSite, politenessReport, waitFor } from '../../test-support/test-web.ts';
import { heldSite } from '../../test-support/held-site.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { FETCH_DEFAULTS } from '../fetch/fetcher.ts';

const DELAY_MS = 50;
const HEALTHY_PAGES = 60;
const BIG_PAGES = 3;
const LINKS = 150_000;
/** The healthy site's page request whose answer waits for a big page's parse to start. */
const HELD_REQUEST = 3;

/** A page of `LINKS` links, different for each `n` (so no two parses are alike). */
function bigPage(n: number): string {
  return `<!doctype html><title>Big ${n}</title><p>${Array.from({ length: LINKS }, (_, i) => `<a href="/b${n}/${i}">${i}</a>`).join('\n')}</p>`;
}

/** The big pages whose parse has started and not yet ended, per the worker's trace file now. */
function bigParsesRunning(file: string): string[] {
  if (!existsSync(file)) return [];
  const running = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line) as { url: string; phase: 'start' | 'end' };
    if (!new URL(e.url).pathname.startsWith('/big')) continue;
    if (e.phase === 'start') running.add(e.url);
    else running.delete(e.url);
  }
  return [...running];
}

/** What the healthy site saw of the big parses for one of its page requests. */
interface HealthyRequest {
  n: number;
  path: string;
  /** Big parses running when the request came in. */
  atArrival: string[];
  /** Big parses running when the site answered it (undefined while held). */
  atAnswer?: string[];
}

test(`one worker, a neighbour serving pages of ${LINKS.toLocaleString('en-US')} links: the healthy site's crawl goes on during their parse`, {
  timeout: 180_000,
}, async () => {
  const pages = Object.fromEntries(Array.from({ length: BIG_PAGES }, (_, n) => [`/big${n}`, bigPage(n)]));
  for (const html of Object.values(pages))
    assert.ok(Buffer.byteLength(html) < FETCH_DEFAULTS.maxBodyBytes, 'each big page is read, not refused as too large');
  const traceDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-parse-trace-'));
  const traceFile = path.join(traceDir, 'parses.jsonl');

  // The healthy site's third page request came in: the big pages may be answered.
  let healthyUnderWay!: () => void;
  const healthyUnderWayP = new Promise<void>((resolve) => {
    healthyUnderWay = resolve;
  });
  const seen: HealthyRequest[] = [];
  let held: Promise<unknown> | undefined;
  const web = await startTestWeb([
    heldSite({ pages }, () => healthyUnderWayP),
    heldSite(generateSite({ pages: HEALTHY_PAGES, prefix: 'healthy' }), (pagePath, n) => {
      const request: HealthyRequest = { n, path: pagePath, atArrival: bigParsesRunning(traceFile) };
      seen.push(request);
      if (n !== HELD_REQUEST) {
        request.atAnswer = request.atArrival; // answered at once, right after this
        return undefined;
      }
      healthyUnderWay();
      // Answered once a big page's parse is running (the same reading of the file is what it is answered on).
      held = waitFor(() => bigParsesRunning(traceFile).length > 0 && bigParsesRunning(traceFile), {
        intervalMs: 5,
        timeoutMs: 120_000,
        message: 'a big page parse to start',
      }).then((running) => {
        request.atAnswer = running;
      });
      return held;
    }),
  ]);
  const [neighbour, healthy] = web.sites;
  // No pacing: the held answer's time would otherwise stretch the healthy site's delays fivefold (the
  // delay after a request is at least CRAWL_PACING_FACTOR times the site's recent response time).
  const crawler = startCrawler({
    CRAWL_WORKERS: '1',
    CRAWL_DELAY_MS: String(DELAY_MS),
    CRAWL_PACING_FACTOR: '0',
    CRAWL_PARSE_TRACE: traceFile,
  });
  try {
    for (let n = 0; n < BIG_PAGES; n++) crawler.addSeed(neighbour.url(`/big${n}`), { depth: 0 }); // the pages themselves, not their links
    crawler.addSeed(healthy.url('/'), { depth: 1 });
    await crawler.waitIdle({ origin: healthy.origin, minDone: HEALTHY_PAGES, timeoutMs: 120_000 });
    await crawler.waitIdle({ origin: neighbour.origin, minDone: BIG_PAGES, timeoutMs: 120_000 });
    await held; // its failure, if it failed, says why the held request was never answered

    const bigStored = crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE origin = ?').get(neighbour.origin) as {
      n: number;
    };
    assert.equal(bigStored.n, BIG_PAGES, 'every big page was parsed and stored');
    assert.equal(healthy.log.length, HEALTHY_PAGES + 1, 'robots.txt and every page of the healthy site');
    assert.deepEqual(politenessReport(healthy.log, DELAY_MS).violations, [], 'the healthy site was crawled politely');
    assert.deepEqual(bigParsesRunning(traceFile), [], 'every big parse that started also ended');

    // Consecutive healthy requests where one parse was running both when the first was answered and when
    // the next came in: the worker read an answer and sent a request in the middle of that parse.
    const across = seen.slice(1).flatMap((next, i) => {
      const answered = seen[i].atAnswer ?? [];
      return next.atArrival.filter((url) => answered.includes(url)).map((url) => `${seen[i].n}->${next.n} ${url}`);
    });
    const around = seen
      .filter((r) => r.atArrival.length > 0 || (r.atAnswer ?? []).length > 0)
      .map(
        (r) =>
          `#${r.n} came in during [${r.atArrival.map((u) => new URL(u).pathname)}], answered during [${(r.atAnswer ?? []).map((u) => new URL(u).pathname)}]`,
      );
    console.log(
      `# hostile-parse-hold: healthy requests sent in the middle of a big parse: ${across.length} (first: ${across.slice(0, 3).join('; ')})`,
    );
    assert.ok(
      across.length >= 1,
      `the healthy site's crawl went on while a big page was parsed: an answer given during a parse and the next request arriving during the same parse (what the healthy site saw: ${around.join('; ') || 'no request during any big parse'})`,
    );
  } finally {
    await crawler.close();
    await web.close();
    rmSync(traceDir, { recursive: true, force: true });
  }
});
