/**
 * Issue 30, the search half, as a person meets it in Chromium over sites crawled by the real crawler:
 * pages of results one site cannot fill (every page but the last holds ten, "More from HOST" leads to
 * the site's own search, Back returns to the page and scroll left), operators alone listing what they
 * select, a PDF's headings completing and ranking with its result opening at the cited page, the missed
 * correction and OR mode's "Missing:", lower-case completions and a no-results tip naming no
 * unindexed site.
 */
import type { APIRequestContext } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { SearchPage } from './pages/search-page.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import type { SiteSpec, TestWeb } from '../test-support/test-web.ts';
import { docSite } from '../test-support/doc-site.ts';
import type { DocPage } from '../test-support/doc-site.ts';
import { textPdf } from '../test-support/pdf-files.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

/** `n` pages about merging, each its own (distinct text, so none is folded as a copy of another). */
function mergePages(prefix: string, n: number): DocPage[] {
  return Array.from({ length: n }, (_, i) => ({
    path: `/${prefix}-${i + 1}.html`,
    title: `Merge ${prefix} ${i + 1}`,
    sections: [{ heading: `Strategy ${i + 1}`, text: `How ${prefix} number ${i + 1} does a merge of branches.` }],
  }));
}

/** Seeds every site at depth 2 and waits until `want` pages are searchable and the title index has `probe`. */
async function crawl(request: APIRequestContext, w: TestWeb, want: number, probe: string): Promise<void> {
  for (const site of w.sites)
    expect(
      (await request.post('/api/seeds', { data: { url: site.url('/'), depth: 2, labels: ['docs'] } })).status(),
    ).toBe(201);
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 60_000,
      message: `all ${want} pages are searchable`,
    })
    .toBeGreaterThanOrEqual(want);
  await expect
    .poll(
      async () =>
        (
          (await (await request.get(`/api/suggest?q=${encodeURIComponent(probe)}`)).json()) as {
            suggestions: unknown[];
          }
        ).suggestions.length,
      { timeout: 10_000 },
    )
    .toBeGreaterThan(0);
}

/** The hosts of the results shown, in order. */
async function shownHosts(search: SearchPage): Promise<string[]> {
  return search.results.locator('.result-host').allTextContents();
}

/** One site of 24 pages about merging and four small ones of 2, crawled. */
async function crawlMergeSites(request: APIRequestContext): Promise<TestWeb> {
  const specs: SiteSpec[] = [docSite('Big', mergePages('big', 24))];
  for (const name of ['one', 'two', 'three', 'four']) specs.push(docSite(`Small ${name}`, mergePages(name, 2)));
  const w = await startTestWeb(specs);
  await crawl(request, w, 24 + 3 + 4 * (2 + 3), 'merge big 2');
  return w;
}

test('results fill the page: two of a site while others can fill it, every page full, More from HOST', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  web = await crawlMergeSites(request);
  const big = web.sites[0].host;
  const search = new SearchPage(page);
  await search.open('merge');
  await expect(search.results).toHaveCount(10);
  const total = Number(((await search.summary.textContent()) ?? '').match(/^([\d,]+) results?/)?.[1].replace(/,/g, ''));
  expect(total).toBeGreaterThan(30);
  const hosts = await shownHosts(search);
  for (const host of new Set(hosts)) expect(hosts.filter((h) => h === host).length, host).toBeLessThanOrEqual(2);
  await expect(search.results.getByRole('link', { name: /More from this site/ }).first()).toBeVisible();

  // Every page but the last holds ten results; the pages together show each result once.
  const pages = Math.ceil(total / 10);
  const seen = new Set(await search.resultLinks().evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).href)));
  for (let p = 2; p <= pages; p++) {
    await search.nextButton.click();
    await expect(page).toHaveURL(new RegExp(`page=${p}`));
    await expect(search.results).toHaveCount(p < pages ? 10 : total - 10 * (pages - 1));
    for (const href of await search.resultLinks().evaluateAll((els) => els.map((e) => (e as HTMLAnchorElement).href)))
      seen.add(href);
  }
  expect(seen.size).toBe(total);

  // "More from HOST" on the big site's last result of page 1: its site: search, only its pages.
  await search.open('merge');
  const more = search.main.getByRole('link', { name: `More from ${big}` });
  await expect(more).toHaveCount(1);
  await more.click();
  await expect(search.searchBox).toHaveValue(`site:${big} merge`);
  await expect(search.results).toHaveCount(10);
  expect(new Set(await shownHosts(search))).toEqual(new Set([big]));
});

test('Back from a result of page 2 returns to page 2, its ten results and the scroll left', async ({
  page,
  request,
}) => {
  test.setTimeout(150_000);
  web = await crawlMergeSites(request);
  const search = new SearchPage(page);
  // Page 2: scroll to its ninth result, open it, come Back: the same page, the same ten, the same scroll.
  await search.open('merge');
  await search.nextButton.click();
  await expect(page).toHaveURL(/page=2/);
  await expect(search.resultLinks(), 'ten results shown, none folded away').toHaveCount(10);
  const ninth = search.resultLinks().nth(8);
  await ninth.scrollIntoViewIfNeeded();
  await page.evaluate(() => window.scrollBy(0, 40));
  const scrolled = await page.evaluate(() => Math.round(window.scrollY));
  expect(scrolled).toBeGreaterThan(100);
  const title = (await ninth.textContent()) ?? '';
  await ninth.click();
  await expect(page).toHaveTitle(new RegExp(title.split(' — ')[0]));
  await page.goBack();
  await expect(page).toHaveURL(/page=2/);
  await expect(search.results).toHaveCount(10);
  await expect(search.resultLinks().nth(8)).toHaveText(title);
  await expect.poll(() => page.evaluate(() => Math.round(window.scrollY))).toBe(scrolled);
});

