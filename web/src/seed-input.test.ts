import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDepth, seedLines } from './seed-input.ts';

describe('parseDepth', () => {
  test('accepts whole numbers 0 to 10', () => {
    assert.deepEqual(['0', '2', ' 10 '].map(parseDepth), [0, 2, 10]);
  });
  test('refuses anything else', () => {
    assert.deepEqual(['', '11', '-1', '1.5', 'two', '007'].map(parseDepth), [null, null, null, null, null, null]);
  });
});

describe('seedLines', () => {
  test('one URL per line, trimmed, blank lines and repeats dropped, order kept', () => {
    assert.deepEqual(seedLines(' https://a.example/ \r\n\nftp://b/\nhttps://a.example/\n  \n'), [
      'https://a.example/',
      'ftp://b/',
    ]);
  });
});
