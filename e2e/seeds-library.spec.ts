/**
 * Seeds as a library (issue 30): ten thousand bookmarks are where a person lives, so the Seeds view
 * pages, searches, filters and acts on many seeds at once; a failed seed says why in its row; the
 * bookmarklet's add says it worked; a file dropped beside the drop box does not take the browser away;
 * every field has its own name.
 */
import type { Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { CapturePanel } from './pages/capture-panel.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

const pad = (n: number): string => String(n).padStart(3, '0');

/** Imports `n` bookmarks (titled "Bookmark 001"...) through the real import route, at depth 0. */
async function importBookmarks(page: Page, n: number): Promise<void> {
  const lines = Array.from(
    { length: n },
    (_, i) => `<DT><A HREF="https://bm${pad(i + 1)}.example/">Bookmark ${pad(i + 1)}</A>`,
  );
  const file = `<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n${lines.join('\n')}\n</DL><p>\n`;
  const answer = await page.request.post('/api/seeds/import', { data: { file, depth: 0 } });
  expect(answer.status(), await answer.text()).toBe(200);
}

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

test('a library of seeds: folded forms, title first, pages, search, and one action on many', async ({ page }) => {
  const seeds = new SeedsPage(page);
  await importBookmarks(page, 120);
  await seeds.open();

  // The forms are folded away once there are seeds; the list comes first.
  await expect(seeds.addSeedsToggle).toHaveAttribute('aria-expanded', 'false');
  await expect(seeds.urlInput).toBeHidden();
  // Title first, the URL beneath; one page of 50 of the 120, newest first.
  await expect(seeds.row('https://bm120.example/').getByRole('rowheader')).toHaveText(
    /^Bookmark 120https:\/\/bm120\.example\//,
  );
  await expect(page.getByText('Seeds 1–50 of 120')).toBeVisible();
  await expect(seeds.table.getByRole('rowheader')).toHaveCount(50);
  await page.getByRole('button', { name: 'Next 50 seeds' }).click();
  await expect(page.getByText('Seeds 51–100 of 120')).toBeVisible();
  await expect(seeds.row('https://bm070.example/')).toBeVisible();

  // Search within seeds, by title: back to the first page of what matches.
  await seeds.search.fill('bookmark 007');
  await expect(seeds.table.getByRole('rowheader')).toHaveCount(1);
  await expect(seeds.row('https://bm007.example/')).toBeVisible();
  await seeds.search.fill('');
  await page.getByLabel('Sort by').selectOption('title');
  await expect(seeds.table.getByRole('rowheader').first()).toHaveText(/^Bookmark 001/);

  // Select three, label them in one request, with the count in the question.
  const bulkRequests: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/seeds/') && r.method() !== 'GET') bulkRequests.push(r.url());
  });
  for (const n of ['001', '002', '003']) await page.getByRole('checkbox', { name: `Select Bookmark ${n}` }).check();
  const selection = page.getByRole('region', { name: 'Selected seeds' });
  await expect(selection).toContainText('3 seeds selected');
  await selection.getByRole('button', { name: 'Add label…' }).click();
  await expect(selection).toContainText('Add these labels to 3 seeds?');
  await selection.getByLabel('Labels to add').fill('Later');
  await selection.getByRole('button', { name: 'Add label (3)' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Labelled 3 seeds later.' })).toBeVisible();
  expect(bulkRequests.map((u) => new URL(u).pathname)).toEqual(['/api/seeds/bulk']);
  const capture = new CapturePanel(page);
  await expect(capture.labels('https://bm002.example/')).toHaveText(['later']);
  await capture.labelFilter.selectOption('later');
  await expect(seeds.table.getByRole('rowheader')).toHaveCount(3);

  // At 1280 px nothing is wider than the screen, and every row's Remove is in reach.
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  const remove = await seeds.removeButton('https://bm003.example/').boundingBox();
  expect(remove!.x + remove!.width).toBeLessThanOrEqual(1280);

  // Remove all three at once.
  await page.getByRole('checkbox', { name: 'Select every seed on this page' }).check();
  await selection.getByRole('button', { name: 'Remove…' }).click();
  await expect(selection).toContainText('Remove 3 seeds and their pages from search?');
  await selection.getByRole('button', { name: 'Remove (3)' }).click();
  await expect(page.getByRole('status').filter({ hasText: /^Removed 3 seeds/ })).toBeVisible();
  await expect(seeds.table).toHaveCount(0);
  expect(bulkRequests).toHaveLength(2);
  await capture.labelFilter.selectOption('');
  await expect(page.getByText('117 seeds')).toBeVisible();

  // On a phone: rows, not cards, and no sideways scroll.
  await page.setViewportSize({ width: 360, height: 740 });
  await expect(seeds.row('https://bm004.example/')).toBeVisible();
  expect(await sidewaysOverflow(page)).toBeLessThanOrEqual(0);
  const row = await seeds.row('https://bm004.example/').boundingBox();
  expect(row!.height, 'a seed is a compact row on a phone').toBeLessThanOrEqual(140);
});

test('a seed whose page could not be stored reads "failed" in its row, with the reason', async ({ page }) => {
  web = await startTestWeb([
    {
      robots: 'User-agent: *\nAllow: /\n',
      pages: {
        '/big.pdf': {
          body: Buffer.alloc(Math.round(6.2 * 1024 * 1024), 0x20),
          headers: { 'content-type': 'application/pdf' },
        },
      },
    },
  ]);
  const url = web.sites[0].url('/big.pdf');
  const seeds = new SeedsPage(page);
  await seeds.open();
  await seeds.addSeed(url, { depth: 0 });
  const progress = await seeds.cell(url, 'Progress');
  await expect(progress).toContainText('failed', { timeout: 30_000 });
  await expect(progress).toContainText('over the 5 MiB limit');
  await expect(progress).not.toContainText('done');
  await page.getByLabel('State', { exact: true }).selectOption('failed');
  await expect(seeds.row(url)).toBeVisible();
  await page.getByLabel('State', { exact: true }).selectOption('done');
  await expect(seeds.row(url)).toHaveCount(0);
});

test('the bookmarklet: Add seed says it worked, the next add has the usual depth, the link explains itself', async ({
  page,
}) => {
  const seeds = new SeedsPage(page);
  const first = 'https://kept.example/article';
  await page.goto(`/seeds?add=${encodeURIComponent(first)}&title=A%20kept%20article`);
  await expect(seeds.urlInput).toHaveValue(first);
  await expect(seeds.depthInput).toHaveValue('0');
  await seeds.addButton.click();
  await expect(seeds.formStatus).toHaveText(`Added ${first}. Crawling starts shortly.`);
  await expect(page).toHaveURL(/\/seeds$/);
  await expect(seeds.depthInput).toHaveValue('2');
  await expect(await seeds.cell(first, 'Depth')).toHaveText('0');

  const second = 'https://next.example/';
  await seeds.addSeed(second);
  await expect(await seeds.cell(second, 'Depth')).toHaveText('2');

  // "Add to Lantern" looks like a button: clicked here, it says what it is for.
  const capture = new CapturePanel(page);
  await capture.bookmarklet.click();
  await expect(page.getByRole('status').filter({ hasText: /is a bookmarklet/ })).toContainText(
    'Drag it to your bookmarks bar',
  );
  await expect(page).toHaveURL(/\/seeds$/);
});

test('a file dropped beside the drop box is taken for import, and the browser never opens it', async ({ page }) => {
  const seeds = new SeedsPage(page);
  await seeds.open();
  await expect(seeds.emptyList).toBeVisible();
  const dataTransfer = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(['https://dropped.example/\n'], 'bookmarks.txt', { type: 'text/plain' }));
    return transfer;
  });
  await page.getByRole('heading', { name: 'Seed list' }).dispatchEvent('drop', { dataTransfer });
  await expect(page.getByRole('form', { name: 'Import bookmarks' }).getByText('Ready: bookmarks.txt')).toBeVisible();

  // On any view, the browser's own handling of a dropped file (opening it, leaving Lantern) is cancelled.
  await seeds.navigateTo('Search');
  const prevented = await page.evaluate(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(['x'], 'notes.html', { type: 'text/html' }));
    const over = new DragEvent('dragover', { bubbles: true, cancelable: true, dataTransfer: transfer });
    const drop = new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: transfer });
    document.body.dispatchEvent(over);
    document.body.dispatchEvent(drop);
    return { over: over.defaultPrevented, drop: drop.defaultPrevented };
  });
  expect(prevented).toEqual({ over: true, drop: true });
});

test('each field has its own name, and the hints say where their choice is', async ({ page }) => {
  const seeds = new SeedsPage(page);
  await seeds.open();
  await seeds.openForms();
  await expect(page.getByLabel('Depth', { exact: true })).toHaveCount(1);
  await expect(page.getByLabel('Scope', { exact: true })).toHaveCount(1);
  await expect(page.getByLabel('Import depth', { exact: true })).toHaveCount(1);
  await expect(page.getByLabel('Import scope', { exact: true })).toHaveCount(1);
  await expect(seeds.bulkInput).toHaveAccessibleDescription('Each line uses the Depth and Scope chosen in Add a seed.');
  await expect(page.getByText(/chosen above/)).toHaveCount(0);
});