/** A site with an R manual as a PDF (its heading "The recycling rule" on page 3) and one with a Python page, crawled. */
async function crawlManuals(request: APIRequestContext): Promise<TestWeb> {
  const filler = 'Numbers and text in this manual are written for the patient reader of a long document.';
  const manual = await textPdf({
    title: 'An Introduction to R',
    pages: [
      { lines: ['An Introduction to R', filler], heading: true },
      { lines: ['Vectors', filler, 'Arithmetic on vectors is done element by element.'] },
      {
        lines: [
          `${filler}`,
          'The recycling rule',
          'Shorter vectors in an expression are reused to the longest length.',
        ],
      },
    ],
  });
  const w = await startTestWeb([
    {
      robots: 'User-agent: *\nAllow: /\n',
      pages: {
        '/': '<!doctype html><title>R manuals</title><h1>R manuals</h1><p>Read <a href="/R-intro.pdf">the introduction</a>.</p>',
        '/R-intro.pdf': { body: manual, headers: { 'content-type': 'application/pdf' } },
      },
    },
    {
      robots: 'User-agent: *\nAllow: /\n',
      pages: {
        '/': '<!doctype html><title>Python memory</title><h1>Memory</h1><p>See <a href="/gc.html">the collector</a>.</p>',
        '/gc.html':
          '<!doctype html><title>Garbage collector interface</title><h1>Garbage collector</h1><p>Freed blocks may be recycled. As a rule the collector runs often.</p>',
      },
    },
  ]);
  await crawl(request, w, 4, 'garbage coll');
  return w;
}

test('operators alone list what they select, newest first, in the usual layout', async ({ page, request }) => {
  test.setTimeout(120_000);
  web = await crawlManuals(request);
  const pySite = web.sites[1];
  const search = new SearchPage(page);

  // filetype:pdf alone: all the PDFs, in the usual layout (was "Search failed." in a red box).
  await search.open('filetype:pdf');
  await expect(search.error).toHaveCount(0);
  await expect(search.resultLinks()).toHaveText(['An Introduction to R']);
  await expect(search.results.first()).toContainText('PDF');
  await search.open(`site:${pySite.host}`);
  await expect(search.resultLinks()).toHaveText([
    /Garbage collector interface|Python memory/,
    /Garbage collector interface|Python memory/,
  ]);
  await search.open('label:docs');
  await expect(search.results).toHaveCount(4);
  await expect(search.summary).toContainText('4 results');
});

test('a PDF heading completes what is typed, ranks as a heading, and its result opens the PDF at its page', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  web = await crawlManuals(request);
  const rSite = web.sites[0];
  const search = new SearchPage(page);

  // The PDF's heading completes what is typed...
  await search.open();
  await search.searchBox.fill('recycl');
  await expect(search.suggestions.getByRole('option', { name: 'recycling rule' })).toBeVisible();
  // ...ranks above a page that only says "may be recycled", and the result opens the PDF at its page.
  await search.open('recycling rule');
  await expect(search.resultLinks()).toHaveText(['An Introduction to R', 'Garbage collector interface']);
  await expect(search.results.first()).toContainText('page 3');
  await expect(search.resultLinks().first()).toHaveAttribute('href', `${rSite.url('/R-intro.pdf')}#page=3`);
});

/** A small documentation site about asyncio tasks and zebra crossings, crawled. */
async function crawlAsync(request: APIRequestContext): Promise<TestWeb> {
  const w = await startTestWeb([
    docSite('Async', [
      {
        path: '/asyncio-task.html',
        title: 'Coroutines and Tasks',
        sections: [
          { heading: 'Creating Tasks', text: 'Create tasks with asyncio. Awaiting a coroutine takes a loop.' },
        ],
      },
      {
        path: '/zebra.html',
        title: 'Zebra crossings',
        sections: [{ heading: 'Stripes', text: 'A zebra crossing has stripes.' }],
      },
    ]),
  ]);
  await crawl(request, w, 5, 'coroutines and');
  return w;
}

test('a missed correction ("asyncio taks"), and OR mode names the words each result is missing', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  web = await crawlAsync(request);
  const search = new SearchPage(page);

  await search.open('asyncio taks');
  await expect(search.main.getByText(/Showing results for/)).toHaveText(
    'Showing results for asyncio tasks; search instead for asyncio taks.',
  );
  await expect(search.resultLinks().first()).toHaveText(/Coroutines and Tasks/);

  // Words of the text only (every page's sidebar lists every title): no page has both.
  await search.open('awaiting stripes');
  await expect(search.main.getByText(/showing pages that contain some of them/)).toBeVisible();
  const coroutine = search.results.filter({ hasText: 'Coroutines and Tasks' }).first();
  await expect(coroutine.getByText(/^Missing:/)).toHaveText('Missing: stripes');
  const zebra = search.results.filter({ hasText: 'Zebra crossings' }).first();
  await expect(zebra.getByText(/^Missing:/)).toHaveText('Missing: awaiting');
});

test('completions are lower case, and the no-results tip names no site that is not indexed', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  web = await crawlAsync(request);
  const search = new SearchPage(page);

  await search.open();
  // After a space, the next word of the title "Coroutines and Tasks": added in lower case.
  await search.searchBox.fill('coroutines and ');
  await expect(search.suggestions.getByRole('option').first()).toHaveText('coroutines and tasks');

  await search.open('qqqzzx');
  await expect(search.main.getByText(/No pages match/)).toBeVisible();
  await expect(search.main).not.toContainText('docs.python.org');
});
