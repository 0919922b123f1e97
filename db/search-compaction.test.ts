import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from './open.ts';
import { pageQueries } from './pages.ts';
import { seedQueries } from './seeds.ts';
import { databaseBytes } from './storage-size.ts';
import { searchIndexCompaction } from './search-compaction.ts';
import { makePage } from '../test-support/test-corpus.ts';
import { seededRandom } from '../test-support/seeded-random.ts';

test('pages taken out of search give their space back in bounded steps; what stays is still found', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'lantern-compaction-'));
  const db = openDatabase(dir);
  try {
    const seeds = seedQueries(db);
    const gone = seeds.upsertSeed(
      { url: 'https://gone.example/', origin: 'https://gone.example', depth: 1, scope: 'host' },
      1,
    ).seed;
    const kept = seeds.upsertSeed(
      { url: 'https://kept.example/', origin: 'https://kept.example', depth: 1, scope: 'host' },
      1,
    ).seed;
    const pages = pageQueries(db);
    const random = seededRandom(7);
    const word = () => Array.from({ length: 6 }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
    for (let batch = 0; batch < 10; batch++) {
      db.transaction(() => {
        for (let i = 0; i < 40; i++) {
          const n = batch * 40 + i;
          const seed = n % 2 === 0 ? gone : kept;
          pages.upsertPage(
            makePage(`https://${n % 2 === 0 ? 'gone' : 'kept'}.example/${n}`, {
              seedId: seed.id,
              title: `Page ${n}`,
              body: `marker${n} ${Array.from({ length: 1500 }, word).join(' ')}`,
            }),
          );
        }
      })();
    }
    const full = databaseBytes(db);
    while (db.transaction(() => pages.retireSeedPages(gone.id, 500))() === 500);
    const retired = databaseBytes(db);
    assert.ok(
      retired > full * 0.7,
      `taking pages out of search alone frees little (${full} → ${retired} bytes): the index keeps their entries`,
    );
    const { compactSearchIndexStep } = searchIndexCompaction(db);
    let steps = 0;
    while (db.transaction(compactSearchIndexStep)()) steps++;
    const compacted = databaseBytes(db);
    assert.ok(compacted < full * 0.6, `half the pages removed: ${full} → ${compacted} bytes after ${steps} steps`);
    assert.ok(steps >= 2, `in several bounded steps (${steps})`);
    assert.equal(db.transaction(compactSearchIndexStep)(), false, 'nothing left to merge');
    const match = (word: string) =>
      db.prepare(`SELECT COUNT(*) FROM pages_fts WHERE pages_fts MATCH ?`).pluck().get(word);
    assert.equal(match('marker1'), 1, 'a kept page is found');
    assert.equal(match('marker0'), 0, 'a removed one is not');
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
