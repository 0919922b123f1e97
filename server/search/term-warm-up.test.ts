import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { pageQueries } from '../../db/pages.ts';
import { DB_FILE } from '../../db/open.ts';
import { makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import { SearchService } from './search-service.ts';
import { countedVerdicts, planVerdicts } from './warm-verdicts.ts';

describe('warm-up verdicts (pure)', () => {
  test('a word in fewer than half the pages is not common in either form, without a count', () => {
    const plan = planVerdicts([['beta', 49, true]], 100);
    assert.deepEqual(plan.known, [
      ['"beta"', false],
      ['{title headings description} : "beta"', false],
    ]);
    assert.deepEqual(plan.ask, []);
  });

  test('a word in half the pages or more is counted in both forms; one that does not stem to itself is left to searches', () => {
    const plan = planVerdicts(
      [
        ['alpha', 50, true],
        ['gener', 90, false],
      ],
      100,
    );
    assert.deepEqual(plan.known, []);
    assert.deepEqual(
      plan.ask.map((a) => a.key),
      ['"alpha"', '{title headings description} : "alpha"'],
    );
  });

  test('the counts decide as a search would: under 45 % of the newest pages is not common, whatever the count', () => {
    const ask = [
      { key: '"a"', expression: '"a"' },
      { key: '"b"', expression: '"b"' },
      { key: '"c"', expression: '"c"' },
    ];
    const got = countedVerdicts(
      ask,
      [
        [50, 60],
        [44, 60],
        [50, 49],
      ],
      100,
    );
    assert.deepEqual(got, [
      ['"a"', true],
      ['"b"', false],
      ['"c"', false],
    ]);
  });
});

/**
 * 40 pages: "alpha" in every one, "betas" in 12 (30 %), "gamma" in the first 8; searched on a
 * connection that logs every statement it runs, so the test sees whether a search still asks the
 * index whether its words are common (the sample of the newest pages: the read that made a restarted
 * server's first searches slow at 1M pages).
 */
describe('the start-up warm-up decides the common words before searches ask', () => {
  const env = tempDatabase('warm-up');
  const log: string[] = [];
  let db: BetterSqlite3.Database;
  before(() => {
    const pages = pageQueries(env.db);
    env.db.transaction(() => {
      for (let i = 0; i < 40; i++) {
        const words = [`alpha filler${i}`];
        if (i < 12) words.push(...Array(12 - i).fill('betas'));
        if (i < 8) words.push('gamma');
        pages.upsertPage(makePage(`http://site.test/${i}`, { title: `Page ${i}`, body: words.join(' ') }));
      }
    })();
    db = new BetterSqlite3(path.join(env.dir, DB_FILE), { verbose: (sql) => log.push(String(sql)) });
  });
  after(() => {
    db.close();
    env.cleanup();
  });

  const sampled = () => log.filter((sql) => sql.includes('FROM pages) -'));
  // A space after the last word: no automatic prefix (a prefix's verdict is a search's to make).
  const search = (service: SearchService, q: string) =>
    service.search(q, { limit: 10, offset: 0 }).results.map((r) => r.url);

  test('after the warm-up, a search with a word in every page and one in 30 % asks no count of either; the same results', async () => {
    const cold = new SearchService(db);
    cold.refresh();
    log.length = 0;
    const expected = search(cold, 'alpha Beta gamma ');
    assert.ok(sampled().length > 0, 'without the warm-up the search samples its words');
    cold.close();

    const warm = new SearchService(db);
    warm.refresh();
    const report = await warm.warmUp();
    assert.ok(report !== undefined);
    assert.ok(report.words >= 3, `the index's words were read: ${JSON.stringify(report)}`);
    // "alpha" over every column (it is in no title), "page" (every title) in both forms.
    assert.equal(report.common, 3, JSON.stringify(report));
    log.length = 0;
    assert.deepEqual(search(warm, 'alpha Beta gamma '), expected);
    assert.deepEqual(sampled(), [], 'no word was sampled: the warm-up had decided them');
    assert.equal(expected.length, 8, 'the pages with "gamma"');
    warm.close();
  });

  test("a word left off the warm-up's list (in no more pages than its last, under half) is not counted either", async () => {
    const cold = new SearchService(db);
    cold.refresh();
    const expected = search(cold, 'alpha Beta gamma ');
    cold.close();
    // The 3 words in the most pages: "alpha" and "page" (40), "beta" (12); "gamma" (8) is left off.
    const warm = new SearchService(db, { warmTerms: 3 });
    warm.refresh();
    const report = await warm.warmUp();
    assert.equal(report?.words, 3, JSON.stringify(report));
    log.length = 0;
    assert.deepEqual(search(warm, 'alpha Beta gamma '), expected);
    assert.deepEqual(sampled(), [], 'no word was sampled: "gamma" is in at most 12 pages of 40');
    warm.close();
  });

  test('a prefix whose words are in fewer than half the pages is not counted', async () => {
    const cold = new SearchService(db);
    cold.refresh();
    const expected = search(cold, 'alpha gamm');
    cold.close();
    const warm = new SearchService(db);
    warm.refresh();
    await warm.warmUp(); // "alpha" decided before, as at a start
    log.length = 0;
    assert.deepEqual(search(warm, 'alpha gamm'), expected);
    assert.equal(expected.length, 8, 'the pages with "gamma"');
    assert.deepEqual(sampled(), [], 'the prefix was not sampled: its words are in 8 pages of 40');
    warm.close();
  });

  test('a closed service stops its warm-up: it settles with no report', async () => {
    const service = new SearchService(db);
    const done = service.warmUp();
    service.close();
    assert.equal(await done, undefined);
  });
});
