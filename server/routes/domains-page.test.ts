/**
 * `GET /api/domains` with 5,000 hosts (set on the crawler link as a snapshot sets them): one page at a
 * time, filtered and sorted by the server, with the totals a pager needs; bad parameters are refused.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { syntheticHosts } from '../../test-support/many-hosts.ts';

const HOSTS = 5000;

describe('GET /api/domains with 5,000 hosts', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
    t.app.crawler.domains = syntheticHosts(HOSTS, Date.UTC(2026, 0, 1));
  });
  after(async () => {
    await t.close();
  });
  const get = async (query = '') => {
    const res = await t.app.inject({ method: 'GET', url: `/api/domains${query}` });
    return { status: res.statusCode, body: res.json(), bytes: res.body.length };
  };

  test("unasked, the first 100 hosts by name, with every field of a row, the totals and the server's clock", async () => {
    const { status, body, bytes } = await get();
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body).sort(), ['domains', 'hosts', 'limit', 'now', 'offset', 'states', 'total']);
    assert.deepEqual(
      [body.domains.length, body.total, body.hosts, body.offset, body.limit],
      [100, HOSTS, HOSTS, 0, 100],
    );
    assert.deepEqual(body.domains[0], t.app.crawler.domains[0], 'a row keeps every field of the unpaged answer');
    assert.equal(body.domains[99].host, 'h0099.wild.example');
    assert.equal(
      Object.values(body.states as Record<string, number>).reduce((a, b) => a + b, 0),
      HOSTS,
    );
    assert.ok(bytes < 80_000, `one page is ${bytes} bytes (all 5,000 rows would be about 50 times that)`);
  });

  test('a text filter, a state filter, a sort and a page, all on the server', async () => {
    const { body } = await get('?q=H04&state=failing&sort=fetched&dir=desc&limit=5&offset=5');
    const failing04 = t.app.crawler.domains.filter((d) => d.host.includes('h04') && d.state === 'failing');
    assert.equal(body.total, failing04.length);
    const expected = [...failing04]
      .sort((a, b) => b.fetched - a.fetched || (a.host < b.host ? -1 : 1))
      .slice(5, 10)
      .map((d) => d.host);
    assert.deepEqual(
      body.domains.map((d: { host: string }) => d.host),
      expected,
    );
    assert.equal(body.hosts, HOSTS);
    const idle = await get('?state=idle&limit=1000');
    const idleHosts = t.app.crawler.domains.filter((d) => d.state === 'idle').length; // the synthetic hosts cycle through every state
    assert.equal(idle.body.domains.length, idleHosts);
    assert.ok(idle.body.domains.every((d: { state: string }) => d.state === 'idle'));
  });

  test('the last page holds the rest; past the end is an empty page, totals still said', async () => {
    assert.deepEqual((await get('?offset=4950')).body.domains.length, 50);
    const past = (await get('?offset=6000')).body;
    assert.deepEqual([past.domains.length, past.total], [0, HOSTS]);
  });

  test('bad parameters are refused, each saying what it takes', async () => {
    const cases: Array<[string, RegExp]> = [
      ['?limit=0', /^limit must be an integer from 1 to 1000$/],
      ['?limit=1001', /^limit must be an integer from 1 to 1000$/],
      ['?offset=-1', /^offset must be an integer from 0 to/],
      ['?sort=size', /^sort must be one of host, state, fetched/],
      ['?dir=up', /^dir must be "asc" or "desc"$/],
      ['?state=sleeping', /^state must be one of crawling, waiting/],
      [`?q=${'x'.repeat(301)}`, /^q must be given once/],
    ];
    for (const [query, message] of cases) {
      const { status, body } = await get(query);
      assert.equal(status, 400, query);
      assert.equal(body.error, 'invalid-query', query);
      assert.match(body.message, message, query);
    }
  });
});
