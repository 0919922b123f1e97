/**
 * The whole way through, as a person does it, by keyboard: add a test site through the Seeds form, watch
 * its row on Domains go from waiting to crawling to idle while the fetched count rises, then search a
 * word that only one of its pages has and find that page first, the word highlighted, and read the
 * text Lantern stored for it.
 */
import { expect, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { SearchPage } from './pages/search-page.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { generatedPath, generateSite, startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

const PAGES = 6;
/** The one page that has the word "lighthouse". */
const LIGHTHOUSE_PAGE = 4;

let web: TestWeb | null = null;

// Pacing off: with the default factor of 5, a site that takes 1 s per page would be asked every 5 s (pacing is
// proven in crawler/integration/crawl-pacing.test.ts and e2e/domain-groups.spec.ts); here the crawl is watched.
test.use({ appEnv: { CRAWL_PACING_FACTOR: '0' } });

test.afterEach(async () => {
  await web?.close();
  web = null;
});

test('a person adds a site, watches its domain being crawled, and finds a page on it', async ({ page, request }) => {
  test.setTimeout(120_000); // a deliberately slow crawl (about 13 s) on a shared 2-core machine
  // A slow site: every response takes 1 s and robots.txt asks for 1 s between requests, so each
  // "crawling" and "waiting" spell lasts about a second, longer than the Domains view's 1 s refresh.
  web = await startTestWeb([
    generateSite({
      pages: PAGES,
      words: (i) => (i === LIGHTHOUSE_PAGE ? 'the lighthouse keeper counts the boats' : 'the quay is calm tonight'),
      robots: 'User-agent: *\nCrawl-delay: 1\n',
      delayMs: 1000,
    }),
  ]);
  const site = web.sites[0];
  const seeds = new SeedsPage(page);
  const domains = new DomainsPage(page);
  const search = new SearchPage(page);

  // Keyboard only: from the focused search box, back through the navigation to Seeds.
  await page.goto('/');
  await expect(search.searchBox).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(search.navLink('Domains')).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(search.navLink('Seeds')).toBeFocused();
  await expect(search.navLink('Seeds')).toHaveCSS('outline-style', 'solid'); // focus is visible
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/seeds$/);
  await expect(seeds.heading).toBeFocused();

  // The form, in Tab order: the "Add seeds" fold (open: there is no seed yet), URL, Depth; Enter submits.
  // The fold is shown once the first answer said there are no seeds, as a person sees it before tabbing on.
  await expect(seeds.addSeedsToggle).toBeVisible();
  await page.keyboard.press('Tab');
  await expect(seeds.addSeedsToggle).toBeFocused();
  await expect(seeds.addSeedsToggle).toHaveAttribute('aria-expanded', 'true');
  await page.keyboard.press('Tab');
  await expect(seeds.urlInput).toBeFocused();
  await expect(seeds.urlInput).toHaveCSS('outline-style', 'solid');
  await page.keyboard.type(site.url('/'));
  await page.keyboard.press('Tab');
  await expect(seeds.depthInput).toBeFocused();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.type('1');
  await page.keyboard.press('Enter');
  await expect(seeds.formStatus).toContainText(`Added ${site.url('/')}`);
  await expect(seeds.urlInput).toHaveValue('');
  await expect(seeds.urlInput).toBeFocused();
  await expect(await seeds.cell(site.url('/'), 'Depth')).toHaveText('1');

  // Back past the fold to the navigation, then Domains.
  await page.keyboard.press('Shift+Tab');
  await expect(seeds.addSeedsToggle).toBeFocused();
  await page.keyboard.press('Shift+Tab');
  await expect(seeds.navLink('Domains')).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/domains$/);
  await expect(domains.heading).toBeFocused();

  // The host's row: waiting for its turn, then crawling, the fetched count rising, and finally idle.
  // Each state is checked in words and colour at once (the badge of that state's class, with that text).
  const row = domains.row(site.host);
  const badge = (state: string) => row.locator(`.badge.state-${state}`);
  const fetched = domains.cell(site.host, 'Fetched');
  await expect(row).toBeVisible();
  await expect(badge('waiting')).toHaveText('waiting', { timeout: 30_000 });
  await expect(badge('crawling')).toHaveText('crawling', { timeout: 30_000 });
  await expect(fetched).toHaveText(/^[1-5]$/, { timeout: 30_000 }); // part of the site so far...
  await expect(badge('idle')).toHaveText('idle', { timeout: 30_000 });
  await expect(fetched).toHaveText(String(PAGES)); // ...then all of it
  await expect(domains.cell(site.host, 'Queued')).toHaveText('0');
  await expect(domains.cell(site.host, 'Errors')).toHaveText('0');
  // The delay, and under it the rule that set it (docs/politeness.md).
  await expect(domains.cell(site.host, 'Delay')).toHaveText(/^1\.0 s · Crawl-delay/);
  await expect(domains.cell(site.host, 'Delay').locator('.delay-reason')).toHaveText('robots.txt Crawl-delay');
  await expect(domains.cell(site.host, 'robots.txt')).toHaveText('ok (200)');
  await expect(domains.stat('Pages stored')).toHaveText(String(PAGES));

  // Search: the crawl is stored; once it is searchable, "lighthouse" finds the one page that has it.
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 30_000,
      message: `all ${PAGES} pages are searchable`,
    })
    .toBeGreaterThanOrEqual(PAGES);
  await domains.navigateTo('Search');
  await expect(search.searchBox).toBeFocused();
  await page.keyboard.type('lighthouse');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/\?q=lighthouse$/);
  await expect(search.summary).toContainText(/results? in/);
  const first = search.results.first();
  await expect(search.resultLinks().first()).toHaveText(`Page ${LIGHTHOUSE_PAGE}`);
  await expect(search.resultLinks().first()).toHaveAttribute('href', site.url(generatedPath(LIGHTHOUSE_PAGE)));
  await expect(first).toContainText(site.host);
  await expect(first.locator('mark')).toHaveText(['lighthouse']);
  await expect(first.locator('.snippet')).toContainText('the lighthouse keeper counts the boats');

  // The page's stored text: what Lantern indexed, the word marked, a way to the live page and back.
  await first.getByRole('link', { name: `Stored text of Page ${LIGHTHOUSE_PAGE}` }).click();
  await expect(page).toHaveURL(/\/stored\?url=.*&q=lighthouse$/);
  await expect(page.getByRole('heading', { level: 1, name: `Page ${LIGHTHOUSE_PAGE}` })).toBeFocused();
  await expect(page).toHaveTitle(`Stored text: Page ${LIGHTHOUSE_PAGE} — Lantern`);
  const stored = page.locator('.stored-text');
  await expect(stored).toContainText('the lighthouse keeper counts the boats');
  await expect(stored.locator('mark')).toHaveText(['lighthouse']);
  await expect(
    page.getByRole('link', { name: site.url(generatedPath(LIGHTHOUSE_PAGE)).replace(/^https?:\/\//, '') }),
  ).toHaveAttribute('href', site.url(generatedPath(LIGHTHOUSE_PAGE)));
  await page.getByRole('link', { name: 'Back to results for “lighthouse”' }).click();
  await expect(page).toHaveURL(/\/\?q=lighthouse$/);
  await expect(search.resultLinks().first()).toHaveText(`Page ${LIGHTHOUSE_PAGE}`);
});
