/**
 * The server's storage contract, as one suite of tests that every engine's ServerStore must pass (called by
 * db/server-store.test.ts with SQLite and db/pg/pg-server-store.test.ts with PostgreSQL): what seeds, labels,
 * imports, the library's listing, bulk actions, pages and sessions answer, on a fresh database per test.
 * The crawler's side of the rows (frontier, seed_hosts, pages) is written with plain SQL both engines take.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_LABELS_PER_SEED } from './seed-labels.ts';
import type { ServerStore } from './server-store.ts';

/** A fresh database of one engine, with its ports and a way to write what the crawler would. */
export interface ContractFixture {
  store: ServerStore;
  /** Runs one SQL statement without parameters (literal values only: both engines take it). */
  exec(sql: string): Promise<void>;
  /** Stores a page row as the crawler would (columns by their SQL names; the engine adds its write sequence). */
  insertPage(columns: Record<string, string | number | null>): Promise<void>;
  close(): Promise<void>;
}

const T0 = 1_700_000_000_000;
const seedAt = (path: string, extra: { depth?: number; title?: string; scope?: 'host' | 'path' } = {}) => ({
  url: `https://example.org/${path}`,
  origin: 'https://example.org',
  depth: extra.depth ?? 2,
  scope: extra.scope ?? ('host' as const),
  ...(extra.title === undefined ? {} : { title: extra.title }),
});

