/**
 * Hostile redirects: loops (two URLs, a URL to itself, a loop found from either end), a chain of 10,
 * redirects to file: and other schemes through the real cluster; a redirect to a private address with
 * CRAWL_ALLOW_PRIVATE=0 through the Coordinator itself (no public test site can exist on loopback).
 * Meanwhile a normal site in the same crawl is crawled in full and politely alongside the chain, no
 * worker dies and the workers' memory stays bounded. Judged from the sites' own request logs, the crawler's SQLite file and its
 * host snapshot.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  startTestWeb,
  generateSite,
  politenessReport,
  waitFor,
  type PageSpec,
  type RequestRecord,
  type TestSite,
  type TestWeb,
} from '../../test-support/test-web.ts';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { crawlWorkerPids, htmlPage, moved, storedPage } from '../../test-support/hostile-pages.ts';
import { sampleMemory, type MemorySampler } from '../../test-support/memory-sampler.ts';
import { openDatabase } from '../../db/open.ts';
import { seedQueries } from '../../db/seeds.ts';
import { loadConfig } from '../../shared/config.ts';
import { Coordinator, MAX_REDIRECTS } from '../coordination/coordinator.ts';
import type { FetchResult } from '../common/protocol.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';

const DELAY_MS = 50;
const NORMAL_PAGES = 8;
const RSS_BOUND_MiB = 250;

/** Requests that came closer than DELAY_MS after the previous one ended, for a readable failure. */
function gaps(log: RequestRecord[]): string[] {
  return politenessReport(log, DELAY_MS).violations.map(
    (v) => `${v.prev.path} → ${v.next.path}: ${v.gapMs.toFixed(1)} ms`,
  );
}
const CHAIN = 10;

