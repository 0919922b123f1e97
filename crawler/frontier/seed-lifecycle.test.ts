/**
 * The seeds' life (seed-lifecycle.ts) on a real SQLite file: a sync returns its decisions as write intents;
 * writing them (seed-writes.ts) gathers what memory must learn in a BatchEffects (nothing in memory changes while the
 * transaction may still roll back); a removed seed's URLs are deleted a chunk per batch, each chunk asking
 * for the next.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { frontierQueries } from '../../db/frontier.ts';
import { seedQueries } from '../../db/seeds.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import { BatchEffects } from './batch-effects.ts';
import type { FrontierWrite } from './frontier-writes.ts';
import { SeedBook } from './seed-book.ts';
import { SeedLifecycle } from './seed-lifecycle.ts';
import { SeedWrites, URL_CHUNK } from './seed-writes.ts';

const ORIGIN = 'https://site.example';
const NOW = 50_000;

let tmp: TempDatabase;
beforeEach(async () => {
  tmp = tempDatabase('seed-lifecycle');
});
afterEach(() => tmp.cleanup());

function setUp() {
  const seeds = new SeedBook();
  const store = sqliteCrawlStore(tmp.db);
  const life = new SeedLifecycle({ seeds, seedsDb: store.seeds, frontier: store.frontier, refreshMs: 0 });
  const writer = new SeedWrites({ seeds });
  /** Writes `writes` in one transaction, as the applier does; returns what they did. */
  const write = async (writes: readonly FrontierWrite[], now = NOW): Promise<BatchEffects> => {
    const fx = new BatchEffects();
    await store.transaction(async (tx) => {
      for (const w of writes) await writer.write(tx, w, now, fx);
    });
    return fx;
  };
  return { seeds, life, write, writer, store };
}

test("a new seed's sync decides to take it in; writing that queues its URL, and memory learns it from the effects", async () => {
  const { life, write, seeds } = setUp();
  seedQueries(tmp.db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 1, scope: 'host' }, 1000);
  const plan = await life.sync(true);
  assert.deepEqual(plan.removed, []);
  assert.deepEqual(plan.queued, []);
  assert.deepEqual(
    plan.atOnce.map((w) => w.kind),
    ['take-in-seeds'],
  );
  assert.equal(frontierQueries(tmp.db).urlByUrl(`${ORIGIN}/`), undefined, 'deciding wrote nothing');

  const fx = await write(plan.atOnce);
  const seed = seeds.get(1)!;
  assert.deepEqual(
    fx.queued.map((r) => r.url),
    [`${ORIGIN}/`],
  );
  assert.deepEqual(fx.counted, [{ seedId: 1, origin: ORIGIN }]);
  assert.deepEqual(fx.sitemapsOf, [seed]);
  assert.deepEqual(fx.followUps, []);
});

test("a removed seed's URLs are deleted a chunk per batch, each chunk asking for the next; the last one forgets it", async () => {
  const { life, write } = setUp();
  const seedsDb = seedQueries(tmp.db);
  const { id } = seedsDb.upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 1, scope: 'host' }, 1000).seed;
  await write((await life.sync(true)).atOnce);
  const frontier = frontierQueries(tmp.db);
  for (let i = 1; i <= URL_CHUNK; i++)
    frontier.addUrl({ url: `${ORIGIN}/${i}`, origin: ORIGIN, seedId: id, depth: 1, redirects: 0 }, NOW);

  seedsDb.markSeedRemoved(id, 2000);
  const plan = await life.sync(true);
  assert.deepEqual(
    plan.removed.map((s) => s.id),
    [id],
  );
  assert.deepEqual(plan.atOnce, []);
  assert.deepEqual(plan.queued, [
    { kind: 'drop-seed-urls', seedId: id },
    { kind: 'retire-seed-pages', seedId: id },
  ]);

  const first = await write([plan.queued[0]]);
  assert.equal(first.deleted[0].rows.length, URL_CHUNK);
  assert.deepEqual(first.followUps, [{ kind: 'drop-seed-urls', seedId: id }], 'a full chunk asks for the next');
  assert.deepEqual(first.gone, []);

  const last = await write(first.followUps);
  assert.equal(last.deleted[0].rows.length, 1, "the seed's own URL, the last one");
  assert.deepEqual(last.followUps, []);
  assert.deepEqual(last.gone, [id], 'its URLs are all gone: memory forgets the seed once this commits');
});

test('a batch that rolls back changes nothing: its effects are dropped, and the same writes run again in full', async () => {
  const { life, write, writer, store } = setUp();
  seedQueries(tmp.db).upsertSeed({ url: `${ORIGIN}/`, origin: ORIGIN, depth: 1, scope: 'host' }, 1000);
  const plan = await life.sync(true);
  const lost = new BatchEffects();
  await assert.rejects(() =>
    store.transaction(async (tx) => {
      for (const w of plan.atOnce) await writer.write(tx, w, NOW, lost);
      throw new Error('disk full');
    }),
  );
  assert.equal(frontierQueries(tmp.db).urlByUrl(`${ORIGIN}/`), undefined, 'nothing of it is stored');
  const fx = await write(plan.atOnce);
  assert.deepEqual(
    fx.queued.map((r) => r.url),
    [`${ORIGIN}/`],
    'run again, it queues the URL and reports it, as if the failed batch had never run',
  );
});
