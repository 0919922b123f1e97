/**
 * The worker's results cross to the primary as a structured clone (WORKER_IPC_SERIALIZATION): every kind
 * of result a worker makes of real responses from a loopback site must arrive as JSON would carry it,
 * so that the clone changes the cost of the trip and nothing else (no undefined fields, class instances,
 * Maps or non-finite numbers that JSON would drop or turn into something else).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { createAgent, fetchLimits } from '../fetch/fetcher.ts';
import { runJob } from '../job-runner.ts';
import { startTestWeb, type TestWeb } from '../../test-support/test-web.ts';
import { WORKER_IPC_SERIALIZATION, type FetchJob, type WorkerSettings } from './protocol.ts';

const SETTINGS: WorkerSettings = {
  userAgent: 'LanternBot/0.1',
  allowPrivate: true,
  ...fetchLimits(4000),
};
let web: TestWeb;

before(async () => {
  web = await startTestWeb([
    {
      robots: 'User-agent: *\nDisallow: /private\nCrawl-delay: 2\nSitemap: /sitemap.xml\n',
      pages: {
        '/': `<!doctype html><html lang="en"><title>Home</title><meta name="description" content="A site">
          <main><h1>Welcome</h1><p>${'Some words of text. '.repeat(40)}</p>
          <a href="/a">The first page</a> <a href="/b" rel="nofollow">B</a></main>`,
        '/notes.txt': { body: 'Plain text notes\nsecond line', headers: { 'content-type': 'text/plain' } },
        '/sitemap.xml': {
          handler: (req, res) =>
            res
              .writeHead(200, { 'content-type': 'application/xml' })
              .end(
                `<?xml version="1.0"?><urlset><url><loc>http://${req.headers.host}/a</loc><lastmod>2024-01-02</lastmod></url></urlset>`,
              ),
        },
        '/moved': { status: 301, headers: { location: '/a' } },
        '/busy': { status: 503, headers: { 'retry-after': '7' } },
      },
    },
  ]);
});

after(async () => {
  await web.close();
});

test('every kind of worker result arrives through the structured clone exactly as JSON would carry it', async () => {
  assert.equal(WORKER_IPC_SERIALIZATION, 'advanced');
  const site = web.sites[0];
  const agent = createAgent(SETTINGS);
  const job = (jobId: number, kind: FetchJob['kind'], path: string): FetchJob => ({
    jobId,
    kind,
    url: site.url(path),
    origin: site.origin,
  });
  const jobs = [
    job(1, 'robots', '/robots.txt'),
    job(2, 'page', '/'),
    job(3, 'page', '/notes.txt'),
    job(4, 'sitemap', '/sitemap.xml'),
    job(5, 'page', '/moved'),
    job(6, 'page', '/busy'),
    job(7, 'page', '/missing'),
  ];
  const now = () => performance.timeOrigin + performance.now();
  const results = [];
  try {
    for (const j of jobs) {
      const result = await runJob(j, SETTINGS, agent, now);
      results.push(result);
      const message = { type: 'done', result, sinceEndMs: now() - result.endedAt };
      assert.deepStrictEqual(
        v8.deserialize(v8.serialize(message)),
        JSON.parse(JSON.stringify(message)),
        `the result of ${j.url} (${j.kind}) differs between the structured clone and JSON`,
      );
    }
  } finally {
    await agent.close();
  }
  // Real results of each kind: rules, a page with its links and anchors, a text document, a sitemap,
  // a redirect, a throttle and a missing page.
  const [robots, page, text, sitemap, moved, busy, missing] = results;
  assert.equal(robots.robotsRules?.crawlDelayMs, 2000);
  assert.deepEqual(page.page?.anchors, [{ url: site.url('/a'), text: 'The first page' }]);
  assert.equal(text.page?.fileType, 'text');
  assert.deepEqual(sitemap.sitemap?.urls, [site.url('/a')]);
  assert.equal(moved.location, site.url('/a'));
  assert.equal(busy.retryAfterMs, 7000);
  assert.equal(missing.status, 404);
});
