import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentWords, lightStem, readsAsQuestion } from './function-words.ts';
import { purposeScore, stems, topicExpression } from './question-plan.ts';
import { baseForms, indexOffsets, pickSynonyms, synsetWords } from './synonyms.ts';
import { markSynonyms } from './synonym-marks.ts';

test('function words are weighed down, never dropped: a query of function words only keeps them', () => {
  assert.deepEqual(contentWords(['how', 'do', 'i', 'sort', 'a', 'list']), ['sort', 'list']);
  assert.deepEqual(contentWords(['how', 'do', 'i']), ['how', 'do', 'i']);
});

test('questions and sentences read as questions; keyword queries do not', () => {
  assert.equal(readsAsQuestion(['how', 'do', 'i', 'sort']), true);
  assert.equal(readsAsQuestion(['list', 'all', 'the', 'branches', 'on', 'the', 'remote']), true);
  assert.equal(readsAsQuestion(['read', 'a', 'file', 'line', 'by', 'line']), false);
  assert.equal(readsAsQuestion(['sort', 'a', 'list', 'by', 'key']), false);
  assert.equal(readsAsQuestion(['how']), false);
});

test('light stems join the forms of a word', () => {
  for (const [a, b] of [
    ['removes', 'remove'],
    ['removing', 'removed'],
    ['files', 'file'],
    ['committing', 'commit'],
    ['copies', 'copy'],
  ]) {
    assert.equal(lightStem(a), lightStem(b), `${a} / ${b}`);
  }
});

test('topic expressions need two topic words per page, synonyms as alternatives, words quoted', () => {
  const t = [
    { word: 'untracked', alternatives: [] },
    { word: 'files', alternatives: ['register'] },
    { word: 'rid', alternatives: [] },
  ];
  assert.equal(
    topicExpression(t, false),
    '(("untracked" AND "files") OR ("untracked" AND "rid") OR ("files" AND "rid"))',
  );
  assert.equal(topicExpression(t.slice(0, 2), true, 1), '("untracked" OR ("files" OR "register"))');
  assert.equal(topicExpression(t.slice(0, 2), false, 2, 10), '(NEAR("untracked" "files", 10))');
  assert.equal(topicExpression([{ word: 'a"b', alternatives: [] }], false), '("a""b")');
  assert.equal(topicExpression([], false), undefined);
});

test('an opening that states more of the topic scores higher; a synonym counts half', () => {
  const topics = [
    { word: 'untracked', alternatives: [] },
    { word: 'files', alternatives: [] },
    { word: 'delete', alternatives: ['remove'] },
  ];
  const one = () => 1;
  const clean = stems('git-clean - Remove untracked files from the working tree');
  const status = stems('git-status - Show the working tree status of files');
  assert.equal(purposeScore(clean, topics, one), 2.5 / 3);
  assert.equal(purposeScore(status, topics, one), 1 / 3);
  assert.equal(purposeScore(stems(''), topics, one), 0);
});

test("WordNet's lines are read as its format says", () => {
  assert.deepEqual(baseForms('copies', 'noun'), ['copies', 'copie', 'copy']);
  assert.ok(baseForms('deleting', 'verb').includes('delete'));
  assert.deepEqual(synsetWords('00201227 32 v 03 delete 0 cancel 0 strike_out 1 004 @ 01551969 v 0000 | remove'), [
    'delete',
    'cancel',
    'strike out',
  ]);
  assert.deepEqual(indexOffsets('delete v 3 4 @ ~ + ; 3 0 01551969 01001860 00201227  '), [1551969, 1001860, 201227]);
  assert.deepEqual(pickSynonyms('delete', [['delete', 'cancel', 'strike out'], ['erase']], 1, 3), ['cancel']);
  assert.deepEqual(pickSynonyms('change', [['change', 'changes', 'alter', 'modify']], 1, 1), ['alter']);
});

test('a matched word that is a synonym says which typed word it stands for; typed words and their forms do not', () => {
  const pieces = [
    { text: 'You can ', match: false },
    { text: 'modified', match: true },
    { text: ' the ', match: false },
    { text: 'changes', match: true },
    { text: ' alter ', match: false },
  ];
  assert.deepEqual(markSynonyms(pieces, ['change', 'alter'], new Map([['modify', 'change']])), [
    { text: 'You can ', match: false },
    { text: 'modified', match: true, for: 'change' },
    { text: ' the ', match: false },
    { text: 'changes', match: true },
    { text: ' alter ', match: false },
  ]);
  assert.deepEqual(markSynonyms(pieces, ['change'], new Map()), pieces);
});
