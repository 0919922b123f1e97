/**
 * Lantern with a secret (LANTERN_SECRET), in the browser: a person opens it, sees the sign-in page
 * instead of any data, is told when the secret is wrong, signs in, uses the app, signs out, and is
 * back at the sign-in page, with the session ended on the server (its cookie, copied, opens nothing).
 */
import { expect, test } from './fixtures.ts';
import { SearchPage } from './pages/search-page.ts';
import { SeedsPage } from './pages/seeds-page.ts';
import { SignInPage } from './pages/sign-in-page.ts';
import { generateSite, startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

const SECRET = 'e2e sign-in secret 0123456789';

let web: TestWeb | null = null;
test.afterEach(async () => {
  await web?.close();
  web = null;
});

test.use({ appEnv: { LANTERN_SECRET: SECRET } });

test('a person signs in with the secret, uses Lantern, signs out and is back at the sign-in page', async ({
  page,
  context,
  app,
}) => {
  web = await startTestWeb([generateSite({ pages: 3, words: () => 'lighthouse keeper' })]);
  const site = web.sites[0].url('/');
  const signIn = new SignInPage(page);
  const seeds = new SeedsPage(page);
  const search = new SearchPage(page);

  await page.goto('/seeds');
  await expect(signIn.heading).toBeVisible();
  await expect(signIn.secretInput).toBeFocused();
  await expect(signIn.nav).toHaveCount(0);
  await expect(seeds.heading).toHaveCount(0);
  await expect(page).toHaveTitle('Sign in — Lantern');

  await signIn.signIn('not the secret');
  await expect(signIn.error).toHaveText(
    "That is not Lantern's secret; it is the value of LANTERN_SECRET where Lantern runs",
  );
  await expect(signIn.secretInput).toHaveAttribute('aria-invalid', 'true');

  await signIn.signIn(SECRET);
  await expect(seeds.heading).toBeVisible(); // the view the address named
  await expect(signIn.heading).toHaveCount(0);
  const cookie = (await context.cookies()).find((c) => c.name === 'lantern_session');
  expect(cookie, 'the session cookie').toBeDefined();
  expect({ httpOnly: cookie!.httpOnly, sameSite: cookie!.sameSite }).toEqual({ httpOnly: true, sameSite: 'Strict' });

  await seeds.addSeed(site, { depth: 1 });
  await expect(seeds.row(site)).toBeVisible();
  await expect(await seeds.cell(site, 'Fetched')).toHaveText('3', { timeout: 30_000 });
  await search.navigateTo('Search');
  await search.search('lighthouse');
  await expect(search.resultLinks()).toHaveCount(3);

  await signIn.signOutButton.click();
  await expect(signIn.heading).toBeVisible();
  await expect(signIn.nav).toHaveCount(0);
  await expect(signIn.signOutButton).toHaveCount(0);
  await page.reload();
  await expect(signIn.heading).toBeVisible();

  // The copied cookie opens nothing: the session was ended on the server, not only in this browser.
  const copied = await fetch(`${app.baseURL}/api/seeds`, { headers: { cookie: `lantern_session=${cookie!.value}` } });
  expect(copied.status).toBe(401);
});
