/**
 * Search in the browser against a crawled loopback site: the query lives in the URL (Enter, pages,
 * back button, shared links), matches are highlighted, "More from this site" narrows to one host,
 * suggestions are debounced and work from the keyboard, an empty result points to Seeds, and a
 * failed search says why.
 */
import { expect, test } from './fixtures.ts';
import { SearchPage } from './pages/search-page.ts';
import { generateSite, startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

test('search by keyboard: suggestions, results in the URL, pages, back button, one site, empty state', async ({
  page,
  request,
}) => {
  // Two sites: 14 pages mention "harbour" on the first (two result pages), 2 on the second.
  web = await startTestWeb([
    generateSite({ pages: 14, words: () => 'harbour lights' }),
    generateSite({ pages: 2, words: () => 'harbour tide', prefix: 'other' }),
  ]);
  const [big, small] = web.sites;
  for (const site of web.sites) {
    expect((await request.post('/api/seeds', { data: { url: site.url('/'), depth: 1 } })).status()).toBe(201);
  }
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 40_000,
      message: 'all 16 pages get indexed',
    })
    .toBeGreaterThanOrEqual(16);

  // The page's clock is Playwright's (time flows as usual until the test pauses it), so that the typing
  // below is as quick as a typist can be, whatever the machine's load.
  await page.clock.install();
  const search = new SearchPage(page);
  await search.open();
  await expect(search.searchBox).toBeFocused();

  // A browser can add Lantern as a search engine: the page links its OpenSearch description.
  const openSearch = page.locator('link[rel="search"]');
  await expect(openSearch).toHaveAttribute('type', 'application/opensearchdescription+xml');
  await expect(openSearch).toHaveAttribute('title', 'Lantern');
  const description = await request.get((await openSearch.getAttribute('href')) ?? 'missing');
  expect(description.status()).toBe(200);
  const xml = await description.text();
  expect(xml).toContain('template="http://127.0.0.1:');
  expect(xml).toContain('/?q={searchTerms}"');
  expect(xml).toContain('type="application/x-suggestions+json"');
  await expect(search.navLink('Search')).toHaveAttribute('aria-current', 'page');

  // Suggestions wait for a pause in typing: keys typed with no pause between them (the page's clock held
  // still while they are typed) cost one request, for the whole text, once the pause has lasted.
  const suggestAsked: string[] = [];
  page.on('request', (sent) => {
    const url = new URL(sent.url());
    if (url.pathname === '/api/suggest') suggestAsked.push(url.searchParams.get('q') ?? '');
  });
  const typed = 'harbour lights';
  const typedAnswered = page.waitForResponse((response) => new URL(response.url()).searchParams.get('q') === typed);
  await page.clock.pauseAt(Date.now() + 1_000);
  await search.searchBox.pressSequentially(typed);
  expect(suggestAsked, 'nothing asked while the keys come with no pause').toEqual([]);
  await page.clock.runFor(60); // as long as a quick typist's gap between two keys
  expect(suggestAsked, 'nothing asked within a gap between keys').toEqual([]);
  await page.clock.runFor(1_000); // the pause after the last key
  await typedAnswered;
  await page.clock.resume();
  expect(suggestAsked, `suggest requests for ${typed.length} keys`).toEqual([typed]);
  await search.searchBox.fill('');
  await expect(search.suggestions).toBeHidden();

  // Titles are "Page N". The list stays up while the next letter's suggestions load (no flicker).
  const options = search.suggestions.getByRole('option');
  await search.searchBox.pressSequentially('pag');
  await expect(options.first()).toBeVisible();
  const flicker = await search.suggestions.evaluateHandle((list) => {
    const seen = { gone: false };
    new MutationObserver(() => {
      if (list.hasAttribute('hidden') || list.children.length === 0) seen.gone = true;
    }).observe(list, { attributes: true, childList: true });
    return seen;
  });
  const pageAnswered = page.waitForResponse((response) => new URL(response.url()).searchParams.get('q') === 'page');
  await search.searchBox.press('e');
  await pageAnswered;
  await expect(options.first()).toBeVisible();
  expect(await flicker.evaluate((seen) => seen.gone), 'the list was hidden or emptied while typing').toBe(false);

  // ArrowDown picks a suggestion, Escape closes the list and keeps the text.
  await expect(search.searchBox).toHaveAttribute('aria-expanded', 'true');
  await search.searchBox.press('ArrowDown');
  const chosen = search.suggestions.getByRole('option', { selected: true });
  await expect(chosen).toHaveCount(1);
  await expect(search.searchBox).toHaveAttribute(
    'aria-activedescendant',
    (await chosen.getAttribute('id')) ?? 'missing',
  );
  await search.searchBox.press('Escape');
  await expect(search.suggestions).toBeHidden();
  await expect(search.searchBox).toHaveAttribute('aria-expanded', 'false');
  await expect(search.searchBox).toHaveValue('page');

  // ArrowDown reopens the list; the second suggestion is a completion of a title ("page N" for "Page N"), and
  // Enter searches for it. (A title suggestion would open its page: e2e/search-experience.spec.ts.)
  await search.searchBox.press('ArrowDown');
  await search.searchBox.press('ArrowDown');
  await expect(search.suggestionText(chosen)).toHaveText(/^page \d+$/);
  const pageN = (await search.suggestionText(chosen).textContent()) ?? 'missing';
  await search.searchBox.press('Enter');
  await expect(page).toHaveURL((url) => url.searchParams.get('q') === pageN);
  await expect(search.searchBox).toHaveValue(pageN);
  await expect(search.suggestions).toBeHidden();
  await expect(search.resultLinks().first()).toHaveText(pageN.replace('page', 'Page'));
  const pageZeroResults = await search.resultLinks().allTextContents();

  await search.search('harbour');
  await expect(page).toHaveURL(/\/\?q=harbour$/);
  await expect(search.summary).toContainText('16 results in');
  await expect(search.results).toHaveCount(10);

  // Back to the previous query and forward again: the box and the results follow the URL.
  await page.goBack();
  await expect(search.searchBox).toHaveValue(pageN);
  await expect(search.resultLinks()).toHaveText(pageZeroResults);
  await page.goForward();
  await expect(search.searchBox).toHaveValue('harbour');
  await expect(search.summary).toContainText('16 results in');
  await expect(search.results).toHaveCount(10);
  await expect(search.results.first().locator('mark').first()).toHaveText(/harbour/i);
  await expect(search.resultLinks().first()).toHaveAttribute('rel', 'noopener noreferrer');
  await expect(search.previousButton).toBeDisabled();

  await search.nextButton.click();
  await expect(page).toHaveURL(/\/\?q=harbour&page=2$/);
  await expect(search.results).toHaveCount(6);
  await expect(search.nextButton).toBeDisabled();
  const secondPageFirst = await search.resultLinks().first().getAttribute('href');

  // Back to page 1, forward to page 2: the URL alone restores the results.
  await page.goBack();
  await expect(page).toHaveURL(/\/\?q=harbour$/);
  await expect(search.results).toHaveCount(10);
  await page.goForward();
  await expect(search.results).toHaveCount(6);
  await expect(search.resultLinks().first()).toHaveAttribute('href', secondPageFirst ?? 'missing');

  // A result's stored text, and back to the page of results it was opened from.
  await search.results
    .first()
    .getByRole('link', { name: /^Stored text of / })
    .click();
  await expect(page).toHaveURL(/\/stored\?url=.+&q=harbour&page=2$/);
  await page.getByRole('link', { name: 'Back to results for “harbour”' }).click();
  await expect(page).toHaveURL(/\/\?q=harbour&page=2$/);
  await expect(search.resultLinks().first()).toHaveAttribute('href', secondPageFirst ?? 'missing');

  // More from this site: only the small site's pages.
  await search.open('harbour tide');
  const smallResult = search.results.filter({ hasText: small.host }).first();
  await smallResult.getByRole('link', { name: /More from this site/ }).click();
  await expect(search.searchBox).toHaveValue(`site:${small.host} harbour tide`);
  await expect(search.summary).toContainText('2 results in');
  await expect(search.results.filter({ hasText: big.host })).toHaveCount(0);

  // A shared link opens straight into its results; a miss explains itself and points to Seeds.
  await page.goto('/?q=zebraquartz');
  await expect(search.searchBox).toHaveValue('zebraquartz');
  await expect(search.main).toContainText('No pages match zebraquartz among the 16 pages indexed.');
  await expect(search.main).toContainText('adding seeds: only 16 pages are indexed so far');
  await search.main.getByRole('link', { name: 'adding seeds' }).click();
  await expect(page).toHaveURL(/\/seeds$/);
  await page.goBack();
  await expect(search.searchBox).toHaveValue('zebraquartz');

  // A search the server fails says so, in the API's own words.
  await page.route('**/api/search?**', (route) =>
    route.fulfill({
      status: 500,
      json: { error: 'internal', message: 'Lantern hit an internal error; the server log has the details' },
    }),
  );
  await search.search('harbour');
  await expect(search.error).toHaveText('Search failed. Lantern hit an internal error; the server log has the details');
  await expect(search.results).toHaveCount(0);
});
