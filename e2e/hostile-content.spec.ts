/**
 * Crawled text is shown as text, never run as markup: pages whose titles and bodies say
 * `<script>alert(1)</script>` and `<img src=x onerror=alert(2)>` appear in results, suggestions and a
 * host's request list exactly as those characters, no dialog ever opens and no crawled element exists.
 */
import type { Dialog } from '@playwright/test';
import { expect, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { SearchPage } from './pages/search-page.ts';
import { startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

const SCRIPT = '<script>alert(1)</script>';
const IMG = '<img src=x onerror=alert(2)>';

function page(title: string, body: string): string {
  return `<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>${title}</title>\n</head>\n<body>\n${body}\n</body>\n</html>\n`;
}

/**
 * Three pages: '/' links to the others. '/escaped' says the hostile strings as entities (`&lt;script&gt;`);
 * '/raw' has them raw inside <title> (RCDATA: text after parsing, the same characters) and as numeric
 * entities in its text, plus a real <script> and a real <img onerror> in its body that must never surface.
 */
const HOSTILE_SITE = {
  pages: {
    '/': page('Odd pages', '<p>An index of odd pages.</p>\n<a href="/escaped">escaped</a>\n<a href="/raw">raw</a>'),
    '/escaped': page(
      '&lt;script&gt;alert(1)&lt;/script&gt; quokka &lt;img src=x onerror=alert(2)&gt;',
      '<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>\n' +
        '<p>The quokka wrote &lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(2)&gt; on the wall.</p>',
    ),
    '/raw': page(
      '<script>alert(1)</script> wombat <img src=x onerror=alert(2)>',
      '<p>The wombat wrote &#60;script&#62;alert(1)&#60;/script&#62; and &#x3C;img src=x onerror=alert(2)&#x3E; too.</p>\n' +
        '<script>window.__crawledScriptRan = true; alert(3)</script>\n<img src=x onerror="alert(4)">',
    ),
  },
};

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

test('hostile titles and text are shown as text; no dialog opens and no crawled element exists', async ({
  page: browser,
  request,
}) => {
  test.setTimeout(90_000);
  const dialogs: string[] = [];
  browser.on('dialog', (dialog: Dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });

  web = await startTestWeb([HOSTILE_SITE]);
  const site = web.sites[0];
  expect((await request.post('/api/seeds', { data: { url: site.url('/'), depth: 1 } })).status()).toBe(201);
  await expect
    .poll(async () => ((await (await request.get('/api/status')).json()) as { indexed: number }).indexed, {
      timeout: 40_000,
      message: 'the 3 pages get indexed',
    })
    .toBeGreaterThanOrEqual(3);

  const search = new SearchPage(browser);
  const noCrawledElements = async (): Promise<void> => {
    // Lantern itself has no <img> and no <script> inside <body>'s content: any would come from a crawl.
    await expect(browser.locator('#root img, #root script, #root iframe, #root object')).toHaveCount(0);
    expect(
      await browser.evaluate(() => (window as { __crawledScriptRan?: boolean }).__crawledScriptRan),
    ).toBeUndefined();
    expect(dialogs).toEqual([]);
  };

  // Escaped in the HTML: the title link and the snippet say the characters.
  await search.open('quokka');
  const escaped = search.results.filter({ has: browser.locator(`a[href="${site.url('/escaped')}"]`) });
  await expect(escaped).toHaveCount(1);
  await expect(escaped.getByRole('link').first()).toHaveText(`${SCRIPT} quokka ${IMG}`);
  await expect(escaped.locator('.snippet')).toContainText(SCRIPT);
  await expect(escaped.locator('.snippet')).toContainText(IMG);
  await expect(escaped.locator('.snippet mark').first()).toHaveText(/quokka/i);
  await expect(search.results.first()).toContainText(SCRIPT);
  await noCrawledElements();

  // Its stored text: the title and the text, as text.
  await escaped.getByRole('link', { name: /^Stored text of / }).click();
  await expect(browser.getByRole('heading', { level: 1 })).toHaveText(`${SCRIPT} quokka ${IMG}`);
  await expect(browser.locator('.stored-text')).toContainText(SCRIPT);
  await expect(browser.locator('.stored-text mark').first()).toHaveText(/quokka/i);
  await noCrawledElements();
  await browser.goBack();

  // Raw inside <title> (literal characters after parsing) and numeric entities in the text.
  await search.search('wombat');
  await expect(browser).toHaveURL(/\?q=wombat$/);
  const raw = search.results.filter({ has: browser.locator(`a[href="${site.url('/raw')}"]`) });
  await expect(raw).toHaveCount(1);
  await expect(raw.getByRole('link').first()).toHaveText(`${SCRIPT} wombat ${IMG}`);
  await expect(raw.locator('.snippet')).toContainText(SCRIPT);
  await expect(raw.locator('.snippet')).not.toContainText('__crawledScriptRan');
  await noCrawledElements();

  // A matched word inside the hostile text: highlighted in <mark>, the rest still text around it.
  await search.search('alert');
  await expect(search.results.first()).toBeVisible();
  await expect(search.results.locator('mark').first()).toHaveText(/alert/i);
  await expect(search.results.first()).toContainText(SCRIPT);
  await noCrawledElements();

  // The query itself can be hostile too: echoed in the box and the page title as text.
  await search.search(IMG);
  await expect(search.searchBox).toHaveValue(IMG);
  await expect(browser).toHaveTitle(`${IMG} — Lantern`);
  await noCrawledElements();

  // Suggestions show crawled titles as text.
  await search.searchBox.fill('');
  await search.searchBox.pressSequentially('quok');
  const titleSuggestion = search.suggestions.getByRole('option').filter({ hasText: site.host });
  await expect(titleSuggestion).toHaveCount(1);
  await expect(titleSuggestion.locator('.suggestion-text')).toHaveText(`${SCRIPT} quokka ${IMG}`);
  await noCrawledElements();

  // The host's request list on Domains.
  const domains = new DomainsPage(browser);
  await domains.open();
  await domains.hostButton(site.host).click();
  await browser.getByText(/List of the \d+ requests/).click();
  await expect(domains.table.locator('.request-list li')).toHaveCount(4); // robots.txt and the 3 pages
  await noCrawledElements();
});
