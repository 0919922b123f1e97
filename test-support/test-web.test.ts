import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Agent, request } from 'undici';
import {
  startTestWeb,
  generateSite,
  generatedDepth,
  politenessReport,
  waitFor,
  FANOUT,
  type RequestRecord,
  type TestWeb,
} from './test-web.ts';

const webs: TestWeb[] = [];
after(async () => {
  await Promise.all(webs.map((w) => w.close()));
});

async function start(...specs: Parameters<typeof startTestWeb>[0]): Promise<TestWeb> {
  const web = await startTestWeb(specs);
  webs.push(web);
  return web;
}

/** A GET with a fresh connection, so one test's keep-alive socket never affects another. */
async function get(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, headers: { connection: 'close', ...(init.headers as Record<string, string>) } });
}

/** Rejects after `ms` (an upper bound on a wait, not a sleep): turns a hang into a failure. */
function rejectAfter(ms: number, message: string): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(message)), ms).unref());
}

function rec(start: number, end: number, path = '/'): RequestRecord {
  return { method: 'GET', path, userAgent: 'x', status: 200, start, end, aborted: false, connection: 1 };
}

describe('sites', () => {
  test('two sites on different addresses answer their own pages', async () => {
    const web = await start({ pages: { '/': 'site A home', '/only-a': 'A' } }, { pages: { '/': 'site B home' } });
    const [a, b] = web.sites;
    assert.notEqual(a.address, b.address);
    assert.match(a.address, /^127\.0\.\d+\.\d+$/);
    assert.equal(a.origin, `http://${a.address}:${a.port}`);
    assert.equal(a.host, `${a.address}:${a.port}`);
    assert.equal(a.url('/x?y=1'), `${a.origin}/x?y=1`);

    const ra = await get(a.url('/'));
    assert.equal(ra.status, 200);
    assert.equal(ra.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(await ra.text(), 'site A home');
    assert.equal(await (await get(b.url('/'))).text(), 'site B home');

    const missing = await get(b.url('/only-a'));
    assert.equal(missing.status, 404);
    assert.match(await missing.text(), /Not found/);
    assert.equal(a.log.length, 1);
    assert.deepEqual(
      b.log.map((r) => [r.path, r.status]),
      [
        ['/', 200],
        ['/only-a', 404],
      ],
    );
  });

  test('robots.txt as a string, as a 503, absent, and changed at runtime', async () => {
    const web = await start(
      { robots: 'User-agent: *\nDisallow: /private\n', pages: {} },
      { robots: { status: 503, body: 'busy' }, pages: {} },
      { pages: {} },
    );
    const [text, unavailable, absent] = web.sites;
    const r1 = await get(text.url('/robots.txt'));
    assert.equal(r1.status, 200);
    assert.equal(r1.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await r1.text(), 'User-agent: *\nDisallow: /private\n');
    const r2 = await get(unavailable.url('/robots.txt'));
    assert.equal(r2.status, 503);
    assert.equal(await r2.text(), 'busy');
    const r3 = await get(absent.url('/robots.txt'));
    assert.equal(r3.status, 404);
    await r3.arrayBuffer();

    absent.setRobots('User-agent: *\nAllow: /\n');
    assert.equal((await get(absent.url('/robots.txt'))).status, 200);
    text.setRobots(undefined);
    assert.equal((await get(text.url('/robots.txt'))).status, 404);
    assert.deepEqual(
      absent.requestsTo('/robots.txt').map((r) => r.status),
      [404, 200],
    );
  });

  test('per-path status, headers, query paths, HEAD and setPage', async () => {
    const web = await start({
      pages: {
        '/moved': { status: 301, headers: { Location: '/new' } },
        '/json': { body: '{"a":1}', headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' } },
        '/q?x=1': 'query one',
        '/gone': { status: 410, body: 'gone' },
      },
    });
    const site = web.sites[0];
    const moved = await get(site.url('/moved'), { redirect: 'manual' });
    assert.equal(moved.status, 301);
    assert.equal(moved.headers.get('location'), '/new');
    const json = await get(site.url('/json'));
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.equal(json.headers.get('x-test'), 'yes');
    assert.deepEqual(await json.json(), { a: 1 });
    assert.equal(await (await get(site.url('/q?x=1'))).text(), 'query one');
    assert.equal((await get(site.url('/q?x=2'))).status, 404);
    assert.equal((await get(site.url('/gone'))).status, 410);

    const head = await get(site.url('/json'), { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers.get('content-length'), '7');
    assert.equal(await head.text(), '');

    site.setPage('/gone', 'back again');
    assert.equal(await (await get(site.url('/gone'))).text(), 'back again');
    assert.deepEqual(
      site.requestsTo('/gone').map((r) => r.status),
      [410, 200],
    );
    assert.deepEqual(
      site.requestsTo('/json').map((r) => r.method),
      ['GET', 'HEAD'],
    );
    assert.deepEqual(
      site.requestsTo('/q?x=2').map((r) => r.status),
      [404],
    );
  });

  test('delayMs delays the response, defaultDelayMs applies to pages without their own', async () => {
    const web = await start({ defaultDelayMs: 120, pages: { '/slow': { body: 's', delayMs: 250 }, '/default': 'd' } });
    const site = web.sites[0];
    const t0 = performance.now();
    await (await get(site.url('/slow'))).text();
    assert.ok(performance.now() - t0 >= 245, 'client waited for the delay');
    await (await get(site.url('/default'))).text();
    await (await get(site.url('/nothing-here'))).text();
    const [slow, def, missing] = site.log;
    assert.ok(slow.end - slow.start >= 249, `slow took ${slow.end - slow.start}`);
    assert.ok(def.end - def.start >= 119, `default took ${def.end - def.start}`);
    assert.ok(missing.end - missing.start >= 119, `404 took ${missing.end - missing.start}`);
    assert.equal(missing.status, 404);
  });

  test('log records method, path, User-Agent and ordered wall-clock times', async () => {
    const web = await start({ pages: { '/a': 'a', '/b': 'b' } });
    const site = web.sites[0];
    const before = performance.timeOrigin + performance.now();
    await (await get(site.url('/a'), { headers: { 'user-agent': 'LanternBot/0.1 (+test)' } })).text();
    await (await get(site.url('/b?z=9'), { headers: { 'user-agent': 'Other/2' } })).text();
    const afterT = performance.timeOrigin + performance.now();
    assert.equal(site.log.length, 2);
    const [a, b] = site.log;
    assert.deepEqual(
      [a.method, a.path, a.userAgent, a.status, a.aborted],
      ['GET', '/a', 'LanternBot/0.1 (+test)', 200, false],
    );
    assert.deepEqual([b.path, b.userAgent, b.status], ['/b?z=9', 'Other/2', 404]);
    assert.ok(before <= a.start && a.start <= a.end && a.end <= b.start && b.start <= b.end && b.end <= afterT);
    assert.ok(Math.abs(a.start - Date.now()) < 5000, 'times are wall-clock based');
    assert.ok(!Number.isInteger(a.start) || !Number.isInteger(a.end), 'times are sub-millisecond floats');
  });

  test('a request cut off during its delay is logged as aborted', async () => {
    const web = await start({ pages: { '/slow': { body: 's', delayMs: 5000 } } });
    const site = web.sites[0];
    const controller = new AbortController();
    const pending = get(site.url('/slow'), { signal: controller.signal });
    await waitFor(() => site.log.length === 1, { message: 'request arrived' });
    controller.abort();
    await assert.rejects(pending);
    const record = await waitFor(() => (Number.isNaN(site.log[0].end) ? undefined : site.log[0]), {
      message: 'request ended',
    });
    assert.equal(record.aborted, true);
    assert.ok(record.end - record.start < 4000);
  });
});

describe('close', () => {
  test('close() ends promptly with idle keep-alive sockets (fetch and undici) and a hanging request', async () => {
    const web = await startTestWeb([
      { pages: { '/': 'home', '/hang': { handler: () => {} } } },
      { pages: { '/': 'home' } },
    ]);
    const [a, b] = web.sites;
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    const res = await request(a.url('/'), { dispatcher: agent });
    assert.equal(await res.body.text(), 'home');
    const fetched = await fetch(b.url('/')); // global fetch keeps the connection alive
    assert.equal(fetched.headers.get('connection'), 'keep-alive');
    assert.match(fetched.headers.get('keep-alive') ?? '', /timeout=\d+/);
    await fetched.text();
    const hanging = request(a.url('/hang'), { dispatcher: agent });
    await waitFor(() => a.requestsTo('/hang').length === 1, { message: 'hanging request arrived' });
    const raw = net.connect(b.port, b.address); // a half-sent request
    await new Promise<void>((resolve) => raw.once('connect', resolve));
    raw.write('GET / HTTP/1.1\r\nHost: x\r\n');
    raw.on('error', () => {});

    const t0 = performance.now();
    await Promise.race([web.close(), rejectAfter(3000, 'test-web: close() hung')]);
    assert.ok(performance.now() - t0 < 1000, `close took ${performance.now() - t0} ms`);
    await assert.rejects(hanging);
    await assert.rejects(fetch(b.url('/'), { signal: AbortSignal.timeout(2000) }));
    assert.equal(a.requestsTo('/hang')[0].aborted, true);
    raw.destroy();
    await agent.close();
    await web.close(); // closing twice is harmless
  });
});

describe('generateSite', () => {
  test('every page is reachable from / within generatedDepth, with unique tokens', async () => {
    for (const pages of [1, 30, FANOUT + 1, FANOUT + 40]) {
      const spec = generateSite({ pages, prefix: 'alpha' });
      const paths = Object.keys(spec.pages);
      assert.equal(paths.length, pages);
      const depth = new Map<string, number>([['/', 0]]);
      const queue = ['/'];
      while (queue.length > 0) {
        const path = queue.shift()!;
        const body = spec.pages[path] as string;
        for (const [, href] of body.matchAll(/href="([^"]+)"/g)) {
          assert.ok(href in spec.pages, `${path} links to missing ${href}`);
          if (!depth.has(href)) {
            depth.set(href, depth.get(path)! + 1);
            queue.push(href);
          }
        }
      }
      assert.equal(depth.size, pages, `all ${pages} pages reachable`);
      assert.equal(Math.max(...depth.values()), generatedDepth(pages), `depth for ${pages} pages`);
    }
    assert.equal(generatedDepth(FANOUT + 1), 1);
    assert.equal(generatedDepth(FANOUT + 2), 2);

    const spec = generateSite({
      pages: 5,
      prefix: 'beta',
      words: (i) => `extra${i} <b>`,
      bodyBytes: 3000,
      delayMs: 40,
      robots: 'User-agent: *\n',
    });
    const page3 = spec.pages['/p/3'] as string;
    assert.match(page3, /<title>Page 3<\/title>/);
    assert.match(page3, /<h1>/);
    assert.match(page3, /\bbetaword3\b/);
    assert.doesNotMatch(page3, /betaword[0124]\b/);
    assert.match(page3, /extra3 &lt;b&gt;/);
    assert.match(page3, /href="\/p\/4"/, 'links to the next page');
    const size = Buffer.byteLength(page3);
    assert.ok(size >= 3000 && size < 3400, `size ${size}`);
    assert.deepEqual(
      generateSite({ pages: 5, prefix: 'beta', words: (i) => `extra${i} <b>`, bodyBytes: 3000 }).pages,
      spec.pages,
    );
    assert.equal(spec.defaultDelayMs, 40);
    assert.equal(spec.robots, 'User-agent: *\n');
  });

  test('a generated site is served and crawlable over HTTP', async () => {
    const web = await start(generateSite({ pages: 12 }));
    const site = web.sites[0];
    const home = await (await get(site.url('/'))).text();
    const hrefs = [...home.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(new Set(hrefs).size, 11);
    const page = await get(site.url(hrefs[hrefs.length - 1]));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /uniqword11/);
  });
});

describe('politenessReport', () => {
  test('a clean log passes', () => {
    const report = politenessReport([rec(1000, 1100), rec(1300, 1350), rec(1600, 1700)], 200);
    assert.deepEqual(report, { requests: 3, maxInFlight: 1, minGapMs: 200, violations: [] });
  });

  test('an overlap is detected, even against an earlier long request', () => {
    const long = rec(0, 1000, '/long');
    const short = rec(10, 20, '/short');
    const later = rec(500, 600, '/later');
    const report = politenessReport([later, short, long], 0);
    assert.equal(report.maxInFlight, 2);
    assert.deepEqual(
      report.violations.map((v) => [v.prev.path, v.next.path, v.gapMs]),
      [
        ['/long', '/short', -990],
        ['/long', '/later', -500],
      ],
    );
    assert.equal(report.minGapMs, -990);
  });

  test('a short gap is detected; touching requests do not overlap', () => {
    const report = politenessReport([rec(0, 100), rec(100, 200), rec(350, 400)], 150);
    assert.equal(report.maxInFlight, 1);
    assert.deepEqual(
      report.violations.map((v) => v.gapMs),
      [0],
    );
    assert.equal(report.minGapMs, 0);
  });

  test('fewer than two requests, and a request still in flight', () => {
    assert.deepEqual(politenessReport([], 100), { requests: 0, maxInFlight: 0, minGapMs: Infinity, violations: [] });
    assert.equal(politenessReport([rec(0, 5)], 100).minGapMs, Infinity);
    const report = politenessReport([rec(0, NaN), rec(5000, 5100)], 100);
    assert.equal(report.maxInFlight, 2);
    assert.equal(report.violations.length, 1);
  });
});

describe('waitFor', () => {
  test('resolves with the first truthy-enough value, including 0 and empty string', async () => {
    let n = 0;
    assert.equal(await waitFor(() => (++n >= 3 ? n : undefined), { intervalMs: 1 }), 3);
    assert.equal(await waitFor(() => 0), 0);
    assert.equal(await waitFor(async () => ''), '');
  });

  test('times out with the message and the last value', async () => {
    await assert.rejects(
      waitFor(() => false, { timeoutMs: 60, intervalMs: 10, message: 'never true' }),
      (err: Error) => {
        assert.match(err.message, /^waitFor: never true not met within 60 ms \(last value: false\)$/);
        return true;
      },
    );
  });
});
