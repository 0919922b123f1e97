/**
 * A crawl a person can watch finish: per seed a progress bar and "done at HH:MM" (and "Crawl again"
 * only then), the header saying idle once no host has work, a host's Errors agreeing with its
 * timeline, and on a phone the hosts first with sorting as one control. Screenshots at 360 px and
 * desktop, light and dark.
 */
import type { Page, TestInfo } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { generateSite, startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const file = testInfo.outputPath(`${name}.png`);
  await page.screenshot({ path: file });
  await testInfo.attach(name, { path: file, contentType: 'image/png' });
}

test('a seed\'s progress to "done at", the header idle after, errors that agree with the timeline, hosts first on a phone', async ({
  page,
}, testInfo) => {
  test.setTimeout(150_000);
  // A slow site (each answer takes 400 ms) with one broken link, and a quick one.
  const slow = generateSite({ pages: 8, delayMs: 400 });
  slow.pages['/'] = `${String(slow.pages['/']).replace('</body>', '<a href="/gone">a page that is gone</a></body>')}`;
  web = await startTestWeb([slow, generateSite({ pages: 3, prefix: 'quick' })]);
  const [site, quick] = web.sites;
  const seeds = new SeedsPage(page);
  await seeds.open();
  await seeds.addSeed(site.url('/'), { depth: 1 });
  // The form clears its URL once the seed is added: the next one is typed after that, not into the pending form.
  await expect(seeds.row(site.url('/'))).toBeVisible();
  await seeds.addSeed(quick.url('/'), { depth: 1 });
  await expect(seeds.row(quick.url('/'))).toBeVisible();

  // While it runs: a progress bar, how much is queued, and no "Crawl again" (it is being crawled).
  const row = seeds.row(site.url('/'));
  const progress = row.getByRole('progressbar');
  await expect(progress).toBeVisible();
  await expect(row.locator('.seed-phase')).toHaveText(/^\d+ queued$|^starting$/);
  await expect(seeds.crawlAgainButton(site.url('/'))).toHaveCount(0);
  await expect(row.locator('.seed-progress-text')).toContainText(/\d+ fetched of \d+ found/);
  await shot(page, testInfo, 'seeds-crawling-desktop-light');

  // Then done, at a time of day, with the bar full; now it can be crawled again.
  await expect(row.locator('.seed-phase')).toHaveText(/^done at \d\d:\d\d$/, { timeout: 60_000 });
  await expect(progress).toHaveAttribute('value', (await progress.getAttribute('max')) ?? 'missing');
  await expect(seeds.crawlAgainButton(site.url('/'))).toBeVisible();
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height, name] of [
      [1280, 800, 'desktop'],
      [360, 740, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await shot(page, testInfo, `seeds-done-${name}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 800 });

  // Domains: nothing left to do, so the header says idle; the broken link is an error in the row and on the timeline.
  const domains = new DomainsPage(page);
  await domains.navigateTo('Domains');
  await expect(domains.stat('Crawler')).toHaveText('idle', { timeout: 15_000 });
  await expect(domains.cell(site.host, 'Errors')).toHaveText('1');
  await expect(domains.cell(quick.host, 'Errors')).toHaveText('0');
  await domains.hostButton(site.host).click();
  const legend = domains.table.getByRole('list', { name: 'Legend' });
  await expect(legend).toContainText('4xx (1)');
  await expect(legend).toContainText('no robots.txt (1)');
  await expect(domains.row(site.host)).toContainText('/gone answered HTTP 404');
  await domains.hostButton(site.host).click();

  // On a phone: the hosts come before the crawl-wide numbers, and sorting is one control.
  await page.setViewportSize({ width: 360, height: 740 });
  const firstHost = domains.table.getByRole('rowheader').first();
  await expect(firstHost).toBeInViewport();
  const sort = page.getByLabel('Sort', { exact: true });
  await expect(sort).toBeVisible();
  // The nine column sort buttons are out of sight (kept for screen readers, as the seed table's header is).
  const header = await domains.table.locator('thead').boundingBox();
  expect(header === null || (header.width <= 1 && header.height <= 1), JSON.stringify(header)).toBe(true);
  await sort.selectOption({ label: 'Most fetched' });
  await expect(firstHost).toHaveAccessibleName(site.host);
  const statsTop = await domains.stats.evaluate((el) => el.getBoundingClientRect().top);
  const hostTop = await firstHost.evaluate((el) => el.getBoundingClientRect().top);
  expect(hostTop).toBeLessThan(statsTop);
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height, name] of [
      [1280, 800, 'desktop'],
      [360, 740, 'phone'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await shot(page, testInfo, `domains-${name}-${scheme}`);
    }
  }
});
