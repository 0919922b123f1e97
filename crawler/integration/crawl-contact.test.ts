/**
 * A crawler that introduces itself, through the real cluster and judged from the site's own request log:
 * with CRAWL_CONTACT set, every request (robots.txt included) carries the owner's contact in its
 * User-Agent as `+contact`, and the site's robots.txt still names the crawler by its product token.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb } from '../../test-support/test-web.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { DEFAULTS } from '../../shared/config.ts';

const CONTACT = 'https://example.org/my-lantern';

test('CRAWL_CONTACT: every request says +contact in its User-Agent; robots.txt for LanternBot still applies', {
  timeout: 60_000,
}, async () => {
  const web = await startTestWeb([
    {
      robots: 'User-agent: LanternBot\nDisallow: /private\n',
      pages: {
        '/': '<title>Home</title><a href="/a">a</a> <a href="/private/b">b</a>',
        '/a': '<title>A</title>',
        '/private/b': '<title>B</title>',
      },
    },
  ]);
  const crawler = startCrawler({ CRAWL_CONTACT: CONTACT });
  try {
    const site = web.sites[0];
    crawler.addSeed(site.url('/'), { depth: 1 });
    await crawler.waitIdle({ minDone: 2, timeoutMs: 40_000 });
    assert.deepEqual(
      site.log.map((r) => r.path).sort(),
      ['/', '/a', '/robots.txt'],
      'robots.txt for LanternBot kept /private out',
    );
    const expected = DEFAULTS.userAgentWithContact(CONTACT);
    assert.match(expected, /^LanternBot\/\S+ \(personal search engine; \+https:\/\/example\.org\/my-lantern\)$/);
    for (const r of site.log) assert.equal(r.userAgent, expected, `${r.path} carries the contact`);
  } finally {
    await crawler.close();
    await web.close();
  }
});
