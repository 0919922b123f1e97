import { test, afterEach, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pageQueries } from '../../db/pages.ts';
import type { PageQueries } from '../../db/pages.ts';
import { waitFor } from '../../test-support/test-web.ts';
import { runSteps, TermSearch } from './term-search.ts';
import { OPTIONS, toDoc } from './title-doc.ts';
import { SearchService } from './search-service.ts';
import { TitleIndex } from './title-index.ts';
import type { TitleSnapshotOptions } from './title-index.ts';
import { decodeSnapshot, encodeSnapshot, SnapshotError } from './title-snapshot.ts';
import { CORPUS, makePage, tempDatabase } from '../../test-support/test-corpus.ts';

let env: ReturnType<typeof tempDatabase>;
let file: string;
let warnings: string[];
beforeEach(() => {
  env = tempDatabase();
  file = path.join(env.dir, 'title-index.snapshot');
  warnings = [];
});
afterEach(() => env.cleanup());

function snapshotOpts(extra: Partial<TitleSnapshotOptions> = {}): TitleSnapshotOptions {
  return { file, warn: (m) => warnings.push(m), ...extra };
}

function storeCorpus(pages: PageQueries): void {
  env.db.transaction(() => {
    for (const p of Object.values(CORPUS)) pages.upsertPage(p);
  })();
}

async function started(index: TitleIndex): Promise<TitleIndex> {
  index.catchUpLater();
  await waitFor(() => index.ready, { timeoutMs: 5000, message: 'title index ready' });
  return index;
}

/** What an index answers for a fixed set of searches, completions and corrections. */
function answers(index: TitleIndex): unknown {
  const words = [
    ['telescope'],
    ['sourdough', 'starter'],
    ['galax'],
    ['subprocess'],
    ['telescpe'],
    ['volcano', 'iceland'],
    ['ches'],
  ];
  return {
    size: index.size,
    searches: words.map((w) =>
      index.search(w, { prefixLast: true, limit: 10 }).hits.map((h) => [h.id, h.score.toFixed(9), h.titleTerms]),
    ),
    completions: ['te', 'sour', 'gal', 'vol'].map((p) => index.complete(p, 5)),
    corrections: index.corrections('telescpe', 3),
  };
}

test('a restored index answers exactly like the one it was taken from, and catches up from its cursor', async () => {
  const pages = pageQueries(env.db);
  storeCorpus(pages);
  const first = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.equal(first.restoredFrom, undefined, 'no file yet: built from the pages table');
  await first.writeSnapshot();
  const before = answers(first);
  first.close();

  const second = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.equal(second.restoredFrom?.cursor, first.cursor);
  assert.equal(
    second.restoredFrom?.checks.length,
    Object.keys(CORPUS).length,
    'every page is a spot check in a small index',
  );
  assert.deepEqual(answers(second), before);
  assert.deepEqual(warnings, []);
  second.close();

  // Changes after the snapshot: a new page, a re-crawled one with a new title, one gone.
  pages.upsertPage(makePage('http://new.test/lighthouses', { title: 'Lighthouse keepers of Brittany' }));
  pages.upsertPage({ ...CORPUS.telescope, title: 'Binoculars for birdwatching' });
  pages.markPageGone(CORPUS.volcano.url, 404, 1);
  const third = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.ok(third.restoredFrom !== undefined);
  const fresh = await started(new TitleIndex(pages));
  assert.deepEqual(answers(third), answers(fresh), 'restored + caught up = built from scratch');
  assert.equal(third.search(['brittany'], { prefixLast: false, limit: 5 }).hits.length, 1);
  assert.equal(third.search(['binoculars'], { prefixLast: false, limit: 5 }).hits.length, 1);
  assert.equal(third.search(['volcano'], { prefixLast: false, limit: 5 }).hits.length, 0);
  third.close();
  fresh.close();
});

