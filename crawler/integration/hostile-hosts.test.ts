/**
 * A site answering on endless names (wildcard DNS), through the real cluster: a seed of scope 'any' on
 * one of 30 names, each linking to all the others. With CRAWL_MAX_HOSTS_PER_SEED=5 exactly 5 names are
 * ever contacted (judged from the sites' own request logs: the 25 others see not even a robots.txt
 * request); the seed's row counts its hosts and the links it did not follow; the seed's host says why in
 * its Domains row; and after the primary is killed and restarted, a crawl of the seed again reaches no
 * further host (the count comes from the database, not from memory).
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCrawler, type CrawlerHarness } from '../../test-support/crawler-harness.ts';
import { startWildcardSite, type WildcardSite } from '../../test-support/wildcard-site.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { seedQueries } from '../../db/seeds.ts';

const NAMES = 30;
const LIMIT = 5;

describe('a site that answers on endless names', () => {
  let site: WildcardSite;
  let h: CrawlerHarness;
  before(async () => {
    site = await startWildcardSite(NAMES);
    h = startCrawler({ CRAWL_MAX_HOSTS_PER_SEED: String(LIMIT), CRAWL_DELAY_MS: '50' });
  });
  after(async () => {
    await h?.close();
    await site?.close();
  });
  const seedRow = () =>
    seedQueries(h.db)
      .listSeeds()
      .find((s) => s.url === site.names[0].url('/'))!;

  test('the seed reaches CRAWL_MAX_HOSTS_PER_SEED hosts and no more; its row and its host say so', async () => {
    h.addSeed(site.names[0].url('/'), { depth: 3, scope: 'any' });
    await h.waitIdle({ minDone: LIMIT });
    await waitFor(() => seedRow()?.hosts === LIMIT && seedRow().hostsRefused > 0, {
      message: "the seed's figures to be stored",
    });
    const contacted = site.contacted();
    assert.equal(contacted.length, LIMIT, `contacted: ${contacted.map((s) => s.host).join(', ')}`);
    assert.ok(contacted.includes(site.names[0]), "the seed's own name is one of them");
    for (const s of contacted)
      assert.deepEqual(s.log.map((r) => r.path).sort(), ['/', '/robots.txt'], `${s.host}: robots.txt and its page`);
    const row = seedRow();
    // Each of the 5 pages links to the 25 names never reached.
    assert.deepEqual(
      { hosts: row.hosts, refused: row.hostsRefused },
      { hosts: LIMIT, refused: LIMIT * (NAMES - LIMIT) },
    );
    assert.ok(
      site.names.some((s) => s.host === row.lastRefusedHost && !contacted.includes(s)),
      `the last host left out is named: ${row.lastRefusedHost}`,
    );
    await waitFor(() => /stopped following links to new hosts/.test(h.domain(site.names[0].host)?.stateText ?? ''), {
      message: "the seed's host to say why in its Domains row",
    });
    assert.match(
      h.domain(site.names[0].host)!.lastError!,
      new RegExp(
        `has reached ${LIMIT} hosts \\(the limit per seed, CRAWL_MAX_HOSTS_PER_SEED\\); not followed, e\\.g\\. 127\\.`,
      ),
    );
  });

  test('after a restart the count comes from the database: crawled again, the seed reaches no further host', async () => {
    await h.kill();
    const before = site.names.map((s) => s.log.length);
    await h.restart();
    h.addSeed(site.names[0].url('/'), { depth: 3, scope: 'any' }); // "Crawl again": every page it found is fetched again
    await waitFor(() => site.names[0].requestsTo('/').length === 2, { message: 'the seed to be fetched again' });
    await h.waitIdle({ minDone: LIMIT });
    const contacted = site.contacted();
    assert.equal(contacted.length, LIMIT, `contacted: ${contacted.map((s) => s.host).join(', ')}`);
    assert.ok(
      site.names.every((s, i) => (before[i] === 0) === (s.log.length === 0)),
      'no name that was left out got a request',
    );
    assert.equal(seedRow().hosts, LIMIT);
    await waitFor(() => seedRow().hostsRefused > LIMIT * (NAMES - LIMIT), {
      message: 'the refusals of the second crawl to add up',
    });
  });
});
