import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { FtsSearch } from './fts-search.ts';
import { snippetMatch } from './snippet-match.ts';

const NONE = { sites: [], excludedSites: [] };

describe('snippetMatch (pure)', () => {
  test('without question search, the query’s own expression', () => {
    assert.equal(snippetMatch('("a" AND "b")', 0, NONE, undefined), '("a" AND "b")');
  });

  test('with it, both ORed; the own one left out when it matches no page', () => {
    assert.equal(snippetMatch('("a" AND "b")', 3, NONE, '("b")'), '(("a" AND "b")) OR ("b")');
    assert.equal(snippetMatch('("a" AND "b")', 0, NONE, '("b")'), '("b")');
  });

  test('no match within a site: filter says nothing of other sites: both stay', () => {
    const site = { sites: [{ name: 'docs.test', port: undefined }], excludedSites: [] };
    assert.equal(snippetMatch('("a" AND "b")', 0, site, '("b")'), '(("a" AND "b")) OR ("b")');
  });
});

describe('snippets by the expression snippetMatch leaves (real FTS5)', () => {
  let env: ReturnType<typeof tempDatabase>;
  let fts: FtsSearch;
  before(() => {
    env = tempDatabase('snippet-match');
    const pages = pageQueries(env.db);
    pages.upsertPage(
      makePage('http://docs.test/clean.html', {
        title: 'git-clean',
        body: 'How to remove untracked files from the working tree, and do it safely.',
      }),
    );
    fts = new FtsSearch(env.db);
  });
  after(() => env.cleanup());

  test('a part of an OR that matches nowhere marks nothing: the snippet is the same without it', () => {
    const own = '("how" AND "do" AND "i" AND "untracked")'; // no page holds "i"
    const question = '("untracked" OR "remove")';
    const id = [...fts.snippets(question, [1, 2, 3, 4]).keys()];
    assert.equal(id.length, 1);
    const withOwn = fts.snippets(`(${own}) OR ${question}`, id);
    const without = fts.snippets(snippetMatch(own, 0, NONE, question), id);
    assert.deepEqual(without, withOwn);
    assert.match([...without.values()][0], /\u0001untracked\u0002/);
    assert.doesNotMatch([...without.values()][0], /\u0001how\u0002/, 'the own words are not marked either way');
  });
});
