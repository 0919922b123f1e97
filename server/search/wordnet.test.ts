import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WordNet } from './wordnet.ts';

test('WordNet finds words anywhere in its sorted index, and none it lacks', () => {
  const wn = new WordNet();
  try {
    assert.ok(wn.synonyms('change').includes('alter'), wn.synonyms('change').join(','));
    // Near the start and the end of the sorted files: the binary search reaches both ends.
    assert.ok(wn.synonyms('abduct').includes('kidnap'), wn.synonyms('abduct').join(','));
    assert.ok(wn.synonyms('zymolysis').includes('fermentation'), wn.synonyms('zymolysis').join(','));
    assert.deepEqual(wn.synonyms('qqqxyz'), []);
    assert.deepEqual(wn.synonyms('git-clean'), [], 'not a plain word: no lookup');
    // A plural finds its noun's synonyms (detachment rules).
    assert.deepEqual(wn.synonyms('changes'), wn.synonyms('change'));
  } finally {
    wn.close();
  }
});