/** Registers the contract's tests, each on a fixture `open` makes (and closes). */
export function serverStoreContract(engine: string, open: () => Promise<ContractFixture>): void {
  const withStore = (name: string, body: (f: ContractFixture) => Promise<void>) =>
    test(`${engine}: ${name}`, async () => {
      const f = await open();
      try {
        await body(f);
      } finally {
        await f.close();
      }
    });

  withStore(
    'a seed is stored once per URL; submitting it again updates depth and scope, not its creation',
    async (f) => {
      const first = await f.store.seeds.upsertSeed(seedAt('a', { title: 'Example A' }), T0);
      assert.equal(first.created, true);
      assert.deepEqual(
        { ...first.seed, id: 0 },
        {
          id: 0,
          url: 'https://example.org/a',
          origin: 'https://example.org',
          depth: 2,
          scope: 'host',
          createdAt: T0,
          updatedAt: T0,
          found: 0,
          fetched: 0,
          queued: 0,
          failed: 0,
          lastCrawledAt: null,
          hosts: 0,
          hostsRefused: 0,
          lastRefusedHost: null,
          lastFinishedAt: null,
          title: 'Example A',
          folder: null,
          labels: [],
          state: 'crawling',
          failure: null,
        },
      );
      const again = await f.store.seeds.upsertSeed(seedAt('a', { depth: 0, scope: 'path' }), T0 + 5);
      assert.equal(again.created, false);
      assert.equal(again.seed.id, first.seed.id);
      assert.deepEqual(
        [again.seed.depth, again.seed.scope, again.seed.createdAt, again.seed.updatedAt],
        [0, 'path', T0, T0 + 5],
      );
      assert.equal(await f.store.seeds.getSeed(first.seed.id + 1000), undefined);
    },
  );

  withStore(
    "a seed's counts and state come from the crawler's rows: crawling, done, failed with its reason",
    async (f) => {
      const { seed } = await f.store.seeds.upsertSeed(seedAt('s'), T0);
      const frontier = (url: string, state: string, finished: number | null, error: string | null) =>
        f.exec(`INSERT INTO frontier (url, origin, seed_id, depth, state, discovered_at, finished_at, last_error)
        VALUES ('${url}', 'https://example.org', ${seed.id}, 0, '${state}', ${T0}, ${finished ?? 'NULL'}, ${error === null ? 'NULL' : `'${error}'`})`);
      await frontier(seed.url, 'done', T0 + 10, null);
      await frontier('https://example.org/s/1', 'queued', null, null);
      await frontier('https://example.org/s/2', 'failed', T0 + 30, 'timeout');
      await f.exec(
        `INSERT INTO seed_hosts (seed_id, hosts, refused, refused_example) VALUES (${seed.id}, 3, 2, 'b.example.org')`,
      );
      const crawling = await f.store.seeds.getSeed(seed.id);
      assert.deepEqual(
        [crawling?.found, crawling?.fetched, crawling?.queued, crawling?.failed, crawling?.state],
        [3, 1, 1, 1, 'crawling'],
      );
      assert.deepEqual(
        [
          crawling?.lastCrawledAt,
          crawling?.lastFinishedAt,
          crawling?.hosts,
          crawling?.hostsRefused,
          crawling?.lastRefusedHost,
        ],
        [T0 + 10, T0 + 30, 3, 2, 'b.example.org'],
      );
      await f.exec(
        `UPDATE frontier SET state = 'done', finished_at = ${T0 + 40} WHERE url = 'https://example.org/s/1'`,
      );
      assert.equal((await f.store.seeds.getSeed(seed.id))?.state, 'done');
      await f.exec(`UPDATE frontier SET last_error = 'HTTP 404' WHERE url = '${seed.url}'`);
      const failed = await f.store.seeds.getSeed(seed.id);
      assert.deepEqual([failed?.state, failed?.failure], ['failed', 'HTTP 404']);
    },
  );

  withStore(
    'removing marks a seed once; it is listed nowhere but under removed; submitting it again makes it new',
    async (f) => {
      const { seed } = await f.store.seeds.upsertSeed(seedAt('r'), T0);
      assert.deepEqual(await f.store.seeds.markSeedRemoved(seed.id, T0 + 1), { id: seed.id, url: seed.url });
      assert.equal(await f.store.seeds.markSeedRemoved(seed.id, T0 + 2), undefined);
      assert.equal((await f.store.seeds.getSeed(seed.id))?.state, 'removed');
      assert.deepEqual(await f.store.seedList.findSeeds({ limit: 10, offset: 0 }), { seeds: [], total: 0 });
      const removed = await f.store.seedList.findSeeds({ state: 'removed', limit: 10, offset: 0 });
      assert.deepEqual([removed.total, removed.seeds[0]?.id], [1, seed.id]);
      const back = await f.store.seeds.upsertSeed(seedAt('r'), T0 + 9);
      assert.deepEqual(
        [back.created, back.seed.id, back.seed.createdAt, back.seed.state],
        [true, seed.id, T0 + 9, 'crawling'],
      );
    },
  );

  withStore(
    `labels: added up to ${MAX_LABELS_PER_SEED}, replaced whole, counted over live seeds in byte order`,
    async (f) => {
      const a = (await f.store.seeds.upsertSeed(seedAt('a'), T0)).seed.id;
      const b = (await f.store.seeds.upsertSeed(seedAt('b'), T0)).seed.id;
      await f.store.seedLabels.addLabels(a, ['rust', 'Docs', 'rust']);
      await f.store.seedLabels.addLabels(b, ['rust', 'zig']);
      assert.deepEqual(await f.store.seedLabels.listLabels(), [
        { label: 'Docs', seeds: 1 },
        { label: 'rust', seeds: 2 },
        { label: 'zig', seeds: 1 },
      ]);
      const many = Array.from({ length: MAX_LABELS_PER_SEED + 5 }, (_, i) => `l${String(i).padStart(2, '0')}`);
      await f.store.seedLabels.addLabels(a, many);
      assert.equal((await f.store.seeds.getSeed(a))?.labels.length, MAX_LABELS_PER_SEED);
      assert.equal(await f.store.seedLabels.setLabels(a, ['only']), true);
      assert.deepEqual((await f.store.seeds.getSeed(a))?.labels, ['only']);
      await f.store.seeds.markSeedRemoved(b, T0 + 1);
      assert.equal(await f.store.seedLabels.setLabels(b, ['x']), false, 'a removed seed takes no labels');
      assert.deepEqual(await f.store.seedLabels.listLabels(1), [{ label: 'only', seeds: 1 }]);
    },
  );

  withStore(`two requests labelling one seed at once never take it past ${MAX_LABELS_PER_SEED} labels`, async (f) => {
    const a = (await f.store.seeds.upsertSeed(seedAt('a'), T0)).seed.id;
    const batch = (prefix: string) => Array.from({ length: 15 }, (_, i) => `${prefix}${i}`);
    await Promise.all([
      f.store.seedLabels.addLabels(a, batch('x')),
      f.store.seedLabels.addLabels(a, batch('y')),
      f.store.seedBulk.applyToSeeds('label', [a], batch('z'), T0),
    ]);
    assert.equal((await f.store.seeds.getSeed(a))?.labels.length, MAX_LABELS_PER_SEED);
  });

  withStore(
    'an import creates new seeds, merges into live ones (keeping their crawl), brings removed ones back',
    async (f) => {
      const live = (await f.store.seeds.upsertSeed(seedAt('live'), T0)).seed.id;
      const gone = (await f.store.seeds.upsertSeed(seedAt('gone'), T0)).seed.id;
      await f.store.seeds.markSeedRemoved(gone, T0 + 1);
      const bookmark = (path: string, labels: string[]) => ({
        url: `https://example.org/${path}`,
        origin: 'https://example.org',
        title: `Title ${path}`,
        folder: 'Bar / Dev',
        labels,
      });
      const out = await f.store.seedLabels.importSeeds(
        [bookmark('new', ['dev']), bookmark('live', ['dev']), bookmark('gone', ['old'])],
        { depth: 0, scope: 'path' },
        T0 + 100,
      );
      assert.deepEqual(out.merged, [live]);
      assert.equal(out.created.length, 2);
      assert.ok(out.created.includes(gone));
      const merged = await f.store.seeds.getSeed(live);
      assert.deepEqual(
        [merged?.depth, merged?.scope, merged?.title, merged?.labels],
        [2, 'host', 'Title live', ['dev']],
      );
      const revived = await f.store.seeds.getSeed(gone);
      assert.deepEqual(
        [revived?.state, revived?.depth, revived?.scope, revived?.createdAt],
        ['crawling', 0, 'path', T0 + 100],
      );
      const made = await f.store.seeds.getSeed(out.created.find((id) => id !== gone)!);
      assert.deepEqual([made?.url, made?.folder, made?.labels], ['https://example.org/new', 'Bar / Dev', ['dev']]);
    },
  );

  withStore(
    'a long import with a URL listed twice: new the first time, merged the second, labels of both',
    async (f) => {
      const list = Array.from({ length: 2500 }, (_, i) => ({
        url: `https://h${i % 7}.example.org/${i}`,
        origin: `https://h${i % 7}.example.org`,
        title: i === 0 ? null : `T${i}`,
        folder: null,
        labels: [`l${i % 3}`],
      }));
      list.push({ ...list[0]!, title: 'Second title', labels: ['again', 'l0'] });
      const out = await f.store.seedLabels.importSeeds(list, { depth: 1, scope: 'host' }, T0);
      assert.equal(out.created.length, 2500);
      assert.equal(new Set(out.created).size, 2500);
      assert.deepEqual(out.merged, [out.created[0]]);
      const first = await f.store.seeds.getSeed(out.created[0]!);
      assert.deepEqual(
        [first?.url, first?.title, first?.labels],
        ['https://h0.example.org/0', 'Second title', ['again', 'l0']],
      );
      const last = await f.store.seeds.getSeed(out.created[2499]!);
      assert.deepEqual([last?.url, last?.title, last?.labels], ['https://h0.example.org/2499', 'T2499', ['l0']]);
      const sorted = [...out.created].sort((a, b) => a - b);
      assert.deepEqual(out.created, sorted, 'ids in list order');
    },
  );

  withStore(
    'the library finds by title, URL or label (ASCII case aside, wildcards literal), filters, sorts and pages',
    async (f) => {
      const ids: Record<string, number> = {};
      for (const [path, title] of [
        ['zeta', 'alpha Guide'],
        ['100%', null],
        ['beta', 'Beta notes'],
        ['gamma', 'ÉCOLE'],
      ] as const) {
        ids[path] = (await f.store.seeds.upsertSeed(seedAt(path, title === null ? {} : { title }), T0)).seed.id;
      }
      await f.store.seedLabels.setLabels(ids.beta, ['guides']);
      const urls = async (filter: Parameters<ServerStore['seedList']['findSeeds']>[0]) => {
        const found = await f.store.seedList.findSeeds(filter);
        return { urls: found.seeds.map((s) => s.url.slice('https://example.org/'.length)), total: found.total };
      };
      assert.deepEqual(await urls({ query: 'GUIDE', sort: 'url', limit: 10, offset: 0 }), {
        urls: ['beta', 'zeta'],
        total: 2,
      });
      assert.deepEqual(await urls({ query: '0%', limit: 10, offset: 0 }), { urls: ['100%'], total: 1 });
      assert.deepEqual(
        await urls({ query: 'école', limit: 10, offset: 0 }),
        { urls: [], total: 0 },
        'only ASCII folds',
      );
      assert.deepEqual(await urls({ label: 'guides', limit: 10, offset: 0 }), { urls: ['beta'], total: 1 });
      assert.deepEqual(await urls({ sort: 'title', limit: 10, offset: 0 }), {
        urls: ['zeta', 'beta', '100%', 'gamma'], // alpha Guide, Beta notes, https://... (its URL), ÉCOLE (past ASCII)
        total: 4,
      });
      assert.deepEqual(await urls({ sort: 'oldest', limit: 2, offset: 1 }), { urls: ['100%', 'beta'], total: 4 });
      await f.exec(`INSERT INTO frontier (url, origin, seed_id, depth, state, discovered_at)
      VALUES ('https://example.org/beta', 'https://example.org', ${ids.beta}, 0, 'done', ${T0})`);
      assert.deepEqual(await urls({ state: 'done', limit: 10, offset: 0 }), { urls: ['beta'], total: 1 });
      assert.deepEqual(await urls({ state: 'crawling', sort: 'url', limit: 1, offset: 1 }), {
        urls: ['gamma'],
        total: 3,
      });
    },
  );

  withStore('a bulk action changes every live seed of the selection at once and says how many', async (f) => {
    const a = (await f.store.seeds.upsertSeed(seedAt('a'), T0)).seed.id;
    const b = (await f.store.seeds.upsertSeed(seedAt('b'), T0)).seed.id;
    const gone = (await f.store.seeds.upsertSeed(seedAt('c'), T0)).seed.id;
    await f.store.seeds.markSeedRemoved(gone, T0);
    assert.equal(await f.store.seedBulk.applyToSeeds('label', [a, b, b, gone, 9999], ['x', 'y'], T0), 2);
    assert.deepEqual((await f.store.seeds.getSeed(b))?.labels, ['x', 'y']);
    assert.equal(await f.store.seedBulk.applyToSeeds('unlabel', [a], ['x'], T0), 1);
    assert.deepEqual((await f.store.seeds.getSeed(a))?.labels, ['y']);
    assert.equal(await f.store.seedBulk.applyToSeeds('crawl', [a], [], T0 - 50), 1);
    assert.equal((await f.store.seeds.getSeed(a))?.updatedAt, T0 + 1, 'moved past its old value');
    assert.equal(await f.store.seedBulk.applyToSeeds('remove', [a, b], [], T0 + 7), 2);
    assert.deepEqual(await f.store.seedList.findSeeds({ limit: 10, offset: 0 }), { seeds: [], total: 0 });
  });

  withStore('pages: one by URL as stored, and counts of stored and searchable pages without tombstones', async (f) => {
    assert.deepEqual(await f.store.pages.countPages(), { pages: 0, indexed: 0 });
    assert.equal(await f.store.pages.getPage('https://example.org/p'), undefined);
    const page = (url: string, indexed: number, removed: number) =>
      f.insertPage({
        url,
        final_url: url,
        origin: 'https://example.org',
        host: 'example.org',
        status: 200,
        title: 'A page',
        headings: 'One\nTwo',
        body: 'text',
        fetched_at: T0,
        etag: '"e1"',
        noarchive: 1,
        indexed,
        removed,
      });
    await page('https://example.org/p', 1, 0);
    await page('https://example.org/q', 0, 0);
    await page('https://example.org/gone', 0, 1);
    assert.deepEqual(await f.store.pages.countPages(), { pages: 2, indexed: 1 });
    const got = await f.store.pages.getPage('https://example.org/p');
    assert.ok(got !== undefined && typeof got.id === 'number' && typeof got.seq === 'number');
    assert.deepEqual(
      { ...got, id: 0, seq: 0 },
      {
        id: 0,
        seq: 0,
        url: 'https://example.org/p',
        finalUrl: 'https://example.org/p',
        origin: 'https://example.org',
        host: 'example.org',
        seedId: null,
        status: 200,
        contentType: null,
        title: 'A page',
        description: '',
        headings: ['One', 'Two'],
        body: 'text',
        lang: null,
        canonical: null,
        fetchedAt: T0,
        etag: '"e1"',
        lastModified: null,
        contentHash: null,
        noindex: false,
        nofollow: false,
        noarchive: true,
        nosnippet: false,
        indexed: true,
      },
    );
  });

  withStore(
    'sessions: live until they expire, ended once, and the expired ones dropped when a new one starts',
    async (f) => {
      await f.store.sessions.startSession('d1', T0, T0 + 100);
      assert.deepEqual(await f.store.sessions.liveSession('d1', T0 + 99), { createdAt: T0, expiresAt: T0 + 100 });
      assert.equal(await f.store.sessions.liveSession('d1', T0 + 100), undefined, 'over at its expiry');
      assert.equal(await f.store.sessions.liveSession('other', T0), undefined);
      await f.store.sessions.startSession('d2', T0 + 200, T0 + 300);
      assert.equal(await f.store.sessions.endSession('d1'), false, 'dropped when d2 started');
      assert.equal(await f.store.sessions.endSession('d2'), true);
      assert.equal(await f.store.sessions.liveSession('d2', T0 + 201), undefined);
    },
  );
}