test('exportState and restoreSteps round-trip an index with discarded documents', () => {
  const pages = pageQueries(env.db);
  storeCorpus(pages);
  const ms = new TermSearch(OPTIONS);
  const rows = pages.pagesAfterSeq(0, 1000);
  ms.addAll(rows.map(toDoc));
  ms.discard(rows[0].id);
  const state = ms.exportState();
  assert.equal(state.shortIds.length, rows.length - 1);
  const restored = runSteps(TermSearch.restoreSteps(state, OPTIONS));
  assert.equal(restored.documentCount, ms.documentCount);
  assert.equal(restored.has(rows[0].id), false);
  for (const q of ['telescope', 'ownership borrow', 'galaxies']) {
    assert.deepEqual(
      restored.search(q, { prefix: true }).map((r) => r.id),
      ms.search(q, { prefix: true }).map((r) => r.id),
      q,
    );
  }
  assert.deepEqual(restored.completions('te', 5, 0), ms.completions('te', 5, 0));
});

test('a missing snapshot file means a build, without a warning; a built index writes one after catching up', async () => {
  const pages = pageQueries(env.db);
  storeCorpus(pages);
  const index = await started(new TitleIndex(pages, { snapshot: snapshotOpts({ minChanges: 1, minIntervalMs: 0 }) }));
  assert.equal(index.restoredFrom, undefined);
  await waitFor(() => existsSync(file), { timeoutMs: 5000, message: 'snapshot written after the build' });
  assert.deepEqual(warnings, []);
  index.close();
  assert.deepEqual(
    readdirSync(env.dir).filter((f) => f.endsWith('.tmp')),
    [],
    'no temp file left',
  );
});

test('unfinished snapshot files of a crashed run are removed at start, and nothing else', async () => {
  const pages = pageQueries(env.db);
  storeCorpus(pages);
  const stale = `${path.basename(file)}.4242.0badf00d.tmp`;
  writeFileSync(path.join(env.dir, stale), Buffer.alloc(1024));
  writeFileSync(path.join(env.dir, 'notes.4242.0badf00d.tmp'), 'not ours');
  const index = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.equal(existsSync(path.join(env.dir, stale)), false, "the crashed write's temp file is gone");
  assert.equal(existsSync(path.join(env.dir, 'notes.4242.0badf00d.tmp')), true, 'another file is left alone');
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /removed 1 unfinished snapshot file/);
  assert.equal(index.size, Object.keys(CORPUS).length);
  index.close();
});

test('close writes a last snapshot when the index changed since the previous one', async () => {
  const pages = pageQueries(env.db);
  storeCorpus(pages);
  const index = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.equal(existsSync(file), false, 'fewer changes than minChanges: nothing written yet');
  index.close();
  assert.equal(existsSync(file), true);
  const again = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.ok(again.restoredFrom !== undefined);
  again.close();
});

/** Stores the corpus, builds an index, writes its snapshot and closes it; returns what it answered. */
async function snapshotOfCorpus(pages: PageQueries): Promise<unknown> {
  storeCorpus(pages);
  const first = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  await first.writeSnapshot();
  const answered = answers(first);
  first.close();
  return answered;
}

/** Writes a good snapshot of the corpus, lets `spoil` change the file, and checks the next start ignores it. */
// biome-ignore lint/suspicious/noConfusingVoidType: a spoiler either changes the buffer in place (returns nothing) or returns a new one
async function expectFallback(spoil: (buf: Buffer) => Buffer | void, reason: RegExp): Promise<void> {
  const pages = pageQueries(env.db);
  const expected = await snapshotOfCorpus(pages);
  const buf = readFileSync(file);
  writeFileSync(file, spoil(buf) ?? buf);
  const second = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.equal(second.restoredFrom, undefined, 'built from the pages table');
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], reason);
  assert.deepEqual(answers(second), expected);
  second.close();
}

test('a corrupt snapshot (one byte changed) is ignored', async () => {
  await expectFallback((buf) => {
    buf[buf.length - 5] ^= 0xff;
  }, /checksum/);
});

test('a truncated snapshot is ignored', async () => {
  await expectFallback((buf) => buf.subarray(0, buf.length - 100), /length/);
});

