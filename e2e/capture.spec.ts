/**
 * Personal capture in the browser: a person imports a browser's bookmark export through the picker, sees
 * the seeds appear with their folders as labels (and the refused lines with their reasons), filters the
 * Seeds view by label, finds a bookmarked PDF with filetype:pdf and a page with label:, edits labels in a
 * row, and adds the page they are on through the bookmarklet (which only opens the form).
 */
import { writeFileSync } from 'node:fs';
import { expect, test } from './fixtures.ts';
import { CapturePanel } from './pages/capture-panel.ts';
import { SearchPage } from './pages/search-page.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';
import { textPdf } from '../test-support/pdf-files.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

test('import a bookmark file, see labels, search label: and filetype:pdf', async ({ page }, testInfo) => {
  const manual = await textPdf({
    title: 'Lens grinding manual',
    pages: [
      { lines: ['Chapter one', 'Polish the lens slowly.'] },
      { lines: ['Chapter two', 'Zebrafinch mirrors need care.'] },
    ],
  });
  web = await startTestWeb([
    {
      robots: 'User-agent: *\nAllow: /\n',
      pages: {
        '/manual.pdf': { body: manual, headers: { 'content-type': 'application/pdf' } },
        '/soup.html':
          '<!doctype html><title>Pumpkin soup</title><h1>Pumpkin soup</h1><p>Roast the pumpkin with nutmeg first.</p>',
      },
    },
  ]);
  const site = web.sites[0];
  const file = testInfo.outputPath('bookmarks.html');
  writeFileSync(
    file,
    `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p>
    <DT><H3 PERSONAL_TOOLBAR_FOLDER="true">Bookmarks bar</H3>
    <DL><p>
        <DT><H3>Optics Docs</H3>
        <DL><p>
            <DT><A HREF="${site.url('/manual.pdf')}" ADD_DATE="1700000000">The manual</A>
        </DL><p>
        <DT><H3>Kitchen</H3>
        <DL><p>
            <DT><A HREF="${site.url('/soup.html')}">Soup &amp; more</A>
            <DT><A HREF="javascript:alert(1)">A bookmarklet</A>
        </DL><p>
    </DL><p>
</DL><p>
`,
  );
  const seeds = new SeedsPage(page);
  const capture = new CapturePanel(page);
  await seeds.open();
  await capture.importFile(file);
  await expect(capture.importStatus).toContainText(
    'bookmarks.html: 2 new seeds, 0 merged with seeds already there, 1 refused.',
  );
  await expect(capture.refused).toHaveCount(1);
  await expect(capture.refused.first()).toContainText('Line 15 (A bookmarklet): unsupported-scheme');

  await expect(seeds.row(site.url('/manual.pdf'))).toBeVisible();
  await expect(capture.labels(site.url('/manual.pdf'))).toHaveText(['optics-docs']);
  await expect(capture.labels(site.url('/soup.html'))).toHaveText(['kitchen']);
  await expect(seeds.row(site.url('/soup.html'))).toContainText('Soup & more');
  await expect(await seeds.cell(site.url('/manual.pdf'), 'Depth')).toHaveText('0');

  await page.screenshot({ path: testInfo.outputPath('seeds-after-import.png'), fullPage: true });
  await capture.labelFilter.selectOption('kitchen');
  await expect(page).toHaveURL(/\/seeds\?label=kitchen$/);
  await expect(seeds.row(site.url('/soup.html'))).toBeVisible();
  await expect(seeds.row(site.url('/manual.pdf'))).toHaveCount(0);
  await capture.labelFilter.selectOption('');

  // Both are crawled (depth 0: just the page each).
  await expect(await seeds.cell(site.url('/manual.pdf'), 'Fetched')).toHaveText('1', { timeout: 45_000 });
  await expect(await seeds.cell(site.url('/soup.html'), 'Fetched')).toHaveText('1', { timeout: 45_000 });

  const search = new SearchPage(page);
  await search.open('zebrafinch filetype:pdf');
  await expect(search.resultLinks()).toHaveText(['Lens grinding manual']);
  await expect(search.results.first()).toContainText('PDF');
  await expect(search.results.first()).toContainText('page 2');
  await expect(search.results.first()).toContainText('label: optics-docs');
  await page.screenshot({ path: testInfo.outputPath('search-filetype-pdf.png') });
  await search.open('pumpkin filetype:pdf');
  await expect(search.resultLinks()).toHaveCount(0);
  await search.open('label:kitchen pumpkin');
  await expect(search.resultLinks()).toHaveText(['Pumpkin soup']);
  await search.open('label:optics-docs pumpkin');
  await expect(search.resultLinks()).toHaveCount(0);
});