describe('hostile redirects through the real cluster', () => {
  let web: TestWeb;
  let crawler: CrawlerHarness;
  let loops: TestSite;
  let chain: TestSite;
  let schemes: TestSite;
  let normal: TestSite;
  let workersAtStart: number[];
  let memory: MemorySampler;

  before(async () => {
    const chainPages: Record<string, string | PageSpec> = { [`/r${CHAIN}`]: htmlPage('End of the chain') };
    for (let i = 0; i < CHAIN; i++) chainPages[`/r${i}`] = moved(`/r${i + 1}`);
    web = await startTestWeb([
      {
        pages: {
          '/': htmlPage('Loops', ['/x', '/self', '/p', '/q', '/old', '/c']),
          '/x': moved('/y'),
          '/y': moved('/x'), // found from /x: /y closes the loop
          '/self': moved('/self'),
          '/p': moved('/q'),
          '/q': moved('/p'), // both linked: /q is already known when /p redirects to it
          '/old': moved('/c'),
          '/c': htmlPage('C'), // a redirect to a known URL that is no loop
        },
      },
      { pages: chainPages },
      {
        pages: {
          '/': htmlPage('Schemes', ['/file', '/file-odd', '/js', '/ok']),
          '/file': moved('file:///etc/passwd'),
          '/file-odd': moved('FILE://localhost/etc/shadow'),
          '/js': moved('javascript:alert(1)'),
          '/ok': htmlPage('OK'),
        },
      },
      generateSite({ pages: NORMAL_PAGES, prefix: 'normal' }),
    ]);
    [loops, chain, schemes, normal] = web.sites;
    crawler = startCrawler({ CRAWL_WORKERS: '2', CRAWL_DELAY_MS: String(DELAY_MS) });
    crawler.addSeed(loops.url('/'), { depth: 1 });
    crawler.addSeed(chain.url('/r0'), { depth: 1 });
    crawler.addSeed(schemes.url('/'), { depth: 1 });
    crawler.addSeed(normal.url('/'), { depth: 2 });
    // Workers start with the first due job (worker-lifecycle.ts); memory is sampled from then on (VmHWM keeps any earlier peak).
    workersAtStart = await waitFor(() => crawlWorkerPids(crawler).length === 2 && crawlWorkerPids(crawler), {
      timeoutMs: 30_000,
      message: 'two workers',
    });
    memory = sampleMemory(() => crawlWorkerPids(crawler));
  });

  after(async () => {
    memory?.stop();
    await crawler?.close();
    await web?.close();
  });

  test('meanwhile: the normal site is crawled completely and politely, alongside the redirect chain', async () => {
    await crawler.waitIdle({ origin: normal.origin, minDone: NORMAL_PAGES, timeoutMs: 30_000 });
    assert.equal(
      (crawler.db.prepare('SELECT COUNT(*) AS n FROM pages WHERE origin = ?').get(normal.origin) as { n: number }).n,
      NORMAL_PAGES,
    );
    assert.deepEqual(gaps(normal.log), []);
    // The chain's hops come one by one on its host's clock; the normal site did not wait for them to end.
    await crawler.waitIdle({ origin: chain.origin, minDone: MAX_REDIRECTS + 1, timeoutMs: 30_000 });
    const hops = chain.log.filter((r) => r.path !== '/robots.txt');
    const [first, last] = [hops[0].start, hops[hops.length - 1].start];
    const during = normal.log.filter((r) => r.start > first && r.start < last);
    assert.ok(
      during.length >= 2,
      `the normal site was crawled while the chain was followed (${during.length} requests meanwhile)`,
    );
    const starts = normal.log.map((r) => r.start).sort((a, b) => a - b);
    const maxGap = Math.max(...starts.slice(1).map((t, i) => t - starts[i]));
    console.log(`# hostile-redirects: largest gap between two requests to the normal site ${Math.round(maxGap)} ms`);
    // The largest gap is a figure, not a verdict (a loaded machine stretches every gap): that the normal site
    // went on alongside the chain is proved above by the order of events (its requests between the chain's hops).
  });

  test('loops end after one request per URL; every URL of a loop fails with "redirect loop" naming the loop', async () => {
    await crawler.waitIdle({ origin: loops.origin, minDone: 8, timeoutMs: 30_000 });
    const requested = loops.log.map((r) => r.path).filter((p) => p !== '/robots.txt' && p !== '/');
    assert.deepEqual(
      [...requested].sort(),
      ['/c', '/old', '/p', '/q', '/self', '/x', '/y'],
      'each URL requested exactly once',
    );
    for (const [p, loop] of [
      ['/y', ['/y', '/x', '/y']],
      ['/x', ['/y', '/x', '/y']],
      ['/self', ['/self', '/self']],
      ['/q', ['/q', '/p', '/q']],
      ['/p', ['/q', '/p', '/q']],
    ] as const) {
      const row = crawler.frontier(loops.url(p));
      assert.equal(row?.state, 'failed', `${p} failed`);
      assert.equal(row?.lastError, `redirect loop: ${loop.map((u) => loops.url(u)).join(' → ')}`, p);
    }
    const old = crawler.frontier(loops.url('/old'));
    assert.equal(old?.state, 'done', 'a redirect to a known URL that does not lead back is no loop');
    assert.equal(old?.lastError, `redirects to ${loops.url('/c')} (already known)`);
    assert.equal(storedPage(crawler, loops.url('/c'))?.title, 'C');
    // The host row says it in words, and counts one error per loop found.
    await waitFor(
      () => {
        const d = crawler.domain(loops.host);
        return d?.lastError?.startsWith('redirect loop: ') && d.errors === 3 && d;
      },
      { timeoutMs: 5_000, message: 'the host row to say "redirect loop" with 3 errors' },
    );
  });

  test(`a chain of ${CHAIN}: ${MAX_REDIRECTS} hops followed, then 'too many redirects'; the rest never requested`, async () => {
    await crawler.waitIdle({ origin: chain.origin, minDone: MAX_REDIRECTS + 1, timeoutMs: 30_000 });
    assert.deepEqual(
      chain.log.map((r) => r.path),
      ['/robots.txt', ...Array.from({ length: MAX_REDIRECTS + 1 }, (_, i) => `/r${i}`)],
    );
    const last = crawler.frontier(chain.url(`/r${MAX_REDIRECTS}`));
    assert.equal(last?.state, 'failed');
    assert.equal(last?.lastError, `too many redirects (more than ${MAX_REDIRECTS})`);
    assert.equal(last?.redirects, MAX_REDIRECTS);
    assert.equal(crawler.frontier(chain.url(`/r${MAX_REDIRECTS + 1}`)), undefined, 'the next hop is not even queued');
    assert.deepEqual(gaps(chain.log), []);
    const row = await waitFor(
      () => crawler.domain(chain.host)?.lastError?.includes('too many redirects') && crawler.domain(chain.host),
      { timeoutMs: 5_000, message: 'host row' },
    );
    assert.match(row.lastError ?? '', new RegExp(`/r${MAX_REDIRECTS}: too many redirects`));
  });

  test('redirects to file:, FILE: and javascript: are refused (unsupported scheme) with CRAWL_ALLOW_PRIVATE=1; nothing is read', async () => {
    await crawler.waitIdle({ origin: schemes.origin, minDone: 5, timeoutMs: 30_000 });
    assert.deepEqual(
      schemes.log
        .map((r) => r.path)
        .slice(2)
        .sort(),
      ['/file', '/file-odd', '/js', '/ok'],
    );
    const expectations: Array<[string, string]> = [
      [
        '/file',
        'redirect refused: url: "file:///etc/passwd" uses the file: scheme; Lantern crawls only http and https URLs',
      ],
      [
        '/file-odd',
        'redirect refused: url: "FILE://localhost/etc/shadow" uses the file: scheme; Lantern crawls only http and https URLs',
      ],
      [
        '/js',
        'redirect refused: url: "javascript:alert(1)" uses the javascript: scheme; Lantern crawls only http and https URLs',
      ],
    ];
    for (const [p, error] of expectations) {
      const row = crawler.frontier(schemes.url(p));
      assert.equal(row?.state, 'failed', p);
      assert.equal(row?.lastError, error);
    }
    const urls = crawler.db.prepare(`SELECT url FROM frontier WHERE url NOT LIKE 'http%'`).all();
    assert.deepEqual(urls, [], 'no non-http URL ever entered the frontier');
    assert.equal(storedPage(crawler, schemes.url('/ok'))?.title, 'OK');
  });

  test('the crawl never stopped: the same workers, the primary running, memory bounded', async () => {
    assert.deepEqual(crawlWorkerPids(crawler), workersAtStart, 'the same two workers as at the start');
    assert.equal(crawler.primary.exitCode, null, 'the primary is running');
    const mem = memory.stop();
    console.log(
      `# hostile-redirects: peak worker RSS ${mem.peakRssMiB} MiB (VmHWM ${mem.peakHwmMiB} MiB) over ${mem.samples} samples`,
    );
    assert.ok(mem.samples > 3);
    assert.ok(
      mem.peakHwmMiB < RSS_BOUND_MiB,
      `peak worker memory ${mem.peakHwmMiB} MiB stays under ${RSS_BOUND_MiB} MiB`,
    );
  });
});

