/**
 * Search as a person meets it, on documentation shaped like Python's (test-support/doc-site.ts)
 * crawled by the real crawler: completions that continue what was typed (picked from the keyboard,
 * a page suggestion opening its page), "did you mean" and an honest no-results page, Back that
 * restores the list and its scroll position, results a person can scan (host once, a site's extra
 * results at most two a page while others fill it, no "¶", denser on a phone). Screenshots at 360 px and desktop, light and dark.
 */
import type { APIRequestContext, Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { SearchPage } from './pages/search-page.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';
import { docSite, TOY_PAGES } from '../test-support/doc-site.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

const BLOG_PAGES = [
  {
    path: '/post.html',
    title: 'Why I like list comprehensions',
    sections: [{ heading: 'Lists', text: 'A list comprehension is neat, and a list is handy.' }],
  },
  {
    path: '/typo.html',
    title: 'Notes',
    sections: [{ heading: 'Draft', text: 'My notes on comprehnsions, to be written.' }],
  },
];

/** Serves the Toy docs and a blog, seeds both, and waits until every page is searchable. */
async function crawlDocs(request: APIRequestContext): Promise<TestWeb> {
  const w = await startTestWeb([docSite('Toy 1.0', TOY_PAGES), docSite('Blog', BLOG_PAGES)]);
  for (const site of w.sites)
    expect((await request.post('/api/seeds', { data: { url: site.url('/'), depth: 2 } })).status()).toBe(201);
  const want = TOY_PAGES.length + 3 + BLOG_PAGES.length + 3;
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 45_000,
      message: `all ${want} pages are searchable`,
    })
    .toBeGreaterThanOrEqual(want);
  // The title index follows the pages table within a second or so: wait until it knows the last pages.
  await expect
    .poll(
      async () =>
        ((await (await request.get('/api/suggest?q=why%20i%20li')).json()) as { suggestions: unknown[] }).suggestions
          .length,
      {
        timeout: 10_000,
      },
    )
    .toBeGreaterThan(0);
  return w;
}

