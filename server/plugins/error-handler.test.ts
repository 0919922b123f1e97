import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createTestApp } from '../test-app.ts';

let t: Awaited<ReturnType<typeof createTestApp>>;

before(async () => {
  t = await createTestApp();
  t.app.get('/api/test/bug', async () => {
    throw new Error('open /srv/secret/lantern.key failed: token=hunter2');
  });
  await t.app.ready();
});
after(() => t.close());

test('an unexpected error is a 500 that says where to look and leaks nothing of the error', async () => {
  const res = await t.app.inject({ url: '/api/test/bug' });
  assert.equal(res.statusCode, 500);
  assert.deepEqual(res.json(), { error: 'internal', message: 'Lantern hit an internal error; the server log has the details' });
  assert.doesNotMatch(res.body, /secret|hunter2|lantern\.key|at /);
});

test('a database that refuses writes: adding a seed is a 503 that says what is wrong and that nothing was saved', async () => {
  t.app.db.pragma('query_only = 1'); // SQLite itself refuses every write from here on, as for a read-only file
  try {
    const res = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'https://example.org/' } });
    assert.equal(res.statusCode, 503, res.body);
    assert.equal(res.headers['retry-after'], '10');
    const { error, message } = res.json();
    assert.equal(error, 'storage-unavailable');
    assert.equal(message, `cannot write to the database in ${t.dataDir} (SQLITE_READONLY: attempt to write a readonly database): ` +
      'is the disk full or the file read-only? Nothing was saved; try again once the disk has space or the file is writable.');
  } finally {
    t.app.db.pragma('query_only = 0');
  }
  assert.deepEqual((await t.app.inject({ url: '/api/seeds' })).json().seeds, [], 'nothing was saved');
  const again = await t.app.inject({ method: 'POST', url: '/api/seeds', payload: { url: 'https://example.org/' } });
  assert.equal(again.statusCode, 201, 'once the database takes writes, the same request succeeds');
});
