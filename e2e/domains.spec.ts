/**
 * The Domains view against the real crawler: one row per host, sorting and filtering that survive
 * polling, a host's request timeline, and reconnecting after the server restarts.
 */
import { expect, startApp, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { generateSite, startTestWeb } from '../test-support/test-web.ts';
import type { TestWeb } from '../test-support/test-web.ts';

let web: TestWeb | null = null;

test.afterEach(async () => {
  await web?.close();
  web = null;
});

test('hosts are listed, sorted, filtered and expanded; the view reconnects after a restart', async ({
  page,
  request,
  app,
}) => {
  test.setTimeout(120_000); // two app starts and a full crawl of a small site on a shared 2-core machine
  web = await startTestWeb([
    generateSite({ pages: 6 }),
    { robots: { status: 503 }, pages: { '/': '<title>Closed</title>' } },
  ]);
  const [open, closed] = web.sites;
  for (const site of web.sites) {
    expect((await request.post('/api/seeds', { data: { url: site.url('/'), depth: 1 } })).status()).toBe(201);
  }

  const domains = new DomainsPage(page);
  await page.goto('/');
  await domains.navigateTo('Domains');
  await expect(domains.heading).toBeFocused();
  await expect(domains.row(open.host)).toBeVisible();
  await expect(domains.row(closed.host)).toBeVisible();
  await expect(domains.stat('Workers alive')).toHaveText('2');

  // The open site gets fully fetched; the view shows it within 2 s of the crawler saying so (it is live,
  // without a reload). The one whose robots.txt answers 503 says so in words.
  await expect
    .poll(
      async () => {
        const { domains: rows } = (await (await request.get('/api/domains')).json()) as {
          domains: Array<{ host: string; fetched: number }>;
        };
        return rows.find((d) => d.host === open.host)?.fetched;
      },
      { timeout: 30_000, intervals: [50] },
    )
    .toBe(6);
  await expect(domains.row(open.host).getByRole('cell').nth(1)).toHaveText('6', { timeout: 2_000 });
  // What makes that hold for any change: the view asks the server again well within 2 s, every time.
  const isSnapshot = (r: { url(): string }) => new URL(r.url()).pathname === '/api/domains';
  await page.waitForResponse(isSnapshot);
  for (let i = 0; i < 2; i++) {
    const since = Date.now();
    await page.waitForResponse(isSnapshot);
    expect(Date.now() - since, 'time between two refreshes of the Domains view').toBeLessThan(2_000);
  }
  await expect(domains.row(closed.host)).toContainText(/robots\.txt unreachable/i);
  await expect(domains.row(closed.host)).toContainText('unreachable (503)');
  // The crawl-wide fetch rate counts the last minute's fetches: a whole number per minute, above 0 now.
  await expect(domains.stat('Fetch rate')).toHaveText(/^[1-9][\d,]* \/ min$/);

  // Sort by Fetched from the keyboard (Enter, then Space): most first, then flipped; aria-sort says which way.
  await domains.sortButton('Fetched').press('Enter');
  const fetchedHeader = domains.table.getByRole('columnheader', { name: 'Fetched' });
  await expect(fetchedHeader).toHaveAttribute('aria-sort', 'descending');
  await expect(domains.table.getByRole('rowheader').first()).toHaveAccessibleName(open.host);
  await expect(domains.sortButton('Fetched')).toBeFocused(); // the refresh every second keeps the focus
  await page.keyboard.press('Space');
  await expect(fetchedHeader).toHaveAttribute('aria-sort', 'ascending');
  await expect(domains.table.getByRole('rowheader').first()).toHaveAccessibleName(closed.host);

  // Filter keeps only matching hosts, across polls.
  await domains.filter.fill(open.host);
  await expect(domains.table.getByRole('rowheader')).toHaveCount(1);
  await expect(domains.row(open.host)).toBeVisible();

  // The timeline, opened with Enter: one mark per request (robots.txt plus 6 pages), each with a hover title.
  await domains.hostButton(open.host).press('Enter');
  await expect(domains.hostButton(open.host)).toHaveAttribute('aria-expanded', 'true');
  const timeline = domains.timeline(open.host);
  await expect(timeline).toHaveAttribute('aria-label', /^7 requests to/);
  await expect(timeline.locator('rect.mark')).toHaveCount(7);
  await expect(timeline.locator('rect.mark title').first()).toHaveText(/robots\.txt — 404 — \d+ ms/);

  // Server restart on the same port and data: "reconnecting…" while it is down, then live again,
  // with the filter, sort and expanded row untouched.
  await app.stop({ keepData: true });
  await expect(domains.main.getByRole('status').filter({ hasText: 'reconnecting…' }).first()).toBeVisible();
  const again = await startApp({ port: app.port, dataDir: app.dataDir });
  try {
    await expect(domains.liveStatus).toHaveText('live', { timeout: 15_000 });
    await expect(domains.filter).toHaveValue(open.host);
    await expect(fetchedHeader).toHaveAttribute('aria-sort', 'ascending');
    await expect(domains.table.getByRole('rowheader')).toHaveCount(1);
    await expect(domains.hostButton(open.host)).toHaveAttribute('aria-expanded', 'true');
    await expect(domains.row(open.host).getByRole('cell').nth(1)).toHaveText('6');
  } finally {
    await again.stop();
  }
});
