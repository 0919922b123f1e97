import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completePhrases, segments } from './phrase-completion.ts';

const page = (title: string, headings: string[] = [], weight = 1) => ({ title, headings, weight });

test('titles split into segments at dashes, bars, colons and brackets, not inside words', () => {
  assert.deepEqual(segments('5. Data Structures — Python 3.11.2 documentation'), [
    '5. Data Structures',
    'Python 3.11.2 documentation',
  ]);
  assert.deepEqual(segments('git-rebase(1) Manual Page'), ['git-rebase', '1', 'Manual Page']);
  assert.deepEqual(segments('os.path | Common: pathname'), ['os.path', 'Common', 'pathname']);
});

test('completes the last word in place and runs on to the end of a short segment', () => {
  const got = completePhrases(
    { words: ['list', 'compre'], open: false },
    [
      page('5. Data Structures', ['5.1.3. List Comprehensions', 'Nested List Comprehensions']),
      page('Functional HOWTO', ['Generator expressions and list comprehensions']),
      page('zlib', ['List compression levels']),
    ],
    5,
  );
  assert.deepEqual(
    got.map((c) => c.added),
    ['hensions', 'ssion', 'ssion levels'],
  );
  assert.equal(got[0].pages, 2, 'one page counts once');
});

test('after a space the next word is completed; weights decide between phrases', () => {
  const got = completePhrases(
    { words: ['git'], open: true },
    [page('git rebase'), page('git reset', [], 3), page('git rebase')],
    5,
  );
  assert.deepEqual(
    got.map((c) => c.added),
    ['reset', 'rebase'],
  );
});

test('nothing when no segment has the words side by side', () => {
  assert.deepEqual(completePhrases({ words: ['list', 'zebra'], open: false }, [page('List of zebras')], 5), []);
  assert.deepEqual(completePhrases({ words: [], open: false }, [page('x')], 5), []);
});