test("labels are added and removed in a seed's row", async ({ page }) => {
  const seeds = new SeedsPage(page);
  const capture = new CapturePanel(page);
  await seeds.open();
  await seeds.openForms();
  await seeds.urlInput.fill('https://labels.example/');
  await page.getByRole('form', { name: 'Add a seed' }).getByLabel('Labels').fill('Reading, Later');
  await seeds.addButton.click();
  const url = 'https://labels.example/';
  await expect(capture.labels(url)).toHaveText(['later', 'reading']);
  // No input on every row: one button opens the row's label editor in place.
  await expect(page.getByLabel(`New label for ${url}`)).toHaveCount(0);
  await page.getByRole('button', { name: `Edit labels of ${url}` }).click();
  await expect(page.getByLabel(`New label for ${url}`)).toBeFocused();
  await page.getByLabel(`New label for ${url}`).fill('Dev Tools');
  await page.getByRole('button', { name: `Add label to ${url}` }).click();
  await expect(capture.labels(url)).toHaveText(['dev-tools×', 'later×', 'reading×']);
  await page.getByRole('button', { name: `Remove label later from ${url}` }).click();
  await expect(capture.labels(url)).toHaveText(['dev-tools×', 'reading×']);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(capture.labels(url)).toHaveText(['dev-tools', 'reading']);
});

test('the bookmarklet opens the add form filled in with the page; nothing is added until the person confirms', async ({
  page,
  context,
}) => {
  web = await startTestWeb([
    {
      robots: 'User-agent: *\nAllow: /\n',
      pages: { '/article.html': '<!doctype html><title>A fine article</title><p>Words worth keeping.</p>' },
    },
  ]);
  const article = web.sites[0].url('/article.html');
  const seeds = new SeedsPage(page);
  const capture = new CapturePanel(page);
  await seeds.open();
  const code = await capture.bookmarklet.getAttribute('href');
  expect(code).toMatch(/^javascript:/);

  // The person is on another site's page and clicks the bookmarklet there.
  const other = await context.newPage();
  await other.goto(article);
  const opened = context.waitForEvent('page');
  await other.evaluate((source) => {
    // What a browser does with a javascript: bookmark: run its code on the current page.
    new Function(decodeURIComponent(source.slice('javascript:'.length)))();
  }, code!);
  const form = await opened;
  await form.waitForLoadState();
  expect(new URL(form.url()).pathname).toBe('/seeds');
  const formSeeds = new SeedsPage(form);
  const formCapture = new CapturePanel(form);
  await expect(formSeeds.urlInput).toHaveValue(article);
  await expect(formCapture.prefillNote).toContainText('A fine article');
  await expect(formSeeds.depthInput).toHaveValue('0');
  // Nothing was added by opening the form.
  const before = await (await form.request.get('/api/seeds')).json();
  expect(before.seeds).toEqual([]);
  await formSeeds.addButton.click();
  await expect(formSeeds.row(article)).toBeVisible();
  await expect(formSeeds.row(article)).toContainText('A fine article');
  await expect(form).toHaveURL(/\/seeds$/);
});
