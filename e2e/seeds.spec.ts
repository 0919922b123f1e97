/**
 * Seeds in the browser: a person adds seeds through the Seeds view and sees why a URL was refused;
 * plus screenshots of every view at desktop and phone widths, in light and dark, kept as test artifacts,
 * checking that no view scrolls sideways and that dark mode really is darker.
 */
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { SearchPage } from './pages/search-page.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { generateSite, politenessReport, startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

async function smallSite(pages: number): Promise<TestWeb> {
  web = await startTestWeb([
    generateSite({ pages, words: (i) => `lantern garden note ${i % 3 === 0 ? 'harbour lights' : 'market'}` }),
  ]);
  return web;
}

test('a person goes to Seeds, sees why a bad URL is refused, and adds a good one', async ({ page }) => {
  const site = (await smallSite(3)).sites[0];
  const seeds = new SeedsPage(page);

  await page.goto('/');
  await seeds.navigateTo('Seeds');
  await expect(page).toHaveURL(/\/seeds$/);
  await expect(seeds.heading).toBeVisible();
  await expect(seeds.navLink('Seeds')).toHaveAttribute('aria-current', 'page');
  await expect(seeds.navLink('Search')).not.toHaveAttribute('aria-current', 'page');
  await expect(seeds.depthInput).toHaveValue('2');
  await expect(seeds.scopeSelect).toHaveValue('host');

  await seeds.addSeed('ftp://example.org/');
  await expect(seeds.urlError).toContainText(/ftp/i);
  await expect(seeds.urlInput).toHaveAccessibleDescription(/ftp/i);
  await expect(seeds.urlInput).toHaveAttribute('aria-invalid', 'true');
  await expect(seeds.urlInput).toHaveValue('ftp://example.org/');

  const good = site.url('/');
  await seeds.addSeed(good, { depth: 1 });
  await expect(seeds.urlError).toHaveCount(0);
  await expect(seeds.urlInput).toHaveValue('');
  await expect(seeds.urlInput).toBeFocused();
  await expect(seeds.row(good)).toBeVisible();
  await expect(await seeds.cell(good, 'Depth')).toHaveText('1');
  await expect(await seeds.cell(good, 'Scope')).toHaveText('host');
  // The list refreshes on its own (every 2 s) as the crawler fetches the site's 3 pages.
  await expect(await seeds.cell(good, 'Fetched')).toHaveText('3', { timeout: 30_000 });
  // Every URL it found was fetched: none waits ("done at"), none failed (no "failed" in the row).
  await expect(await seeds.cell(good, 'Progress')).toHaveText(/^3 fetched of 3 found · done at \d\d:\d\d$/);
  // When the seed was crawled, and when it will be again on its own: CRAWL_REFRESH (a week by default) and its
  // site's own offset, up to a quarter of that (crawler/frontier/revisit-spread.ts), counted up to whole days.
  await expect(await seeds.cell(good, 'Crawled')).toHaveText(/^(just now|\d+ s ago)next in [789] d$/);
});

test('"Crawl again" on a seed fetches every page it found once more, politely', async ({ page }) => {
  const site = (await smallSite(3)).sites[0];
  const seeds = new SeedsPage(page);
  const url = site.url('/');
  const pageRequests = () =>
    site.log
      .filter((r) => r.path !== '/robots.txt')
      .map((r) => r.path)
      .sort();

  await seeds.open();
  await seeds.addSeed(url, { depth: 1 });
  await expect(await seeds.cell(url, 'Fetched')).toHaveText('3', { timeout: 30_000 });
  await expect.poll(pageRequests).toEqual(['/', '/p/1', '/p/2']);

  await seeds.crawlAgainButton(url).click();
  await expect(seeds.crawlAgainStatus).toHaveText(
    `Crawling ${url} again: every page it found (depth 1) is checked for changes.`,
  );
  // Not only the seed page: everything it found is fetched again; robots.txt is remembered.
  await expect.poll(pageRequests, { timeout: 30_000 }).toEqual(['/', '/', '/p/1', '/p/1', '/p/2', '/p/2']);
  expect(site.requestsTo('/robots.txt')).toHaveLength(1);
  expect(politenessReport(site.log, 200).violations, "the app's CRAWL_DELAY_MS (200) between any two requests").toEqual(
    [],
  );
  await expect(await seeds.cell(url, 'Progress')).toContainText('3 fetched of 3 found · done at', { timeout: 10_000 });
});

