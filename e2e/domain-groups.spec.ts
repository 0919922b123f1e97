/**
 * The Domains view with politeness groups, against the real crawler: two names of one registrable domain
 * (virtual hosts of one loopback server, named through CRAWL_RESOLVE) are listed under their group's row
 * with its clock, and each host's delay says which rule set it; a slow domain's hosts say that pacing set
 * it, in the factor times the response time.
 */
import { expect, startApp, test } from './fixtures.ts';
import { DomainsPage } from './pages/domains-page.ts';
import { generateSite, startNamedWeb, type NamedTestWeb } from '../test-support/test-web.ts';
import type { RunningApp } from './fixtures.ts';

let web: NamedTestWeb | null = null;
let named: RunningApp | null = null;

test.afterEach(async () => {
  await named?.stop();
  await web?.close();
  named = null;
  web = null;
});

test('hosts of one domain are listed under their group with its clock; a lone host has no group row', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  web = await startNamedWeb([
    {
      'www.site.test': generateSite({ pages: 3, prefix: 'www' }),
      'docs.site.test': generateSite({ pages: 3, prefix: 'docs' }),
    },
    { 'other.test': generateSite({ pages: 2, prefix: 'other' }) },
  ]);
  named = await startApp({ env: { CRAWL_RESOLVE: web.resolve } });
  for (const site of web.sites) {
    expect(
      (await request.post(`${named.baseURL}/api/seeds`, { data: { url: site.url('/'), depth: 1 } })).status(),
    ).toBe(201);
  }
  const [www, docs, other] = web.sites;
  const domains = new DomainsPage(page);
  await page.goto(`${named.baseURL}/domains`);
  const group = domains.groupRow('site.test');
  await expect(group).toContainText('site.test');
  await expect(group).toContainText('2 hosts share one clock');
  await expect(domains.row(www.host)).toBeVisible();
  await expect(domains.row(docs.host)).toBeVisible();
  await expect(domains.groupRow('other.test')).toHaveCount(0);
  await expect(domains.row(other.host)).toBeVisible();
  // The group's row comes right before its hosts' rows.
  const order = await domains.table
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((r) => r.getAttribute('data-group') ?? r.querySelector('th')?.textContent?.replace(/^[▸▾]/, '') ?? ''),
    );
  const at = order.indexOf('site.test');
  expect(order.slice(at + 1, at + 3).sort()).toEqual([docs.host, www.host].sort());
  // Every row says which rule set its delay.
  await expect(domains.cell(docs.host, 'Delay')).toContainText(/the default delay|response time|Crawl-delay/);
  await page.screenshot({ path: 'test-results/domain-groups.png', fullPage: true });
});

test('a slow domain: each host says pacing set its delay ("1.8 s: 5 x 0.4 s response time"); the group row shows its clock', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  // Every answer of slow.test takes 300 ms: 5 x that is far above the 100 ms delay, so pacing sets it.
  web = await startNamedWeb([
    {
      'www.slow.test': generateSite({ pages: 6, prefix: 'www', delayMs: 300 }),
      'docs.slow.test': generateSite({ pages: 6, prefix: 'docs', delayMs: 300 }),
    },
  ]);
  named = await startApp({ env: { CRAWL_RESOLVE: web.resolve, CRAWL_DELAY_MS: '100', CRAWL_PACING_FACTOR: '5' } });
  for (const site of web.sites) {
    expect(
      (await request.post(`${named.baseURL}/api/seeds`, { data: { url: site.url('/'), depth: 1 } })).status(),
    ).toBe(201);
  }
  const [www, docs] = web.sites;
  const domains = new DomainsPage(page);
  await page.goto(`${named.baseURL}/domains`);
  for (const host of [www.host, docs.host]) {
    const delay = domains.cell(host, 'Delay');
    await expect(delay).toContainText('pacing', { timeout: 30_000 });
    // The delay in seconds, and the rule in words: the factor times the host's response time.
    await expect(delay).toContainText(/^\d+\.\d s/);
    await expect(delay.locator('.delay-reason')).toHaveText(/^5 x \d+\.\d s response time$/);
    await expect(delay.locator('[title]')).toHaveAttribute('title', /^\d+\.\d s: 5 x \d+\.\d s response time$/);
  }
  // The group's row shows its one clock: a request in flight or when the next may start, and when the last ended.
  const group = domains.groupRow('slow.test');
  await expect(group).toContainText('2 hosts share one clock');
  await expect(group).toContainText(/a request in flight|next request (in \d+ s|due now)|nothing queued/);
  await expect(group).toContainText(/last ended (just now|\d+ s ago)/);
  await page.screenshot({ path: 'test-results/domain-groups-pacing.png', fullPage: true });
});