test('a file that is not a snapshot is ignored', async () => {
  await expectFallback(() => Buffer.from('hello'), /not a title index snapshot/);
});

test('a snapshot of another format version is ignored', async () => {
  await expectFallback(
    (buf) => Buffer.from(buf.toString('latin1').replace('"format":1,', '"format":7,'), 'latin1'),
    /format 7/,
  );
});

test('a snapshot taken with other index options is ignored', async () => {
  await expectFallback(
    (buf) => Buffer.from(buf.toString('latin1').replace(/"fingerprint":"[0-9a-f]/, '"fingerprint":"x'), 'latin1'),
    /other index options/,
  );
});

test('a snapshot of another database is ignored', async () => {
  // The same pages stored in another order: ids differ, so the spot checks or the cursor fail.
  const pages = pageQueries(env.db);
  await snapshotOfCorpus(pages);
  const other = tempDatabase();
  try {
    const otherPages = pageQueries(other.db);
    for (let i = 0; i < 5; i++) otherPages.upsertPage(makePage(`http://filler.test/${i}`, { title: `Filler ${i}` }));
    other.db.transaction(() => {
      for (const p of Object.values(CORPUS).reverse()) otherPages.upsertPage(p);
    })();
    const index = await started(new TitleIndex(otherPages, { snapshot: snapshotOpts() }));
    assert.equal(index.restoredFrom, undefined);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /does not match the pages table|cursor/);
    assert.equal(index.size, Object.keys(CORPUS).length + 5);
    index.close();
  } finally {
    other.cleanup();
  }
});

test('a snapshot ahead of the pages table is ignored', async () => {
  const pages = pageQueries(env.db);
  await snapshotOfCorpus(pages);
  env.db.prepare('UPDATE pages SET seq = seq - 1000').run(); // as if restored from an older backup
  const index = await started(new TitleIndex(pages, { snapshot: snapshotOpts() }));
  assert.equal(index.restoredFrom, undefined);
  assert.match(warnings[0] ?? '', /past the last page write/);
  index.close();
});

test('decodeSnapshot refuses garbage with SnapshotError', () => {
  const ms = new TermSearch(OPTIONS);
  ms.add({ id: 1, title: 'one two', headings: '', url: '' });
  const good = Buffer.concat(encodeSnapshot(ms.exportState(), { cursor: 1, cursorId: 1, checks: [] }, 'fp'));
  assert.equal(decodeSnapshot(good, 'fp').state.terms.length, 2);
  for (const bad of [
    Buffer.alloc(0),
    Buffer.from('LANTERN-TITLE-INDEX\n'),
    good.subarray(0, 40),
    Buffer.concat([good, Buffer.from('x')]),
  ]) {
    assert.throws(() => decodeSnapshot(bad, 'fp'), SnapshotError);
  }
  assert.throws(() => decodeSnapshot(good, 'other'), /other index options/);
});

test('a search service restarted on its snapshot answers as before', async () => {
  const pages = pageQueries(env.db);
  storeCorpus(pages);
  const queries = ['telescope aperture', 'sourd', 'telescpe', 'galaxies site:b.test'];
  const run = async () => {
    const service = new SearchService(env.db, { snapshot: snapshotOpts() });
    service.start();
    await waitFor(() => service.ready, { timeoutMs: 5000, message: 'ready' });
    const results = queries
      .map((q) => service.search(q, { limit: 10, offset: 0 }))
      .map((r) => ({ total: r.total, results: r.results.map((x) => [x.url, x.score]), notice: r.notice }));
    const suggestions = service.suggest('tel', 8).suggestions;
    const restored = service.restoredFromSnapshot;
    service.close(); // writes the snapshot (the index changed since none was written)
    return { results, suggestions, restored };
  };
  const first = await run();
  const second = await run();
  assert.equal(first.restored, false);
  assert.equal(second.restored, true);
  assert.deepEqual(second.results, first.results);
  assert.deepEqual(second.suggestions, first.suggestions);
  assert.deepEqual(warnings, []);
});
