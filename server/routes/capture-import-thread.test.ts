import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createTestApp } from '../test-app.ts';
import { largeBookmarkExport } from '../../test-support/bookmark-exports.ts';
import { importHooks } from '../capture/import-runner.ts';
import { MAX_IMPORT_ENTRIES } from '../capture/import-plan.ts';
import { IMPORT_BODY_LIMIT } from './capture.ts';

/** The largest file the route accepts: MAX_IMPORT_ENTRIES bookmarks with favicons, padded to just under the body limit. */
function largestAcceptedFile(): string {
  const file = largeBookmarkExport(MAX_IMPORT_ENTRIES);
  const room = IMPORT_BODY_LIMIT - Buffer.byteLength(JSON.stringify({ file })) - 1024;
  return `${file}<!-- ${'x'.repeat(room)} -->\n`;
}

describe('POST /api/seeds/import reads the file in a thread', () => {
  let t: Awaited<ReturnType<typeof createTestApp>>;
  before(async () => {
    t = await createTestApp();
  });
  after(async () => {
    importHooks.gate = undefined;
    importHooks.limits = undefined;
    await t.close();
  });

  const importFile = (file: string) =>
    t.app.inject({
      method: 'POST',
      url: '/api/seeds/import',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ file }),
    });
  const seedCount = async () =>
    (await t.app.inject({ method: 'GET', url: '/api/seeds?limit=1' })).json().total as number;

  test('/api/health and a search answer while the largest accepted file is being read; then the import completes', async () => {
    const file = largestAcceptedFile();
    const gate = new Int32Array(new SharedArrayBuffer(8)); // [0]: hold (0) or go (1); [1]: the file has been read (1)
    importHooks.gate = gate;
    const started = once(importHooks.events, 'started');
    let finished = false;
    const imported = importFile(file).then((res) => {
      finished = true;
      return res;
    });
    // The thread says it has begun reading; had the file been read on the event loop, the import would be over first.
    await Promise.race([
      started,
      imported.then(() => assert.fail('the import finished before it was seen in progress: it held the event loop')),
    ]);
    const health = await t.app.inject({ method: 'GET', url: '/api/health' });
    const search = await t.app.inject({ method: 'GET', url: '/api/search?q=bookmark' });
    assert.equal(health.statusCode, 200, health.body);
    assert.equal(search.statusCode, 200, search.body);
    assert.equal(Atomics.load(gate, 1), 0, 'health and search answered before the file had been read');
    assert.equal(finished, false, 'health and search answered while the import was in progress');
    Atomics.store(gate, 0, 1);
    Atomics.notify(gate, 0);
    importHooks.gate = undefined;
    const res = await imported;
    assert.equal(res.statusCode, 200, res.body.slice(0, 300));
    assert.deepEqual([res.json().entries, res.json().created], [MAX_IMPORT_ENTRIES, MAX_IMPORT_ENTRIES]);
  });

  test('a file with one bookmark more than the limit is refused (413 too-many-bookmarks), nothing stored', async () => {
    const before = await seedCount();
    const lines = Array.from({ length: MAX_IMPORT_ENTRIES + 1 }, (_, i) => `https://over.example/${i}`).join('\n');
    const res = await importFile(lines);
    assert.deepEqual([res.statusCode, res.json().error], [413, 'too-many-bookmarks'], res.body);
    assert.match(res.json().message, /^import: the file holds more than 50000 bookmarks; .*split the file$/);
    assert.equal(await seedCount(), before);
  });

  test('a thread past its time cap is ended: 422 import-timeout, nothing stored', async () => {
    const before = await seedCount();
    importHooks.gate = new Int32Array(new SharedArrayBuffer(8)); // never let go: the thread only ends by the cap
    importHooks.limits = { timeoutMs: 500, heapMb: 512 };
    try {
      const res = await importFile('https://slow.example/\n');
      assert.deepEqual([res.statusCode, res.json().error], [422, 'import-timeout'], res.body);
      assert.match(
        res.json().message,
        /^import: the file took longer than 0\.5 s to read; stopped, nothing stored: split it/,
      );
    } finally {
      importHooks.gate = undefined;
      importHooks.limits = undefined;
    }
    assert.equal(await seedCount(), before);
    const next = await importFile('https://after-timeout.example/\n');
    assert.equal(next.statusCode, 200, 'the next import is read by a thread of its own');
  });

  test('a thread past its memory cap is ended: 413 import-memory, nothing stored', async () => {
    const before = await seedCount();
    importHooks.limits = { timeoutMs: 120_000, heapMb: 16 };
    try {
      const res = await importFile(largeBookmarkExport(20_000));
      assert.deepEqual([res.statusCode, res.json().error], [413, 'import-memory'], res.body.slice(0, 300));
      assert.match(
        res.json().message,
        /^import: the file needed more than 16 MiB of memory to read; stopped, nothing stored/,
      );
    } finally {
      importHooks.limits = undefined;
    }
    assert.equal(await seedCount(), before);
  });
});
