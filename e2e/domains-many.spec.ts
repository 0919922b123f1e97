/**
 * The Domains view with 5,000 hosts stays live and light: the server sends one page of 100 (never all of
 * them), the view polls only that page, and paging, sorting, the text filter and the state filter are the
 * server's. The app is real (server, web build, Chromium); its 5,000 hosts are set on its crawler link as
 * a crawler snapshot sets them (test-support/many-hosts.ts), since crawling 5,000 sites is not a test.
 */
import { expect, test as base } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { startAppWithHosts, syntheticHosts, type AppWithHosts } from '../test-support/many-hosts.ts';

const HOSTS = 5000;

const test = base.extend<{ withHosts: AppWithHosts }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from this destructuring; this one has none
  withHosts: async ({}, use) => {
    const app = await startAppWithHosts(syntheticHosts(HOSTS));
    try {
      await use(app);
    } finally {
      await app.close();
    }
  },
  baseURL: async ({ withHosts }, use) => {
    await use(withHosts.baseURL);
  },
});

test('5,000 hosts: one page of 100 at a time, paged, sorted and filtered by the server, polled page by page', async ({
  page,
  withHosts,
}) => {
  const answers: Array<{ url: string; rows: number }> = [];
  page.on('response', async (response) => {
    if (!response.url().includes('/api/domains?') && !response.url().endsWith('/api/domains')) return;
    // An answer the view cancelled (a newer poll, a new filter) has no body left to read: only read ones count.
    const body = (await response.json().catch(() => null)) as { domains: unknown[] } | null;
    if (body !== null) answers.push({ url: response.url(), rows: body.domains.length });
  });
  const domains = new DomainsPage(page);
  const bodyRows = domains.table.locator('tbody tr[role="row"]:not(.timeline-row)');
  const firstHost = bodyRows.first().getByRole('rowheader');

  await domains.open();
  await expect(bodyRows).toHaveCount(100);
  await expect(domains.main.getByText('5,000 hosts', { exact: true })).toBeVisible();
  const pager = domains.pager;
  await expect(pager).toContainText('Hosts 1–100 of 5,000');
  await expect(firstHost).toHaveText(/h0000\.wild\.example/);

  // Next page, then back.
  await pager.getByRole('button', { name: /^Next/ }).click();
  await expect(pager).toContainText('Hosts 101–200 of 5,000');
  await expect(firstHost).toHaveText(/h0100\.wild\.example/);
  await expect(bodyRows).toHaveCount(100);

  // A sort starts again at the first page, the server's order: most fetched first, ties by name.
  await domains.sortButton('Fetched').click();
  await expect(pager).toContainText('Hosts 1–100 of 5,000');
  const byFetched = [...withHosts.app.crawler.domains].sort(
    (a, b) => b.fetched - a.fetched || (a.host < b.host ? -1 : 1),
  );
  await expect(firstHost).toHaveText(new RegExp(byFetched[0].host.replace(/\./g, '\\.')));

  // The text filter and the state filter narrow it on the server.
  await domains.filter.fill('h012');
  await expect(domains.main.getByText('10 of 5,000 hosts', { exact: true })).toBeVisible();
  await expect(bodyRows).toHaveCount(10);
  await expect(pager).toHaveCount(0, { timeout: 1000 }); // one page: no pager
  await domains.filter.fill('');
  await domains.stateFilter.selectOption('failing');
  const failing = withHosts.app.crawler.domains.filter((d) => d.state === 'failing').length;
  await expect(domains.main.getByText(`${failing} of 5,000 hosts`, { exact: true })).toBeVisible();
  await expect(bodyRows.first().locator('.badge.state')).toHaveText('failing');

  // It stays live: it keeps polling, and every answer is one page, never the whole list.
  const before = answers.length;
  await expect.poll(() => answers.length, { message: 'the view polls again' }).toBeGreaterThan(before + 1);
  expect(
    answers.every((a) => a.rows <= 100),
    JSON.stringify(answers.filter((a) => a.rows > 100)),
  ).toBe(true);
  expect(answers.every((a) => /[?&]limit=100(&|$)/.test(a.url))).toBe(true);
});