test('"Remove" asks first, then the seed\'s pages leave search and its site is no longer crawled', async ({
  page,
}, testInfo) => {
  const site = (await smallSite(3)).sites[0];
  const seeds = new SeedsPage(page);
  const search = new SearchPage(page);
  const url = site.url('/');

  await seeds.open();
  await seeds.addSeed(url, { depth: 1 });
  await expect(await seeds.cell(url, 'Fetched')).toHaveText('3', { timeout: 30_000 });
  await search.navigateTo('Search');
  await search.search('harbour');
  await expect(search.resultLinks()).toHaveText(['Page 0'], { timeout: 10_000 });
  await search.search('Pag');
  await expect(search.resultLinks()).toHaveCount(3);

  await seeds.navigateTo('Seeds');
  // The first press only asks; Escape (or Keep) leaves everything as it was.
  await seeds.removeButton(url).click();
  const question = seeds.removeQuestion(url);
  await expect(question).toContainText('Remove it and its 3 pages from search?');
  await expect(question.getByRole('button', { name: 'Keep' })).toBeFocused();
  await screenshot(page, testInfo, 'seeds-remove-question');
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(seeds.removeButton(url)).toBeVisible();

  await seeds.removeButton(url).click();
  await question.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(seeds.removeStatus).toHaveText(
    `Removed ${url}: the crawler stops fetching what it found, and its pages leave search.`,
  );
  await expect(seeds.row(url)).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Seed list' }), 'focus is not lost with the row').toBeFocused();
  await expect(page.getByText('No seeds yet.')).toBeVisible();
  const requestsAtRemoval = site.log.length;

  await search.navigateTo('Search');
  await search.search('harbour');
  await expect(page.getByText(/No pages match/)).toBeVisible({ timeout: 10_000 });
  await expect(search.results).toHaveCount(0);
  // Titles too (the in-memory title index, which also matches words by prefix).
  await search.search('Pag');
  await expect(page.getByText(/No pages match/)).toBeVisible({ timeout: 10_000 });
  expect(site.log.length, 'the site is not contacted again').toBe(requestsAtRemoval);
});

test('"Add several" reports each line as accepted or refused with its own reason', async ({ page }) => {
  const site = (await smallSite(2)).sites[0];
  const seeds = new SeedsPage(page);
  await seeds.open();

  const good = site.url('/');
  await seeds.addSeveral([good, 'ftp://example.org/files', 'http://exa mple.org/']);
  await expect(seeds.bulkResults).toHaveCount(3);
  await expect(seeds.bulkResults.nth(0)).toContainText('Accepted');
  await expect(seeds.bulkResults.nth(1)).toContainText('Refused');
  await expect(seeds.bulkResults.nth(1)).toContainText(/ftp/i);
  await expect(seeds.bulkResults.nth(2)).toContainText('Refused');
  await expect(seeds.bulkResults.nth(2)).toContainText(/not a valid URL/i);
  // Refused lines stay in the box to be fixed; the accepted one is listed.
  await expect(seeds.bulkInput).toHaveValue('ftp://example.org/files\nhttp://exa mple.org/');
  await expect(seeds.row(good)).toBeVisible();

  // The scope chosen above applies to every line: here, only the folder of each URL.
  await seeds.scopeSelect.selectOption({ label: 'Under this path' });
  const docs = site.url('/p/');
  await seeds.addSeveral([docs]);
  await expect(seeds.bulkResults.nth(0)).toContainText('Accepted');
  await expect(await seeds.cell(docs, 'Scope')).toHaveText('this path');
});

