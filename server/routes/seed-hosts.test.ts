import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { openDatabase } from '../../db/open.ts';
import { seedHostQueries } from '../../db/seed-hosts.ts';

describe("GET /api/seeds: a seed's hosts (CRAWL_MAX_HOSTS_PER_SEED)", () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp({ CRAWL_MAX_HOSTS_PER_SEED: '40' });
  });
  after(async () => {
    await t.close();
  });
  const listed = async (id: number) =>
    (await t.app.inject({ method: 'GET', url: '/api/seeds' })).json().seeds.find((s: { id: number }) => s.id === id);

  test('a new seed has no hosts yet and nothing refused; the limit is the configured one', async () => {
    const { seed } = (
      await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'https://new.example/' } })
    ).json();
    assert.deepEqual(
      seed && { hosts: seed.hosts, maxHosts: seed.maxHosts, refused: seed.hostsRefused, last: seed.lastRefusedHost },
      { hosts: 0, maxHosts: 40, refused: 0, last: null },
    );
  });

  test('what the crawler stored: its hosts, the links to further hosts not followed and the last such host', async () => {
    const { seed } = (
      await t.app.inject({
        method: 'POST',
        url: '/api/seeds',
        payload: { url: 'https://wild.example.org/', scope: 'domain' },
      })
    ).json();
    const db = openDatabase(t.dataDir); // as the crawler primary writes it
    seedHostQueries(db).saveSeedHosts({
      seedId: seed.id,
      hosts: 40,
      refused: 1234,
      refusedExample: 'a1041.wild.example.org',
      refusedAt: 5,
    });
    db.close();
    const s = await listed(seed.id);
    assert.deepEqual(
      { hosts: s.hosts, maxHosts: s.maxHosts, refused: s.hostsRefused, last: s.lastRefusedHost },
      { hosts: 40, maxHosts: 40, refused: 1234, last: 'a1041.wild.example.org' },
    );
  });
});
