import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bestCorrection, osaDistance, replaceWord } from './spelling.ts';

test('a swap of two neighbouring letters is one edit', () => {
  assert.equal(osaDistance('pyhton', 'python'), 1);
  assert.equal(osaDistance('telescpe', 'telescope'), 1);
  assert.equal(osaDistance('python', 'python'), 0);
  assert.equal(osaDistance('kitten', 'sitting'), 3);
});

test('the closest indexed word wins, then the most widespread; too far is no correction', () => {
  const c = [
    { term: 'python', weight: 5 },
    { term: 'pylon', weight: 50 },
    { term: 'typhoon', weight: 1 },
  ];
  assert.equal(bestCorrection('pyhton', c), 'python');
  assert.equal(
    bestCorrection('pythn', [
      { term: 'python', weight: 1 },
      { term: 'pythons', weight: 9 },
    ]),
    'python',
  );
  assert.equal(bestCorrection('zzzzzz', c), undefined);
});

test('a word is replaced whole, operators and other words kept', () => {
  assert.equal(
    replaceWord('site:docs.example.org pyhton list', 'pyhton', 'python'),
    'site:docs.example.org python list',
  );
  assert.equal(replaceWord('Pyhton pyhtonic', 'pyhton', 'python'), 'python pyhtonic');
});
