/**
 * Held writes travel as SQL text with their values written in as literals (db/pg/pg-runner.ts): text a
 * crawled site controls (URLs, anchor text, errors, robots rules, page text) must come back byte for byte and
 * never be read as SQL. A throwaway cluster (test-support/postgres.ts).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestPostgres, type TestPostgres } from '../../test-support/postgres.ts';
import { page } from '../crawl-store-contract-kit.ts';
import { newHostRow } from '../hosts.ts';
import { migratePg } from './migrate-pg.ts';
import { pgCrawlStore } from './pg-crawl-store.ts';
import { literal, PgLiteralError } from './pg-runner.ts';
import { openPgPool } from './pool.ts';

let cluster: TestPostgres;
before(async () => {
  cluster = await startTestPostgres();
});
after(() => cluster?.stop());

const T0 = 1_700_000_000_000;
const HOSTILE = [
  "'; DROP TABLE frontier; --",
  "back\\slash \\' \\\\ end\\",
  '$1 $2 $$ $tag$ body $tag$',
  "E'\\x41' U&'\\0041'",
  '"quoted" {braces,comma} NULL',
  'tab\tnew\nline\r',
  'ünïcødé 日本 🙂',
];

test('text a site controls goes through held writes and back unchanged, never as SQL', async () => {
  const pool = openPgPool(await cluster.createDatabase(), { max: 2 });
  try {
    await migratePg(pool);
    const store = pgCrawlStore(pool);
    const origin = 'https://example.org';
    const seedId = (await store.seeds.upsertSeed({ url: `${origin}/`, origin, depth: 2, scope: 'host' }, T0)).seed.id;
    const urls = HOSTILE.map((h, i) => `${origin}/${i}?q=${h}`);
    const rows = await store.frontier.addUrls(
      urls.map((url) => ({ url, origin, seedId, depth: 1, redirects: 0 })),
      T0,
    );
    await store.transaction(async (tx) => {
      for (const [i, h] of HOSTILE.entries()) {
        // Each of these is held, and travels with the next statement that answers rows (upsertPage).
        await tx.frontier.finishUrl(rows[i]!.id, 'failed', h, T0 + 1);
        await tx.hosts.saveHost({ ...newHostRow(`https://h${i}.example`, `h${i}.example`), lastError: h }, T0);
        await tx.hosts.saveRobotsFile(`https://h${i}.example`, h, h);
        await tx.frontier.touchUrls([urls[i]!, h]);
        const pageId = await tx.pages.upsertPage({
          ...page(urls[i]!, seedId, { title: h, description: h, body: h, etag: h }),
          contentType: null,
          headings: [],
          lang: null,
          contentHash: null,
        });
        await tx.linkTargets.gatherLinks(pageId, [{ url: `${origin}/t?${h}`, text: h.replace(/\s+/g, ' ').trim() }]);
        // A page stored for its links is a held write itself, its url named again when its id is read.
        await tx.pages.storePage(page(`${origin}/s${i}?q=${h}`, seedId, { title: h, body: h }), [
          { url: `${origin}/s?${h}`, text: h },
        ]);
      }
    });
    const hosts = await store.hosts.allHosts();
    for (const [i, h] of HOSTILE.entries()) {
      const row = await store.frontier.urlByUrl(urls[i]!);
      assert.equal(row?.state, 'failed', h);
      assert.equal(
        (await pool.query('SELECT last_error, inlinks FROM frontier WHERE id = $1', [rows[i]!.id])).rows[0]?.last_error,
        h,
      );
      const host = hosts.find((x) => x.origin === `https://h${i}.example`);
      assert.deepEqual([host?.lastError, host?.robotsBody, host?.robotsRules], [h, h, h]);
      const storedPage = await store.pages.getPage(urls[i]!);
      assert.deepEqual([storedPage?.title, storedPage?.etag], [h, h]);
      const held = await store.pages.getPage(`${origin}/s${i}?q=${h}`);
      assert.deepEqual([held?.title, held?.body], [h, h]);
      assert.deepEqual((await store.linkTargets.target(`${origin}/s?${h}`))?.inlinks, 1);
      assert.deepEqual(await store.linkTargets.target(`${origin}/t?${h}`), {
        inlinks: 1,
        anchors: [h.replace(/\s+/g, ' ').trim()],
        counts: [1],
      });
    }
    const inlinks = await pool.query('SELECT inlinks FROM frontier WHERE url = ANY ($1) ORDER BY id', [urls]);
    assert.deepEqual(
      inlinks.rows.map((r) => r.inlinks),
      HOSTILE.map(() => 1),
    );
  } finally {
    await pool.end();
  }
});

test("the primary's clock (sub-millisecond times) is stored rounded up, on every path; a page's link density keeps its fraction", async () => {
  const pool = openPgPool(await cluster.createDatabase(), { max: 2 });
  try {
    await migratePg(pool);
    const store = pgCrawlStore(pool);
    const origin = 'https://example.org';
    const now = T0 + 0.6228; // performance.timeOrigin + performance.now(), as crawler/primary.ts reads it
    // On the pool (parameters), then in a transaction: a statement with parameters, then held writes (literals).
    await store.stops.markRunning(now);
    const seedId = (await store.seeds.upsertSeed({ url: `${origin}/`, origin, depth: 2, scope: 'host' }, now)).seed.id;
    const [added] = await store.frontier.addUrls([{ url: `${origin}/a`, origin, seedId, depth: 1, redirects: 0 }], now);
    await store.transaction(async (tx) => {
      await tx.frontier.finishUrl(added!.id, 'failed', 'gone', now + 10.2, true);
      await tx.hosts.saveHost(newHostRow(origin, 'example.org'), now + 20.5);
      await tx.pages.upsertPage(page(`${origin}/a`, seedId, { fetchedAt: now + 30.01, linkDensity: 0.375 }));
    });
    const stored = (await pool.query('SELECT fetched_at, link_density FROM pages')).rows[0];
    assert.deepEqual(stored, { fetched_at: T0 + 31, link_density: 0.375 });
    const url = (await pool.query('SELECT finished_at FROM frontier WHERE id = $1', [added!.id])).rows[0];
    assert.equal(url?.finished_at, T0 + 11);
  } finally {
    await pool.end();
  }
});

test('held writes past 1 MiB are sent early, and the transaction still commits or rolls back whole', async () => {
  const pool = openPgPool(await cluster.createDatabase(), { max: 2 });
  try {
    await migratePg(pool);
    const trips: number[] = [];
    const store = pgCrawlStore(pool, { onTransaction: (r) => trips.push(r.roundTrips) });
    const rules = (n: number) => `{"rules":"${String(n).repeat(700_000)}"}`;
    const batch = async (fail: boolean) =>
      store.transaction(async (tx) => {
        await tx.hosts.saveHost(newHostRow('https://big.example', 'big.example'), T0);
        await tx.hosts.saveRobotsFile('https://big.example', null, rules(1));
        await tx.hosts.saveRobotsFile('https://big.example', null, rules(2)); // past 1 MiB held: sent now
        await tx.stops.markRunning(T0);
        if (fail) throw new Error('batch failed after its early send');
      });
    await assert.rejects(batch(true), /after its early send/);
    assert.deepEqual(await store.hosts.allHosts(), [], 'the early send was rolled back with the rest');
    assert.deepEqual(await store.stops.lastStop(), { clean: true, contactedBy: null });
    await batch(false);
    assert.equal((await store.hosts.allHosts())[0]?.robotsRules, rules(2));
    assert.deepEqual(await store.stops.lastStop(), { clean: false, contactedBy: T0 });
    assert.deepEqual(trips.slice(-1), [2], 'the early send, then the rest with COMMIT');
  } finally {
    await pool.end();
  }
});

test("a batch of pages stored for their links costs two round trips, however many pages: none awaits a page's id", async () => {
  const pool = openPgPool(await cluster.createDatabase(), { max: 2 });
  try {
    await migratePg(pool);
    const trips: number[] = [];
    const store = pgCrawlStore(pool, { onTransaction: (r) => trips.push(r.roundTrips) });
    const origin = 'https://example.org';
    const seedId = (await store.seeds.upsertSeed({ url: `${origin}/`, origin, depth: 2, scope: 'host' }, T0)).seed.id;
    const batch = (n: number) =>
      store.transaction(async (tx) => {
        for (let i = 0; i < n; i++)
          await tx.pages.storePage(page(`${origin}/p${i}`, seedId), [
            { url: `${origin}/shared`, text: 'shared' },
            { url: `${origin}/t${i}`, text: `to ${i}` },
          ]);
        await tx.stops.markRunning(T0);
      });
    await batch(20);
    await batch(40); // the first 20 fetched again, 20 new
    // BEGIN, the held upserts and the read of the targets and the pages' ids; then the targets' writes and COMMIT.
    assert.deepEqual(trips.slice(-2), [2, 2]);
    assert.deepEqual(await store.pages.countPages(), { pages: 40, indexed: 40 });
    assert.deepEqual(await store.linkTargets.target(`${origin}/shared`), {
      inlinks: 40,
      anchors: ['shared'],
      counts: [40],
    });
    assert.deepEqual(await store.linkTargets.target(`${origin}/t39`), { inlinks: 1, anchors: ['to 39'], counts: [1] });
  } finally {
    await pool.end();
  }
});

test('a value PostgreSQL cannot take as a literal is refused, not written', () => {
  for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, {}, [[1]]]) {
    assert.throws(() => literal(bad), PgLiteralError, String(bad));
  }
  assert.equal(literal(null), 'NULL');
  assert.equal(literal("it's"), "'it''s'");
  assert.equal(literal('a\\b'), " E'a\\\\b'");
  assert.equal(literal(['a"b', null, 'c\\d']), ` E'{"a\\\\"b",NULL,"c\\\\\\\\d"}'`);
});
