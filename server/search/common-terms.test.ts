import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { COMMON_TTL_MS, CommonTerms, SAMPLE_ROWS, idfIsFloor } from './common-terms.ts';
import type { TermCounts } from './common-terms.ts';
import { CandidateLists } from './candidate-lists.ts';
import { FtsSearch } from './fts-search.ts';
import { FtsPrefixes } from './fts-prefixes.ts';
import { matchExpression } from './fts-expression.ts';
import { parseQuery } from './query-parser.ts';
import { TitleIndex } from './title-index.ts';

describe('CommonTerms (pure, injected counts and clock)', () => {
  function counts(n: Record<string, number>, pages: number) {
    const asked: string[] = [];
    const c: TermCounts = {
      pageCount: () => pages,
      newestCount: (e, rows) => Math.round((n[e] / pages) * rows),
      count: (e, cap) => {
        asked.push(e);
        return Math.min(cap, n[e]);
      },
    };
    return { c, asked };
  }

  test('bm25 floors the weight of a phrase in half the pages or more, not below', () => {
    assert.equal(idfIsFloor(50, 100), true);
    assert.equal(idfIsFloor(51, 101), true);
    assert.equal(idfIsFloor(50, 101), false);
    assert.equal(idfIsFloor(0, 0), false);
  });

  test('a phrase in most pages is common; one in 48 % is not; one in 40 % of the sample is never counted', () => {
    const n = { '"most"': 900_000, '"near"': 480_000, '"some"': 400_000, '"rare"': 1000 };
    const { c, asked } = counts(n, 1_000_000);
    const common = new CommonTerms(c, () => 0);
    assert.equal(common.isCommon('"most"'), true);
    assert.equal(common.isCommon('"near"'), false);
    assert.equal(common.isCommon('"some"'), false);
    assert.equal(common.isCommon('"rare"'), false);
    assert.deepEqual(asked, ['"most"', '"near"']);
  });

  test('a verdict is reused until COMMON_TTL_MS, then asked again', () => {
    const n = { '"word"': 600 };
    const { c, asked } = counts(n, 1000);
    let now = 0;
    const common = new CommonTerms(c, () => now);
    assert.equal(common.isCommon('"word"'), true);
    n['"word"'] = 480; // pages were added: it is in fewer than half now
    now = COMMON_TTL_MS - 1;
    assert.equal(common.isCommon('"word"'), true);
    now = COMMON_TTL_MS;
    assert.equal(common.isCommon('"word"'), false);
    assert.equal(asked.length, 2);
  });

  test('a phrase known to be in fewer than half the pages is not common, without a count; a bound of half is no help', () => {
    const n = { '"word"': 600 };
    let sampled = 0;
    const c: TermCounts = {
      pageCount: () => 1000,
      newestCount: (e, rows) => {
        sampled++;
        return Math.round((n[e as '"word"'] / 1000) * rows);
      },
      count: (e, cap) => Math.min(cap, n[e as '"word"']),
    };
    const common = new CommonTerms(c, () => 0);
    assert.equal(common.isCommon('"word"', '"word"', 499), false);
    assert.equal(sampled, 0);
    assert.equal(common.isCommon('"word"', '"word"', 500), true);
    assert.equal(sampled, 1);
  });

  test("the warm-up's list bounds the words left off it until COMMON_TTL_MS", () => {
    let now = 0;
    const common = new CommonTerms(counts({}, 1000).c, () => now);
    assert.equal(common.pagesAtMost('gamma'), undefined, 'no list yet');
    common.rememberCeiling(['alpha', 'beta'], 120);
    assert.equal(common.pagesAtMost('gamma'), 120);
    assert.equal(common.pagesAtMost('alpha'), undefined, 'a word on the list is bounded by nothing');
    now = COMMON_TTL_MS;
    assert.equal(common.pagesAtMost('gamma'), undefined, 'an old list bounds nothing');
  });

  test('the sample is never larger than the index', () => {
    let sampled = 0;
    const common = new CommonTerms(
      {
        pageCount: () => 10,
        newestCount: (_e, rows) => {
          sampled = rows;
          return 10;
        },
        count: () => 10,
      },
      () => 0,
    );
    assert.equal(common.isCommon('"all"'), true);
    assert.ok(SAMPLE_ROWS > 10);
    assert.equal(sampled, 10);
  });
});

