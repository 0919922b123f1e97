/**
 * Crawled text cannot disguise itself in any answer, and one page cannot flood the results screen: a page
 * whose title hides its extension behind RIGHT-TO-LEFT OVERRIDE and whose text is one 60,000-character
 * word, through the whole app (every plugin) as the browser asks for it: search, suggestions, stored text,
 * Domains (a host's last error quoting a URL) and its request list, and Seeds.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { openDatabase } from '../../db/open.ts';
import { pageQueries } from '../../db/pages.ts';
import { seedHostQueries } from '../../db/seed-hosts.ts';
import { makePage } from '../../test-support/test-corpus.ts';
import type { DomainInfo } from '../../crawler/common/protocol.ts';
import { RESULT_CAPS } from '../search/result-caps.ts';

const RLO = '\u202E';
const BIDI = /[\u202A-\u202E\u2066-\u2069]/;
const TITLE = `invoice ${RLO}gnp.exe quarterly`;
const WORD = `zebra${'z'.repeat(60_000)}`;
const URL_ = 'https://hostile.example/invoice';

describe('crawled text in every answer', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
    const db = openDatabase(t.dataDir); // as the crawler primary writes it
    pageQueries(db).upsertPage(
      makePage(URL_, {
        title: TITLE,
        body: `quarterly ${RLO}report\u2066 ${WORD} the end`,
        description: `${RLO}fdp.txt`,
      }),
    );
    db.close();
    t.app.searcher.refresh();
  });
  after(async () => {
    await t.close();
  });
  const get = async (url: string) => {
    const res = await t.app.inject({ method: 'GET', url });
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(!BIDI.test(res.body), `${url}: no bidirectional control in the answer`);
    return res.json();
  };

  test('search: the title reads as it is spelled; title and snippet within their caps', async () => {
    const { results } = await get('/api/search?q=quarterly');
    assert.equal(results.length, 1);
    assert.equal(results[0].title, 'invoice gnp.exe quarterly');
    const zebra = (await get('/api/search?q=zebra')).results[0];
    const length = zebra.snippet.reduce((n: number, p: { text: string }) => n + p.text.length, 0);
    assert.ok(length <= RESULT_CAPS.snippetChars, `snippet of ${length} characters`);
  });

  test('suggestions and stored text', async () => {
    const { suggestions } = await get('/api/suggest?q=invoi');
    assert.ok(
      suggestions.some((s: { text: string }) => s.text === 'invoice gnp.exe quarterly'),
      JSON.stringify(suggestions),
    );
    const [, texts] = await get('/api/suggest?q=invoi&format=opensearch');
    assert.ok(texts.includes('invoice gnp.exe quarterly'));
    const { page } = await get(`/api/pages?url=${encodeURIComponent(URL_)}`);
    assert.equal(page.title, 'invoice gnp.exe quarterly');
    assert.equal(page.description, 'fdp.txt');
    assert.ok(page.text.startsWith('quarterly report '), page.text.slice(0, 40));
  });

  test("Domains: a host's state, last error and name; Seeds: a refused host", async () => {
    const row: DomainInfo = {
      host: `a${RLO}gro.example`,
      origin: 'https://a.example',
      state: 'failing',
      stateText: `failing: fetcher: ${URL_}${RLO}fdp.exe timed out`,
      queued: 0,
      fetched: 0,
      errors: 1,
      inFlight: 0,
      lastFetchAt: null,
      nextFetchAt: null,
      crawlDelayMs: 1000,
      delaySource: 'default',
      delayText: '1.0 s: the default delay',
      group: { name: 'a.example', hosts: 1, inFlight: 0, lastFetchAt: null, nextFetchAt: null },
      backoffUntil: null,
      lastError: `fetcher: ${URL_}${RLO}fdp.exe timed out`,
      robots: { status: 'ok', httpStatus: 200, fetchedAt: null, crawlDelayMs: null },
    };
    t.app.crawler.domains = [row]; // what a snapshot of the primary sets (server/crawler-link.ts)
    const { domains } = await get('/api/domains');
    assert.equal(domains[0].lastError, `fetcher: ${URL_}fdp.exe timed out`);
    assert.equal(t.app.crawler.domains[0].lastError, row.lastError, 'the snapshot itself is not modified');
    const { seed } = (
      await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'https://wild.example/' } })
    ).json();
    const db = openDatabase(t.dataDir);
    seedHostQueries(db).saveSeedHosts({
      seedId: seed.id,
      hosts: 1000,
      refused: 3,
      refusedExample: `a${RLO}moc.example`,
      refusedAt: 1,
    });
    db.close();
    const { seeds } = await get('/api/seeds');
    assert.equal(seeds[0].lastRefusedHost, 'amoc.example');
  });
});