async function shot(page: Page, testInfo: TestInfo, name: string, fullPage = false): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** Runs `take` at desktop and 360 px widths, in light and dark. */
async function everyLook(page: Page, take: (label: string) => Promise<void>): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height, name] of [
      [1280, 800, 'desktop'],
      [360, 740, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await take(`${name}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('completions continue what is typed; a page suggestion opens its page', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  web = await crawlDocs(request);
  const [toy] = web.sites;
  const search = new SearchPage(page);
  await search.open();

  // Typed slowly, as a person types: every query suggestion starts with what is in the box.
  const answered = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/suggest' && new URL(r.url()).searchParams.get('q') === 'list compre',
  );
  await search.searchBox.pressSequentially('list compre', { delay: 90 });
  await answered;
  const queries = search.suggestions.locator('.suggestion-query .suggestion-text');
  await expect(queries.first()).toHaveText('list comprehensions');
  for (const text of await queries.allTextContents()) expect(text.startsWith('list compre'), text).toBe(true);
  const pages = search.suggestions.locator('.suggestion-page');
  await expect(pages.first()).toBeVisible();
  for (const text of await pages.locator('.suggestion-text').allTextContents())
    expect(text.toLowerCase()).toContain('list');
  await expect(pages.first().locator('.suggestion-url')).toContainText(/(127\.0\.0\.\d+:\d+)/);
  await everyLook(page, async (label) => {
    await search.searchBox.focus();
    await search.searchBox.press('End');
    await expect(search.suggestions).toBeVisible();
    await shot(page, testInfo, `suggestions-${label}`);
  });

  // The keyboard picks the first completion: it is searched.
  await search.searchBox.press('ArrowDown');
  await expect(search.suggestions.getByRole('option', { selected: true })).toContainText('list comprehensions');
  await search.searchBox.press('Enter');
  await expect(page).toHaveURL((url) => url.searchParams.get('q') === 'list comprehensions');
  await expect(search.summary).toBeVisible();

  // A page suggestion, picked with the keyboard, opens that page (not a search for its title).
  await search.searchBox.fill('');
  const osAnswered = page.waitForResponse((r) => new URL(r.url()).searchParams.get('q') === 'os.pa');
  await search.searchBox.pressSequentially('os.pa', { delay: 90 });
  await osAnswered;
  await expect(search.suggestions.locator('.suggestion-query').first()).toHaveText('os.path');
  const pageOption = search.suggestions.locator('.suggestion-page').first();
  await expect(pageOption).toContainText('os.path — Common pathname manipulations');
  const options = search.suggestions.getByRole('option');
  const index = (await options.evaluateAll((els) => els.map((el) => el.classList.contains('suggestion-page')))).indexOf(
    true,
  );
  for (let i = 0; i <= index; i++) await search.searchBox.press('ArrowDown');
  await expect(search.suggestions.getByRole('option', { selected: true })).toHaveClass(/suggestion-page/);
  await search.searchBox.press('Enter');
  await expect(page).toHaveURL(toy.url('/library/os.path.html'));
});

test('did you mean, and a no-results page that says what to try', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000);
  web = await crawlDocs(request);
  const search = new SearchPage(page);

  // A word no page has: the correction's results, and a way to search the words as typed.
  await search.open('pyhton');
  const correction = search.main.locator('.correction');
  await expect(correction).toHaveText('Showing results for python; search instead for pyhton.');
  await expect(search.resultLinks().first()).toContainText('Python compatibility layer');
  await shot(page, testInfo, 'correction-applied-desktop-light');
  await correction.getByRole('link', { name: 'pyhton' }).click();
  await expect(page).toHaveURL(/\?q=pyhton&correct=0$/);
  const empty = search.main.locator('.no-results');
  await expect(empty).toContainText('No pages match pyhton among the');
  await expect(empty.getByRole('listitem')).toHaveText([
    /other or fewer words/,
    /one site with site:/,
    /checking the spelling/,
    /adding seeds: only \d+ pages are indexed so far/,
  ]);
  await expect(search.main.getByText('showing pages that contain some of them')).toHaveCount(0);

  // A rare word with a common close one: results as typed, and one "did you mean" link.
  await search.open('comprehnsions');
  await expect(correction).toHaveText('Did you mean comprehensions?');
  await expect(correction.getByRole('link')).toHaveCount(1);
  await correction.getByRole('link', { name: 'comprehensions' }).click();
  await expect(search.searchBox).toHaveValue('comprehensions');
  await expect(search.resultLinks().first()).toBeVisible();

  // Nothing at all: no notice that contradicts it; fewer words offered as a link.
  await search.open('zebra quartz');
  await expect(empty).toContainText('No pages match zebra quartz');
  await expect(search.main.locator('.notice')).toHaveCount(0);
  await expect(empty.getByRole('link', { name: 'zebra' })).toHaveAttribute('href', '/?q=zebra');
  await everyLook(page, async (label) => shot(page, testInfo, `no-results-${label}`));
});

test('Back restores the list and its scroll position, without searching again', async ({ page, request }) => {
  test.setTimeout(120_000);
  web = await crawlDocs(request);
  const [toy] = web.sites;
  const search = new SearchPage(page);
  await page.setViewportSize({ width: 1000, height: 400 });
  await search.open(`documentation site:${toy.host}`); // one site: a plain list of ten
  await expect(search.resultLinks()).toHaveCount(10);
  const searches: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/search') searches.push(r.url());
  });

  // Scrolled to 520 px, open result 5 (a page of the crawled site), then Back.
  await page.evaluate(() => window.scrollTo(0, 520));
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(520);
  const fifth = search.resultLinks().nth(4);
  const target = await fifth.getAttribute('href');
  await fifth.click();
  await expect(page).toHaveURL(target ?? 'missing');
  await page.goBack();
  await expect(search.resultLinks().nth(4)).toHaveAttribute('href', target ?? 'missing');
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(520);
  expect(searches, 'the results came from memory').toEqual([]);

  // The same within the app: a result's stored text, then Back.
  await page.evaluate(() => window.scrollTo(0, 300));
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(300);
  await search.results
    .nth(1)
    .getByRole('link', { name: /^Stored text of / })
    .click();
  await expect(page).toHaveURL(/\/stored\?/);
  await page.goBack();
  await expect(search.resultLinks().first()).toBeVisible();
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(300);
  expect(searches).toEqual([]);

  // Seeds and Domains come back with their rows at once, from memory (their polls then update them).
  await search.navigateTo('Seeds');
  const seedRows = page.getByRole('table', { name: 'Seeds and their crawl progress' }).getByRole('row');
  await expect(seedRows).toHaveCount(3);
  await search.navigateTo('Domains');
  await expect(page.getByRole('table', { name: /Hosts and their crawl state/ }).getByRole('row')).toHaveCount(3);
  await page.route(/\/api\/seeds(\?|$)/, async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 4000));
    await route.continue();
  });
  await page.goBack();
  await expect(seedRows).toHaveCount(3, { timeout: 1500 });
});

test('results to scan: the host once, two of a site while others fill the page, no "¶", denser on a phone', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  web = await crawlDocs(request);
  const [toy, blog] = web.sites;
  const search = new SearchPage(page);
  await search.open('list');
  await expect(search.results.first()).toBeVisible();
  const meta = search.results.first().locator('.result-meta');
  const firstHost = (await search.results.first().locator('.result-host').textContent()) ?? '';
  expect([toy.host, blog.host]).toContain(firstHost);
  expect(((await meta.textContent()) ?? '').split(firstHost).length - 1, 'the host once').toBe(1);

  // Several sites match: nothing is folded away, and "More from" the Toy docs leads to the rest of its results.
  await expect(search.main.getByRole('link', { name: `More from ${toy.host}` })).toHaveCount(1);
  await expect(search.resultLinks()).toHaveCount(await search.results.count());
  await shot(page, testInfo, 'more-from-site-desktop-light');
  await expect(search.main).not.toContainText('¶');

  // One site only (site:): a plain list, no "More from" its own site.
  await search.open(`list site:${toy.host}`);
  await expect(search.results.first()).toBeVisible();
  await expect(search.main.getByRole('link', { name: `More from ${toy.host}` })).toHaveCount(0);
  await expect(search.resultLinks()).toHaveCount(await search.results.count());

  // On a phone, at least three whole results fit on the first screen.
  await page.setViewportSize({ width: 360, height: 740 });
  await search.open('list');
  await expect(search.results.first()).toBeVisible();
  const bottoms = await search.results.evaluateAll((els) =>
    els.filter((el) => !(el as HTMLElement).hidden).map((el) => el.getBoundingClientRect().bottom),
  );
  expect(
    bottoms.filter((b) => b <= 740).length,
    `result bottoms ${bottoms.map(Math.round).join(', ')}`,
  ).toBeGreaterThanOrEqual(3);
  await everyLook(page, async (label) => {
    await search.open('list');
    await expect(search.results.first()).toBeVisible();
    await shot(page, testInfo, `results-${label}`);
  });
});