test.describe('with private addresses not allowed', () => {
  test.use({ appEnv: { CRAWL_ALLOW_PRIVATE: '0' } });

  test('a private address is refused with the reason', async ({ page }) => {
    const seeds = new SeedsPage(page);
    await seeds.open();
    await seeds.addSeed('http://192.168.1.20/admin');
    await expect(seeds.urlError).toContainText(/private/i);
    await expect(seeds.urlError).toContainText('CRAWL_ALLOW_PRIVATE');
    await expect(seeds.urlInput).toHaveAccessibleDescription(/private/i);
    await expect(seeds.urlInput).toHaveValue('http://192.168.1.20/admin');
    await expect(seeds.page.getByText('No seeds yet.')).toBeVisible();
  });
});

async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

/** The page fits the window's width: nothing sticks out sideways for a person to scroll to. */
async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `${name}: the page is wider than the ${innerWidth} px window`).toBeLessThanOrEqual(innerWidth);
}

/** The sum of the red, green and blue of a computed colour ("rgb(19, 20, 23)"): lower is darker. */
function channelSum(color: string): number {
  return (color.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).reduce((sum, n) => sum + Number(n), 0);
}

test('screenshots of every view at desktop and phone widths, light and dark', async ({ page, request }, testInfo) => {
  test.setTimeout(120_000); // a crawl of 12 pages, then sixteen views
  // A 12-page site, and a second host whose robots.txt answers 503, so the Domains view shows two states.
  web = await startTestWeb([
    generateSite({ pages: 12, words: (i) => `lantern garden note ${i % 3 === 0 ? 'harbour lights' : 'market'}` }),
    { robots: { status: 503 }, pages: { '/': '<title>Closed</title>' } },
  ]);
  const [site, closed] = web.sites;
  for (const seed of [site, closed]) {
    const added = await request.post('/api/seeds', { data: { url: seed.url('/'), depth: 2 } });
    expect(added.status()).toBe(201);
  }
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 40_000,
      message: 'the 12 pages of the test site get indexed',
    })
    .toBeGreaterThanOrEqual(12);

  const search = new SearchPage(page);
  const seeds = new SeedsPage(page);
  const domains = new DomainsPage(page);

  const background: Partial<Record<'light' | 'dark', string>> = {};
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 360, height: 740 }],
    ] as const) {
      const label = scheme === 'light' ? width : `${width}-dark`;
      await page.setViewportSize(viewport);

      await search.open();
      await expect(search.searchBox).toBeFocused();
      background[scheme] ??= await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      await search.search('harbour');
      await expect(page).toHaveURL(/\?q=harbour$/);
      await expect(search.summary).toContainText(/results? in (\d+|<1) ms/);
      await expect(search.results.first()).toBeVisible();
      await expect(search.results.first().locator('mark').first()).toHaveText(/harbour/i);
      await expectNoSidewaysScroll(page, `search-${label}`);
      await screenshot(page, testInfo, `search-${label}`);

      await search.results
        .first()
        .getByRole('link', { name: /^Stored text of / })
        .click();
      await expect(page.locator('.stored-text mark').first()).toHaveText(/harbour/i);
      await expectNoSidewaysScroll(page, `stored-${label}`);
      await screenshot(page, testInfo, `stored-${label}`);

      await search.navigateTo('Seeds');
      await expect(seeds.row(site.url('/'))).toBeVisible();
      await expect(await seeds.cell(site.url('/'), 'Progress')).toContainText('12 fetched');
      await expectNoSidewaysScroll(page, `seeds-${label}`);
      await screenshot(page, testInfo, `seeds-${label}`);

      await seeds.navigateTo('Domains');
      await expect(domains.row(site.host)).toBeVisible();
      await expect(domains.row(closed.host)).toContainText('robots.txt unreachable');
      await domains.hostButton(site.host).click();
      await expect(domains.hostButton(site.host)).toHaveAttribute('aria-expanded', 'true');
      await expect(domains.timeline(site.host)).toBeVisible();
      await expect(domains.timeline(site.host).locator('rect').first()).toBeAttached();
      await expectNoSidewaysScroll(page, `domains-${label}`);
      await screenshot(page, testInfo, `domains-${label}`);
    }
  }
  // Dark mode is its own palette, not the light one: the page behind everything is darker.
  expect(background.dark, 'the body background in dark mode').not.toBe(background.light);
  expect(channelSum(background.dark ?? ''), `dark ${background.dark} against light ${background.light}`).toBeLessThan(
    channelSum(background.light ?? ''),
  );
});
