/**
 * DNS rebinding in real Chromium. `--host-resolver-rules` points evil.test and good.test at 127.0.0.1,
 * as an attacker's DNS does after the page has loaded. The attacker's page is served from
 * http://evil.test:<Lantern's port> (Playwright fulfils that one document; everything else it asks for
 * goes through the resolver rule to the real Lantern), so for the browser Lantern *is* evil.test: the
 * page's fetches are same-origin and could read every answer. Lantern must answer none of them, nor its
 * form posts of any encoding or its beacons; then the same page under an allowed name (PUBLIC_HOSTS) works.
 * Chromium 142+ blocks a page of a public (or, as a fulfilled one, unknown) address from reaching a loopback
 * one unless the page is a secure context and the person allows it (Local Network Access). Firefox and
 * Safari do not, nor did Chromium before it: the check is turned off here, so that what is tested is
 * Lantern's own defence, not the browser's.
 */
import type { Page, Response } from '@playwright/test';
import { expect, test as base } from './fixtures.ts';
import type { RunningApp } from './fixtures.ts';

const test = base.extend({
  launchOptions: [
    async ({ launchOptions }, use) => {
      await use({
        ...launchOptions,
        args: [
          ...(launchOptions.args ?? []),
          '--host-resolver-rules=MAP evil.test 127.0.0.1, MAP good.test 127.0.0.1',
          '--disable-features=LocalNetworkAccessChecks',
        ],
      });
    },
    { scope: 'worker' },
  ],
});

const SECRET = 'e2e rebinding secret 0123456789';
const STOLEN = 'https://stolen.example/';

/** The attacker's page: forms of every encoding that post to Lantern's API, and a script that reads and writes with fetch. */
const ATTACK_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Nothing to see</title></head><body>
<form id="urlencoded" method="post" action="/api/seeds"><input name="url" value="${STOLEN}form-urlencoded"></form>
<form id="multipart" method="post" action="/api/seeds" enctype="multipart/form-data"><input name="url" value="${STOLEN}form-multipart"></form>
<form id="text" method="post" action="/api/seeds" enctype="text/plain"><input name='{"url": "${STOLEN}form-text", "x": "' value='"}'></form>
<script>
  async function attempt(url, init) {
    try {
      const res = await fetch(url, init);
      return { status: res.status, body: await res.text() };
    } catch (error) {
      return { status: 0, body: String(error) };
    }
  }
  const json = (body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  window.signIn = (secret) => attempt('/api/session', json({ secret }));
  window.readAll = async () => ({
    seeds: await attempt('/api/seeds'),
    search: await attempt('/api/search?q=private'),
    app: await attempt('/'),
  });
  window.write = async (deleteId) => ({
    add: await attempt('/api/seeds', json({ url: '${STOLEN}fetch' })),
    remove: await attempt('/api/seeds/' + deleteId, { method: 'DELETE' }),
  });
  window.beacons = () => [
    navigator.sendBeacon('/api/seeds', new Blob([JSON.stringify({ url: '${STOLEN}beacon-json' })], { type: 'application/json' })),
    navigator.sendBeacon('/api/seeds', JSON.stringify({ url: '${STOLEN}beacon-text' })),
  ];
</script>
</body></html>`;

interface Attempt {
  status: number;
  body: string;
}

/** Opens the attack page at http://<name>:<Lantern's port>/welcome.html; only that one document is not Lantern's. */
async function openAttackPage(page: Page, app: RunningApp, name: string): Promise<string> {
  const origin = `http://${name}:${app.port}`;
  await page.unroute(`${origin}/welcome.html`);
  await page.route(`${origin}/welcome.html`, (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: ATTACK_PAGE }),
  );
  await page.goto(`${origin}/welcome.html`);
  return origin;
}

/** Lantern's seeds, asked through one of its own names (127.0.0.1), as the owner sees them. */
async function seedUrls(app: RunningApp, headers: Record<string, string> = {}): Promise<string[]> {
  const res = await fetch(`${app.baseURL}/api/seeds`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { seeds: Array<{ url: string }> }).seeds.map((s) => s.url);
}

