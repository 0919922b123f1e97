import { test } from 'node:test';
import assert from 'node:assert/strict';
import { feedbackTerms } from './feedback-terms.ts';
import { lightStem } from './function-words.ts';

// The first results of "get rid of untracked files": man pages whose NAME lines say "remove"; every page says "git".
const FIRST = [
  { text: 'git-clean(1) NAME git-clean - Remove untracked files from the working tree', weight: 3 },
  { text: 'git-rm(1) NAME git-rm - Remove files from the working tree and from the index', weight: 2 },
  { text: 'git-stash(1) NAME git-stash - Stash the changes away; removes them from the working tree', weight: 1 },
];
const OTHERS = [
  'git-log(1) NAME git-log - Show commit logs',
  'git-tag(1) NAME git-tag - Create, list, delete or verify a tag object',
  'git-push(1) NAME git-push - Update remote refs along with associated objects',
];

test('the words the first pages share, and the other candidates use less, expand the question', () => {
  const asked = new Set(['rid', 'untracked', 'files'].map(lightStem));
  const terms = feedbackTerms(FIRST, [...FIRST.map((d) => d.text), ...OTHERS], asked, 3, 3);
  const words = terms.map((t) => t.word);
  assert.equal(words[0], 'remove', `got ${words.join(' ')}`);
  // "git" and "name" are in every opening (no contrast), "untracked" and "files" were asked, "from" is a function word.
  for (const w of ['git', 'name', 'untracked', 'files', 'from'])
    assert.ok(!words.includes(w), `got ${words.join(' ')}`);
  assert.ok(Math.abs(terms.reduce((a, t) => a + t.weight, 0) - 1) < 1e-9, 'the weights sum to 1');
});

test('a word of fewer than minDocs first pages is that page’s, not the topic’s', () => {
  const terms = feedbackTerms(FIRST, [...FIRST.map((d) => d.text), ...OTHERS], new Set(), 10, 2);
  const words = terms.map((t) => t.word);
  assert.ok(words.includes('working'), `got ${words.join(' ')}`);
  assert.ok(!words.includes('stash') && !words.includes('index'), `got ${words.join(' ')}`);
  assert.deepEqual(feedbackTerms([], OTHERS, new Set(), 5), [], 'no first pages, no expansion');
  assert.deepEqual(feedbackTerms(FIRST, OTHERS, new Set(), 0), [], 'max 0, none');
});
