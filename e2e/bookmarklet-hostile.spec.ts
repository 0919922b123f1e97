/**
 * The bookmarklet's add form (`/seeds?add=URL&title=T`) against the pages that can open it: any page can
 * write that address. A page on another origin opens it in a popup when the person presses a key, hoping
 * their next Enter lands on "Add seed" (key-jacking); a title written with a right-to-left override tries to
 * read as another file name. Neither adds nor shows what the page chose.
 */
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

test("a page on another origin opens the filled-in form on a key press: the person's next Enter adds nothing", async ({
  page,
  app,
  request,
}) => {
  // A URL the add form accepts (tests allow any host; it is never resolved to be added), so the only thing
  // between the page and a new seed is the person's Enter.
  const chosen = 'https://attacker.example/';
  const form = `${app.baseURL}/seeds?add=${encodeURIComponent(chosen)}&title=x`;
  web = await startTestWeb([
    {
      pages: {
        '/': `<!doctype html><title>A game</title><p>Press any key to start.</p>
<script>addEventListener('keydown', () => window.open(${JSON.stringify(form)}, '_blank', 'popup'), { once: true });</script>`,
      },
    },
  ]);
  const game = web.sites[0];
  expect(game.origin, 'the page is on another origin than Lantern').not.toBe(app.baseURL);
  await page.goto(game.url('/'));

  const opened = page.waitForEvent('popup');
  await page.keyboard.press('k');
  const popup = await opened;
  const posts: string[] = [];
  popup.on('request', (sent) => {
    if (sent.method() !== 'GET') posts.push(`${sent.method()} ${sent.url()}`);
  });
  const seeds = new SeedsPage(popup);
  const capture = new CapturePanel(popup);

  // At once: the moment the form shows, which is when it took the focus before.
  await expect(seeds.addButton).toBeVisible();
  await expect(seeds.urlInput).toHaveValue(chosen);
  await popup.keyboard.press('Enter');
  await seeds.nextRefresh(); // an add would have been sent before this request
  expect(posts, 'the form sent nothing').toEqual([]);
  await expect(seeds.emptyList).toBeVisible();
  await expect(capture.prefillNote, 'the focus is on the note').toBeFocused();

  // A few seconds later: once the view has refreshed its list twice more (it asks 2 s after each answer, so
  // at least 4 s), decided by those answers rather than by a sleep: the form has settled, polling has redrawn
  // it, and nothing moved the focus to the button.
  await seeds.nextRefresh();
  await seeds.nextRefresh();
  await popup.keyboard.press('Enter');
  await seeds.nextRefresh();
  expect(posts, 'the form sent nothing').toEqual([]);
  await expect(seeds.emptyList).toBeVisible();
  await expect(capture.prefillNote).toBeFocused();
  expect((await (await request.get('/api/seeds')).json()).seeds).toEqual([]);
  await expect(seeds.urlInput).toHaveValue(chosen);

  // The person can still add it with the keyboard alone, by a deliberate act: Tab to "Add seed", then Enter.
  await popup.keyboard.press('Tab');
  await expect(seeds.urlInput).toBeFocused();
  for (const control of [seeds.depthInput, seeds.scopeSelect, popup.getByLabel('Labels', { exact: true })]) {
    await popup.keyboard.press('Tab');
    await expect(control).toBeFocused();
  }
  await popup.keyboard.press('Tab');
  await expect(seeds.addButton).toBeFocused();
  await popup.keyboard.press('Enter');
  await expect(seeds.row(chosen)).toBeVisible();
});

test('a title with a right-to-left override reads as spelled in the note, and is added without it', async ({
  page,
}) => {
  const seeds = new SeedsPage(page);
  const capture = new CapturePanel(page);
  // "Wiki", RIGHT-TO-LEFT OVERRIDE, "fdp.exe": shown as "Wikiexe.pdf" if the override is kept; the URL too.
  await page.goto('/seeds?add=https%3A%2F%2Fwiki.example%2F%E2%80%AEfdp.exe&title=Wiki%E2%80%AEfdp.exe%E2%81%A6');
  await expect(capture.prefillNote).toHaveText('Add the page you were on: Wikifdp.exe? Check it and press Add seed.');
  await expect(capture.prefillTitle, 'the title is isolated from the sentence around it').toHaveText('Wikifdp.exe');
  await expect(seeds.urlInput).toHaveValue('https://wiki.example/fdp.exe');
  await expect(page.locator('body')).not.toContainText('\u202E');
  await expect(page.locator('body')).not.toContainText('\u2066');

  const sent = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/api/seeds'));
  await seeds.addButton.click();
  expect((await sent).postDataJSON()).toMatchObject({ url: 'https://wiki.example/fdp.exe', title: 'Wikifdp.exe' });
  await expect(seeds.row('https://wiki.example/fdp.exe')).toContainText('Wikifdp.exe');
});
