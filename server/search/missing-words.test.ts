/**
 * What a search says about the words it could not use, over a real database: a last word in no page
 * is corrected though FTS5's stemmed prefix match ("taks"* finds "takes") would say it is there, and a
 * query run in OR mode names, on each result, the words that result lacks.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { waitFor } from '../../test-support/wait-for.ts';
import { SearchService } from './search-service.ts';

const LIMIT = { limit: 10, offset: 0 };

describe('missed words', () => {
  const env = tempDatabase();
  let service: SearchService;
  before(async () => {
    const pages = pageQueries(env.db);
    pages.upsertPage(
      makePage('http://docs.test/asyncio-task.html', {
        title: 'Coroutines and tasks',
        body: 'Create tasks with asyncio. Running a coroutine takes an event loop.',
      }),
    );
    pages.upsertPage(makePage('http://docs.test/time.html', { title: 'Time', body: 'Sleeping takes time.' }));
    pages.upsertPage(makePage('http://docs.test/zebra.html', { title: 'Zebra', body: 'A zebra has stripes.' }));
    service = new SearchService(env.db);
    service.start();
    await waitFor(() => service.ready, { timeoutMs: 5000, message: 'title index ready' });
  });
  after(() => {
    service.close();
    env.cleanup();
  });

  test('a last word in no page is corrected, though a stemmed prefix of it is in pages ("taks" is not "takes")', () => {
    const r = service.search('asyncio taks', LIMIT);
    assert.deepEqual(r.correction, { query: 'asyncio tasks', applied: true });
    assert.match(r.notice ?? '', /No page contains “taks”\. Showing results for “asyncio tasks”/);
    assert.equal(r.results[0]?.url, 'http://docs.test/asyncio-task.html');
    // A prefix that starts indexed words is left alone.
    assert.equal(service.search('asyncio corout', LIMIT).correction, null);
  });

  test('in OR mode each result names the words it lacks; in AND mode none', () => {
    const r = service.search('zebra coroutine', { ...LIMIT, correct: false });
    assert.equal(r.mode, 'or');
    const missing = Object.fromEntries(r.results.map((x) => [x.url, x.missing]));
    assert.deepEqual(missing, {
      'http://docs.test/asyncio-task.html': ['zebra'],
      'http://docs.test/zebra.html': ['coroutine'],
    });
    assert.ok(service.search('zebra stripes', LIMIT).results.every((x) => x.missing.length === 0));
  });
});