/**
 * 50 pages: "alpha" in every one, "beta" in 20 (40 %: bm25 still weighs it), "gamma" in the first
 * 10, where page i says "beta" 10 - i times (same length): by bm25 over all three words, the
 * oldest page ranks first; leaving out only "alpha" keeps that order; leaving out "beta" too would
 * not (gamma alone ties them all, and ties list the newest first).
 */
function store(db: ReturnType<typeof tempDatabase>['db']) {
  const pages = pageQueries(db);
  db.transaction(() => {
    for (let i = 0; i < 50; i++) {
      const words: string[] = [`alpha filler${i}`];
      if (i < 10) words.push('gamma', ...Array(10 - i).fill('beta'), ...Array(i + 1).fill('other'));
      else if (i < 20) words.push('beta', 'other');
      else words.push('other');
      pages.upsertPage(makePage(`http://site.test/${i}`, { title: `Page ${i}`, body: words.join(' ') }));
    }
  })();
  return pages;
}

describe('candidate lists rank without the words in half the pages or more, in bm25 order', () => {
  const env = tempDatabase('common-terms');
  let fts: FtsSearch;
  let titles: TitleIndex;
  before(() => {
    const pages = store(env.db);
    fts = new FtsSearch(env.db);
    titles = new TitleIndex(pages);
    titles.catchUp();
  });
  after(() => {
    titles.close();
    env.cleanup();
  });

  const q = 'alpha beta gamma';
  const beta = (i: number) => `http://site.test/${i}`;
  const urlsOf = (ids: number[]) => [...fts.meta(ids).values()].sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));

  test('every match ranked (at most RANK_ALL_MAX): the page saying "beta" most first, as bm25 over all the words', () => {
    const lists = new CandidateLists(fts, titles, { rankAllMax: 2000, rankSample: 1500, anchors: false });
    const parsed = new FtsPrefixes(fts).apply(parseQuery(`${q} `));
    const got = lists.attempt(parsed, 'and', { words: ['alpha', 'beta', 'gamma'], prefixLast: false, want: 10 }, 100);
    const full = fts.top(matchExpression(parsed, 'and') as string, 100);
    assert.deepEqual(got.lists[0].ids, full);
    assert.deepEqual(
      urlsOf(got.lists[0].ids).map((m) => m.url),
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map(beta),
    );
  });

  for (const typed of ['beta beta', 'gamma beta', 'alpha alpha gamma beta']) {
    test(`"${typed}": a word typed twice counts once only where that keeps bm25's order`, () => {
      const lists = new CandidateLists(fts, titles, { rankAllMax: 2000, rankSample: 1500, anchors: false });
      const parsed = new FtsPrefixes(fts).apply(parseQuery(`${typed} `));
      const words = typed.split(' ');
      const got = lists.attempt(parsed, 'and', { words, prefixLast: false, want: 10 }, 100);
      assert.deepEqual(got.lists[0].ids, fts.top(matchExpression(parsed, 'and') as string, 100));
      assert.equal(urlsOf(got.lists[0].ids)[0].url, beta(0), 'the page saying "beta" most');
    });
  }

  test('the newest matches ranked (more than RANK_ALL_MAX): the same order as bm25 over all the words', () => {
    const lists = new CandidateLists(fts, titles, { rankAllMax: 5, rankSample: 8, anchors: false });
    const parsed = new FtsPrefixes(fts).apply(parseQuery(`${q} `));
    const got = lists.attempt(parsed, 'and', { words: ['alpha', 'beta', 'gamma'], prefixLast: false, want: 10 }, 100);
    const full = fts.topOfNewest(matchExpression(parsed, 'and') as string, 100, 8);
    assert.deepEqual(got.lists[0].ids, full);
    assert.deepEqual(
      urlsOf(got.lists[0].ids).map((m) => m.url),
      [2, 3, 4, 5, 6, 7, 8, 9].map(beta),
    );
  });
});
