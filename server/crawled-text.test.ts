import { test } from 'node:test';
import assert from 'node:assert/strict';
import { neutralizeBidi, neutralizeBidiDeep } from './crawled-text.ts';

test('an override cannot turn "gnp.exe" into "exe.png": embeddings, overrides and isolates are removed', () => {
  assert.equal(neutralizeBidi('invoice \u202Egnp.exe'), 'invoice gnp.exe');
  assert.equal(neutralizeBidi('a\u202Ab\u202Bc\u202Cd\u202De\u202Ef'), 'abcdef');
  assert.equal(neutralizeBidi('x\u2066y\u2067z\u2068w\u2069'), 'xyzw');
});

test('marks go at the ends (where they would choose the direction of the whole text), not inside', () => {
  assert.equal(neutralizeBidi('\u200Finvoice.exe\u200E'), 'invoice.exe');
  assert.equal(neutralizeBidi('  \u200F\u061Ctitle \u200E '), '  title  ');
  assert.equal(
    neutralizeBidi('\u05E9\u05DC\u05D5\u05DD\u200F (\u05E2\u05D1\u05E8\u05D9\u05EA)'),
    '\u05E9\u05DC\u05D5\u05DD\u200F (\u05E2\u05D1\u05E8\u05D9\u05EA)',
    'a mark inside Hebrew text stays',
  );
  assert.equal(neutralizeBidi('\u200F\u202E\u200F'), '');
});

test('right-to-left text and everything else is left as it is, without a copy', () => {
  const hebrew = '\u05E9\u05DC\u05D5\u05DD \u05E2\u05D5\u05DC\u05DD';
  const arabic = '\u0645\u0631\u062D\u0628\u0627 123';
  assert.equal(neutralizeBidi(hebrew), hebrew);
  assert.equal(neutralizeBidi(arabic), arabic);
  const clean = { a: ['x', { b: 'y' }], n: 1, nil: null };
  assert.equal(neutralizeBidiDeep(clean), clean, 'nothing to change: the same object');
});

test('every string of a JSON value is cleaned, nested; the original is not modified', () => {
  const original = {
    results: [{ title: 'invoice \u202Egnp.exe', score: 3, snippet: [{ text: '\u2067x\u2069', match: true }] }],
    total: 1,
  };
  const out = neutralizeBidiDeep(original);
  assert.deepEqual(out, {
    results: [{ title: 'invoice gnp.exe', score: 3, snippet: [{ text: 'x', match: true }] }],
    total: 1,
  });
  assert.equal(
    original.results[0].title,
    'invoice \u202Egnp.exe',
    'the original (a shared snapshot, say) is untouched',
  );
  assert.deepEqual(neutralizeBidiDeep(['\u202Ea', 'b']), ['a', 'b']);
});
