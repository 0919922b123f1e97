/**
 * What links say, through the real cluster: the worker extracts each content link's words and the
 * page's link density, the primary (the single writer) stores them with the page; a page fetched
 * again is not counted twice; navigation links count for nothing; a page's 404 is an error of its
 * host, as its timeline shows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestWeb } from '../../test-support/test-web.ts';
import { startCrawler } from '../../test-support/crawler-harness.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { linkTargetQueries } from '../../db/link-targets.ts';
import { docSite, TOY_PAGES } from '../../test-support/doc-site.ts';

test('anchor text, inlinks and link density are stored with the pages; a re-crawl counts nothing twice', async () => {
  const site = docSite('Toy 1.0', TOY_PAGES);
  site.pages['/library/readline.html'] = String(site.pages['/library/readline.html']).replace(
    '</body>',
    '<a href="/gone.html">an old page</a></body>',
  );
  const web = await startTestWeb([site]);
  const crawler = startCrawler({ CRAWL_DELAY_MS: '0' });
  try {
    const toy = web.sites[0];
    crawler.addSeed(toy.url('/'), { depth: 2 });
    await crawler.waitIdle({ minDone: TOY_PAGES.length + 3, timeoutMs: 60_000 });
    const links = linkTargetQueries(crawler.db);
    const osPath = links.target(toy.url('/library/os.path.html'));
    assert.ok(osPath !== undefined);
    // Linked from readline's text ("os.path.join") and from the index, contents and genindex pages; the
    // sidebar on every page links it too, but navigation counts for nothing.
    assert.ok(osPath.anchors.includes('os.path.join'), JSON.stringify(osPath));
    assert.equal(osPath.inlinks, 4, JSON.stringify(osPath));
    const density = (path: string) =>
      (crawler.db.prepare('SELECT link_density AS d FROM pages WHERE url = ?').get(toy.url(path)) as { d: number }).d;
    assert.ok(density('/contents.html') > 0.8, `contents: ${density('/contents.html')}`);
    assert.ok(
      density('/tutorial/datastructures.html') < 0.2,
      `a page of text: ${density('/tutorial/datastructures.html')}`,
    );
    const body = crawler.db
      .prepare('SELECT body, headings FROM pages WHERE url = ?')
      .get(toy.url('/tutorial/datastructures.html')) as { body: string; headings: string };
    assert.ok(!body.body.includes('¶') && !body.headings.includes('¶'), 'no permalink marks stored');

    // The 404 behind the old link: an error of the host, said in its row.
    await waitFor(() => (crawler.domain(toy.host)?.errors ?? 0) === 1, {
      timeoutMs: 10_000,
      message: 'the row counts the 404',
    });
    assert.match(crawler.domain(toy.host)!.lastError ?? '', /gone\.html answered HTTP 404/);

    // Crawled again: the same links, counted once.
    crawler.addSeed(toy.url('/'), { depth: 2 });
    await waitFor(() => toy.requestsTo('/library/readline.html').length >= 2, {
      timeoutMs: 30_000,
      message: 'readline fetched again',
    });
    await crawler.waitIdle({ minDone: TOY_PAGES.length + 3, timeoutMs: 60_000 });
    assert.deepEqual(links.target(toy.url('/library/os.path.html')), osPath);
  } finally {
    await crawler.close();
    await web.close();
  }
});