describe('a redirect to a private address with CRAWL_ALLOW_PRIVATE=0, judged by the Coordinator', () => {
  const targets = [
    ['http://10.0.0.7/admin', /10\.0\.0\.7 is a private-network address/],
    ['http://169.254.169.254/latest/meta-data/', /cloud metadata address/],
    ['http://127.0.0.1:3000/api/seeds', /loopback address/],
    ['http://[::ffff:192.168.1.1]/', /private-network address \(IPv4-mapped\)/],
    ['http://localhost/', /loopback host name/],
  ] as const;
  let dir: string;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-admission-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('even when a worker hands it over as a usable Location, the URL fails with a clear error and the target is never queued', async () => {
    const db = openDatabase(dir);
    try {
      const config = loadConfig({ DATA_DIR: dir, CRAWL_ALLOW_PRIVATE: '0', CRAWL_DELAY_MS: '0' });
      const seeds = seedQueries(db);
      targets.forEach((_, i) => {
        seeds.upsertSeed(
          { url: `https://site${i}.example/`, origin: `https://site${i}.example`, depth: 2, scope: 'any' },
          1000,
        );
      });
      const coordinator = new Coordinator(sqliteCrawlStore(db), config, 'test-run');
      let t = 10_000;
      await coordinator.start(t);
      const answer = (jobId: number, part: Partial<FetchResult>): void =>
        coordinator.onResult(
          {
            jobId,
            startedAt: t,
            endedAt: t + 1,
            status: null,
            contentType: null,
            etag: null,
            lastModified: null,
            retryAfterMs: null,
            location: null,
            locationRefusal: null,
            robotsBody: null,
            page: null,
            error: null,
            ...part,
          },
          t + 1,
        );
      // Each host: robots.txt (404: allow all), then its seed answers 301 to a private address.
      for (let round = 0; round < 3; round++) {
        for (let job = coordinator.dispatch(t); job; job = coordinator.dispatch(t)) {
          if (job.kind === 'robots') answer(job.jobId, { status: 404 });
          else answer(job.jobId, { status: 301, location: targets[Number(/site(\d+)/.exec(job.url)![1])][0] });
        }
        await coordinator.flush(t);
        t += 1000;
      }
      targets.forEach(([target, kind], i) => {
        const row = db
          .prepare('SELECT state, last_error AS lastError FROM frontier WHERE url = ?')
          .get(`https://site${i}.example/`) as { state: string; lastError: string };
        assert.equal(row.state, 'failed', target);
        assert.match(row.lastError, /^redirect refused: url: /);
        assert.match(row.lastError, kind);
        assert.match(row.lastError, /CRAWL_ALLOW_PRIVATE=1/);
      });
      const queued = db.prepare(`SELECT url FROM frontier WHERE url NOT LIKE 'https://site%'`).all();
      assert.deepEqual(queued, [], 'no private target entered the frontier');
      const domains = coordinator.snapshot(t, 0).domains;
      assert.equal(domains.length, targets.length, 'no host row for any private target');
      for (const d of domains) {
        // The host row names the URL, then why its redirect was refused: the kind of address of its own target.
        assert.match(
          d.lastError ?? '',
          /^https:\/\/site\d\.example\/: redirect refused: url: .*(private|loopback|metadata)/,
        );
        assert.match(d.lastError ?? '', targets[Number(/^site(\d+)\./.exec(d.host)![1])][1]);
      }
    } finally {
      db.close();
    }
  });
});
