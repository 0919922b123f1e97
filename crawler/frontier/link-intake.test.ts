/**
 * The link intake on a real SQLite file, through the crawl store's transactions: a page's links taken in
 * with the storage's batch methods (knownUrls, touchUrls, addUrls) decide exactly as the links taken one by
 * one would, at the budgets' limits too: which are queued, which gain an inlink, what the hosts' rows say.
 */
import { afterEach, beforeEach, test } from 'node:test';
import assert from 'node:assert/strict';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';
import { seedQueries } from '../../db/seeds.ts';
import { type TempDatabase, tempDatabase } from '../../test-support/test-corpus.ts';
import { BatchEffects } from './batch-effects.ts';
import { LinkIntake } from './link-intake.ts';

const A = 'https://a.example';
const B = 'https://b.example';
const C = 'https://c.example';

let one: TempDatabase;
let each: TempDatabase;
beforeEach(() => {
  one = tempDatabase('link-intake-batch');
  each = tempDatabase('link-intake-each');
  for (const t of [one, each]) seedQueries(t.db).upsertSeed({ url: `${A}/`, origin: A, depth: 3, scope: 'any' }, 1);
});
afterEach(() => {
  one.cleanup();
  each.cleanup();
});

/** An intake of 4 URLs per host and 2 hosts per seed on `t`'s database, and a way to take links in, as a page's (batch) or one by one. */
async function intakeOn(t: TempDatabase) {
  const store = sqliteCrawlStore(t.db);
  const intake = new LinkIntake({ maxUrlsPerHost: 4, maxHostsPerSeed: 2, seedUrl: () => `${A}/` });
  await intake.load(store);
  const take = async (urls: string[], batch: boolean): Promise<BatchEffects> => {
    const fx = new BatchEffects();
    await store.transaction(async (tx) => {
      intake.begin();
      if (batch) await intake.enqueueAll(tx, urls, 1, 1, 0, 5, A, fx);
      else for (const url of urls) await intake.enqueue(tx, url, 1, 1, 0, 5, A, fx);
      await intake.saveSeedHosts(tx);
    });
    intake.committed();
    return fx;
  };
  const stored = () => t.db.prepare('SELECT url, inlinks, state FROM frontier ORDER BY id').all();
  return { take, stored };
}

test("a page's links taken in at once decide as one by one, at the budgets' limits too", async () => {
  const batch = await intakeOn(one);
  const single = await intakeOn(each);
  const pages = [
    [`${A}/`, `${A}/a`, `${A}/b`], // room for all: added at once (the seed's own URL known already)
    [`${A}/b`, `${A}/c`, `${A}/d`, `${A}/c`], // room for one: /b known (an inlink, no room used), /c queued, /d refused
    [`${B}/x`, `${C}/y`, `${B}/x`, `${A}/a`], // a second host fits the seed, a third does not
  ];
  for (const links of pages) {
    const [fxBatch, fxEach] = [await batch.take(links, true), await single.take(links, false)];
    assert.deepEqual(
      fxBatch.queued.map((r) => r.url),
      fxEach.queued.map((r) => r.url),
      `queued alike: ${links.join(' ')}`,
    );
    assert.deepEqual(fxBatch.hostNotes, fxEach.hostNotes, 'the hosts’ rows say the same');
  }
  assert.deepEqual(batch.stored(), single.stored(), 'the same rows and inlinks on disk');
  assert.deepEqual(
    batch.stored().map((r) => (r as { url: string }).url),
    [`${A}/`, `${A}/a`, `${A}/b`, `${A}/c`, `${B}/x`],
    'the budgets held: 4 URLs on a.example, 2 hosts for the seed',
  );
});
