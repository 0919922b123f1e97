/**
 * A prefix word is counted and listed by its index words ORed (prefix-terms.ts), over a real SQLite file:
 * the same matches as the prefix, the prefix kept when a word would not be asked as itself, and a word
 * stored after a search counted by the next.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { waitFor } from '../../test-support/test-web.ts';
import { FtsSearch } from './fts-search.ts';
import { SearchService } from './search-service.ts';
import { spelledOut } from './prefix-terms.ts';

test('spelledOut keeps the prefix unless every word is asked as itself', () => {
  const stemOf = (w: string) => (w === 'agre' ? 'agr' : w);
  assert.deepEqual(spelledOut(['suw', 'suwa', 'suwci'], stemOf), ['suw', 'suwa', 'suwci']);
  assert.equal(spelledOut(['agr', 'agre'], stemOf), undefined, 'a word that stems further would match other rows');
  assert.equal(spelledOut(undefined, stemOf), undefined, 'too many words');
  assert.equal(spelledOut([], stemOf), undefined, 'no word: an empty OR cannot be asked');
});

test('a search counts a prefix by its index words, with the same matches, and counts a word stored since', async () => {
  const env = tempDatabase('prefix-terms');
  const asked: string[] = [];
  const matchIds = FtsSearch.prototype.matchIds;
  FtsSearch.prototype.matchIds = function (this: FtsSearch, ...args: Parameters<FtsSearch['matchIds']>) {
    asked.push(args[0]);
    return matchIds.apply(this, args);
  };
  try {
    const pages = pageQueries(env.db);
    const words = ['suwa', 'suwci', 'suwep', 'suwfi', 'agreed', 'kitten'];
    env.db.transaction(() => {
      for (let i = 0; i < 24; i++)
        pages.upsertPage(
          makePage(`https://p${i % 3}.test/${i}`, {
            title: `Page ${i}`,
            body: `kit ${words[i % words.length]} filler text number ${i}`,
          }),
        );
    })();
    // Small rank bounds, so that both the exact ranking and the newest-sample path run.
    const service = new SearchService(env.db, { rankAllMax: 3, rankSample: 2 });
    service.start();
    await waitFor(() => service.ready, { timeoutMs: 5000, message: 'title index ready' });
    const prefixCount = (expression: string) =>
      env.db.prepare('SELECT count(*) FROM pages_fts WHERE pages_fts MATCH ?').pluck().get(expression) as number;

    // "suwe"* is "suw"* to FTS5 (porter stems the typed letters): suwa, suwci, suwep, suwfi.
    asked.length = 0;
    const spelled = service.search('kit suwe', { limit: 10, offset: 0 });
    assert.equal(spelled.total, prefixCount('"kit" AND "suwe"*'));
    assert.equal(spelled.total, 16);
    assert.deepEqual(asked, ['("kit" AND ("suwa" OR "suwci" OR "suwep" OR "suwfi"))']);

    // "agre"* is "agr"*, and its index word "agre" (of "agreed") stems to "agr": asked alone it would not match.
    asked.length = 0;
    const kept = service.search('kit agre', { limit: 10, offset: 0 });
    assert.equal(kept.total, prefixCount('"kit" AND "agre"*'));
    assert.equal(kept.total, 4);
    assert.deepEqual(asked, ['("kit" AND "agre"*)']);

    pages.upsertPage(makePage('https://p9.test/new', { title: 'New', body: 'kit suwzz' }));
    asked.length = 0;
    const after = service.search('kit suwe', { limit: 10, offset: 0 });
    assert.equal(after.total, 17, 'the page stored since is counted');
    assert.deepEqual(asked, ['("kit" AND ("suwa" OR "suwci" OR "suwep" OR "suwfi" OR "suwzz"))']);
    service.close();
  } finally {
    FtsSearch.prototype.matchIds = matchIds;
    env.cleanup();
  }
});