/** Adds a seed as the owner (no Origin: not a page's request) and returns its id. */
async function ownerAddsSeed(app: RunningApp, url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${app.baseURL}/api/seeds`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ url, depth: 0 }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { seed: { id: number } }).seed.id;
}

/**
 * Submits each form (the page navigates to Lantern's answer, as a form post does) and collects the
 * answers, seen by the browser's network; the attack page is opened again before each.
 */
async function postForms(page: Page, app: RunningApp): Promise<Response[]> {
  const answers: Response[] = [];
  for (const id of ['urlencoded', 'multipart', 'text']) {
    await openAttackPage(page, app, 'evil.test');
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/seeds') && r.request().method() === 'POST');
    await page.locator(`form#${id}`).evaluate((form: HTMLFormElement) => form.submit());
    answers.push(await answered);
    await page.waitForURL(/\/api\/seeds$/); // the answer is shown before the next form
  }
  return answers;
}

/** Sends the beacons and collects Lantern's answers to them. */
async function sendBeacons(page: Page): Promise<Response[]> {
  const answers: Response[] = [];
  const collected = new Promise<void>((resolve) => {
    page.on('response', (r) => {
      if (r.request().resourceType() === 'ping' && r.url().endsWith('/api/seeds')) answers.push(r);
      if (answers.length === 2) resolve();
    });
  });
  expect(await page.evaluate('beacons()'), 'the browser queued both beacons').toEqual([true, true]);
  await collected;
  return answers;
}

test('a page whose name was re-pointed at 127.0.0.1 reads nothing and changes nothing: fetch, forms of every encoding, beacons', async ({
  page,
  app,
}) => {
  const privateSeed = 'https://private.example/diary';
  const id = await ownerAddsSeed(app, privateSeed);
  await openAttackPage(page, app, 'evil.test');

  const reads = (await page.evaluate('readAll()')) as Record<string, Attempt>;
  for (const [what, answer] of Object.entries(reads)) {
    expect(answer.status, `GET ${what} from evil.test: ${answer.body}`).toBe(421);
    expect(JSON.parse(answer.body).error).toBe('misdirected-request');
    expect(answer.body).not.toContain('private.example');
    expect(answer.body).not.toContain('<div id="root">');
  }
  const writes = (await page.evaluate(`write(${id})`)) as Record<string, Attempt>;
  expect(writes.add.status, 'POST /api/seeds by fetch').toBe(421);
  expect(writes.remove.status, 'DELETE /api/seeds/:id by fetch').toBe(421);

  const forms = await postForms(page, app);
  expect(
    forms.map((a) => a.request().headers()['content-type']?.split(';')[0]),
    'every encoding a form has',
  ).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
  for (const answer of forms)
    expect(answer.status(), `a form post (${answer.request().headers()['content-type']})`).toBe(421);
  await openAttackPage(page, app, 'evil.test');
  for (const answer of await sendBeacons(page)) expect(answer.status(), 'a beacon').toBe(421);

  expect(await seedUrls(app), 'Lantern, asked by its own name: nothing added, nothing removed').toEqual([privateSeed]);

  // Nor does the page get the app by opening it: a top-level visit to Lantern under that name is a 421 too.
  const visit = await page.goto(`http://evil.test:${app.port}/`);
  expect(visit?.status()).toBe(421);
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
});

test.describe('under a name the owner allowed (PUBLIC_HOSTS=good.test)', () => {
  test.use({ appEnv: { PUBLIC_HOSTS: 'good.test', LANTERN_SECRET: SECRET } });

  test('the same page signs in, reads and writes; under evil.test it still gets nothing', async ({ page, app }) => {
    const owner = { authorization: `Bearer ${SECRET}` };
    const id = await ownerAddsSeed(app, 'https://first.example/', owner);
    await openAttackPage(page, app, 'good.test');

    expect(((await page.evaluate(`signIn(${JSON.stringify(SECRET)})`)) as Attempt).status, 'sign-in at good.test').toBe(
      200,
    );
    const reads = (await page.evaluate('readAll()')) as Record<string, Attempt>;
    expect(reads.seeds.status).toBe(200);
    expect(reads.seeds.body).toContain('https://first.example/');
    expect(reads.search.status).toBe(200);
    expect(reads.app.status).toBe(200);
    expect(reads.app.body).toContain('<div id="root">');
    const writes = (await page.evaluate(`write(${id})`)) as Record<string, Attempt>;
    expect(writes.add.status, 'POST /api/seeds').toBe(201);
    expect(writes.remove.status, 'DELETE /api/seeds/:id').toBe(200);
    expect(await seedUrls(app, owner)).toEqual([`${STOLEN}fetch`]);

    await openAttackPage(page, app, 'evil.test');
    const refused = (await page.evaluate('readAll()')) as Record<string, Attempt>;
    expect(Object.values(refused).map((a) => a.status)).toEqual([421, 421, 421]);
  });
});
