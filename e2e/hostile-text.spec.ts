/**
 * Crawled text cannot disguise itself or widen the page, judged by what a person sees in Chromium: a
 * site whose title hides an extension behind RIGHT-TO-LEFT OVERRIDE (`invoice \u202Egnp.exe` is drawn
 * "invoice exe.png" when left alone), whose page has a 300-character title and a 60,000-character word,
 * and whose links lead to a 1,800-character URL. The disguised title is drawn in the order it is spelled
 * in results, suggestions and its stored text; no view (results, stored text, Domains with the request
 * list open, Seeds) scrolls sideways at 360 px or at 1280 px.
 */
import { expect, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { scrollsSideways, visibleText } from './pages/reading.ts';
import { SearchPage } from './pages/search-page.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

const DISGUISED = 'invoice \u202Egnp.exe';
const SPELLED = 'invoice gnp.exe';
const LONG_PATH = `/${'p'.repeat(1800)}`;

function html(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

const HOSTILE_SITE = {
  pages: {
    '/': html(
      DISGUISED,
      `<p>The quarterly invoice is attached.</p>\n<a href="/wide">wide</a>\n<a href="${LONG_PATH}">long</a>`,
    ),
    '/wide': html('W'.repeat(300), `<p>The zebra said ${'z'.repeat(60_000)} and the zebra left.</p>`),
  },
};

const WIDTHS = [1280, 360];

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

test('a disguised title reads as it is spelled, and nothing crawled makes a view scroll sideways', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  web = await startTestWeb([HOSTILE_SITE]);
  const site = web.sites[0];
  expect((await request.post('/api/seeds', { data: { url: site.url('/'), depth: 1 } })).status()).toBe(201);
  expect(
    (await request.post('/api/seeds', { data: { url: site.url(`/${'q'.repeat(1900)}`), depth: 0 } })).status(),
  ).toBe(201);
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 60_000,
      message: 'the 2 pages get indexed',
    })
    .toBeGreaterThanOrEqual(2);

  /** At each width, the page does not scroll sideways; `what` names the view for the failure. */
  const noSidewaysScroll = async (what: string): Promise<void> => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 800 });
      await expect
        .poll(() => scrollsSideways(page), { message: `${what} at ${width} px does not scroll sideways` })
        .toBe(false);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  };

  // Results: the title link is drawn in the order it is spelled (an override would draw "invoice exe.png").
  const search = new SearchPage(page);
  await search.open('quarterly');
  const result = search.results.filter({ has: page.locator(`a[href="${site.url('/')}"]`) });
  await expect(result).toHaveCount(1);
  const titleLink = result.getByRole('link').first();
  await expect(titleLink).toBeVisible();
  expect(await visibleText(titleLink)).toBe(SPELLED);
  await noSidewaysScroll('the results for "quarterly"');

  // A 300-character title and a 60,000-character word: capped by the server, wrapped by the browser.
  await search.search('zebra');
  const wide = search.results.filter({ has: page.locator(`a[href="${site.url('/wide')}"]`) });
  await expect(wide).toHaveCount(1);
  expect((await wide.getByRole('link').first().textContent())!.length).toBeLessThanOrEqual(200);
  expect((await wide.locator('.snippet').textContent())!.length).toBeLessThanOrEqual(320);
  await noSidewaysScroll('the results for "zebra"');

  // Suggestions show the title as it is spelled too.
  await search.searchBox.fill('');
  await search.searchBox.pressSequentially('invoi');
  const suggestion = search.suggestions.getByRole('option').filter({ hasText: site.host }).first();
  await expect(suggestion).toBeVisible();
  expect(await visibleText(suggestion.locator('.suggestion-text'))).toBe(SPELLED);

  // Its stored text: the heading as spelled; the wide page's text wraps.
  await page.goto(`/stored?url=${encodeURIComponent(site.url('/'))}&q=quarterly`);
  const heading = page.getByRole('heading', { level: 1 });
  await expect(heading).toBeVisible();
  expect(await visibleText(heading)).toBe(SPELLED);
  await page.goto(`/stored?url=${encodeURIComponent(site.url('/wide'))}&q=zebra`);
  await expect(page.locator('.stored-text')).toContainText('zebra');
  await noSidewaysScroll('the stored text of the wide page');

  // Domains: the host's requests, the 1,800-character URL among them, listed.
  const domains = new DomainsPage(page);
  await domains.open();
  await domains.hostButton(site.host).click();
  await page.getByText(/List of the \d+ requests/).click();
  await expect(domains.table.locator('.request-list li').filter({ hasText: 'pppppppppp' })).toHaveCount(1);
  await noSidewaysScroll('Domains with the request list open');

  // Seeds: a seed with a 1,900-character URL.
  const seeds = new SeedsPage(page);
  await seeds.open();
  await expect(page.getByRole('link', { name: /qqqqqqqqqq/ })).toBeVisible();
  await noSidewaysScroll('Seeds');
});
