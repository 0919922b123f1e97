import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';
import { openDatabase } from '../../db/open.ts';
import { MAX_LABELS_PER_SEED } from '../../db/seed-labels.ts';
import { MAX_FOLDER_DEPTH, MAX_FOLDER_NAME_CHARS, MAX_FOLDER_PATH_CHARS } from '../capture/bookmark-entry.ts';
import { MAX_TITLE_CHARS } from '../capture/import-plan.ts';
import { MAX_SEED_JSON_BYTES, MAX_SEED_PAGE } from './seeds.ts';

/** 8,000 folders, each inside the one before, holding 1,000 bookmarks (about 153 KB). */
function deepFolders(depth: number, bookmarks: number): string {
  const parts = ['<!DOCTYPE NETSCAPE-Bookmark-file-1>\n<DL><p>\n'];
  for (let i = 0; i < depth; i++) parts.push(`<DT><H3>f${i}</H3><DL><p>`);
  for (let i = 0; i < bookmarks; i++) parts.push(`<DT><A HREF="https://deep.example/${i}">b${i}</A>\n`);
  parts.push('</DL><p>'.repeat(depth + 1));
  return parts.join('');
}

describe('what a file can make Lantern store is capped', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    await t.close();
  });
  const importFile = (file: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/seeds/import',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ file }),
    });

  test('8,000 nested folders x 1,000 bookmarks: folder text and one page of GET /api/seeds stay under their bounds', async () => {
    const file = deepFolders(8_000, 1_000);
    const res = await importFile(file);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.equal(res.json().created, 1_000);
    const db = openDatabase(t.dataDir);
    const stored = db
      .prepare('SELECT sum(length(CAST(folder AS BLOB))) AS total, max(length(folder)) AS longest FROM seeds')
      .get() as { total: number; longest: number };
    db.close();
    assert.ok(
      stored.total <= 1_000 * MAX_FOLDER_PATH_CHARS,
      `${stored.total} bytes of folder text for 1,000 bookmarks of a ${file.length}-character file`,
    );
    assert.ok(stored.longest <= MAX_FOLDER_PATH_CHARS, `a folder path of ${stored.longest} characters`);
    const page = await t.app.inject({ method: 'GET', url: '/api/seeds' });
    const bytes = Buffer.byteLength(page.body);
    assert.ok(bytes <= MAX_SEED_PAGE * MAX_SEED_JSON_BYTES, `one page of GET /api/seeds weighs ${bytes} bytes`);
    const seeds = page.json().seeds as Array<{ folder: string; labels: string[] }>;
    assert.equal(seeds.length, MAX_SEED_PAGE);
    assert.equal(seeds[0].folder, 'f0 / f1 / f2 / f3 / f4 / f5 / f6 / f7 / f8 / f9', 'the outermost folders are kept');
    assert.deepEqual(seeds[0].labels.length, MAX_FOLDER_DEPTH);
  });

  test('a long folder name, a long title and many tags are cut to their caps', async () => {
    const name = 'N'.repeat(5_000);
    const tags = Array.from({ length: 500 }, (_, i) => `t${i}`).join(',');
    const file = `<DL><DT><H3>${name}</H3><DL><DT><A HREF="https://long.example/" TAGS="${tags}">${'T'.repeat(50_000)}</A></DL></DL>`;
    const res = await importFile(file);
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    const seed = (
      (await t.app.inject({ method: 'GET', url: '/api/seeds?limit=1' })).json().seeds as Array<{
        folder: string;
        title: string;
        labels: string[];
      }>
    )[0];
    assert.equal(seed.folder.length, MAX_FOLDER_NAME_CHARS);
    assert.equal(seed.title.length, MAX_TITLE_CHARS);
    assert.equal(seed.labels.length, MAX_LABELS_PER_SEED);
  });
});
