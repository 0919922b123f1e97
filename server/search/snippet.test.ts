import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeSnippet, piecesFromMarked } from './snippet.ts';

test('piecesFromMarked turns markers into match pieces', () => {
  assert.deepEqual(piecesFromMarked('a \u0001b\u0002 c \u0001d e\u0002'), [
    { text: 'a ', match: false },
    { text: 'b', match: true },
    { text: ' c ', match: false },
    { text: 'd e', match: true },
  ]);
  assert.deepEqual(piecesFromMarked('\u0002stray\u0001'), [{ text: 'stray', match: false }]);
  assert.deepEqual(piecesFromMarked(''), []);
  assert.deepEqual(piecesFromMarked('<b>not html</b>'), [{ text: '<b>not html</b>', match: false }], 'text stays text');
});

test('makeSnippet centres on the first match and marks every matching word', () => {
  const text = `${'filler words here '.repeat(30)}the Telescope shows galaxies; telescopes are fun. ${'more filler '.repeat(30)}`;
  const pieces = makeSnippet(text, ['telescope'], 120);
  const joined = pieces.map((p) => p.text).join('');
  assert.ok(joined.startsWith('…'));
  assert.ok(joined.endsWith('…'));
  assert.ok(joined.length <= 125);
  assert.deepEqual(
    pieces.filter((p) => p.match).map((p) => p.text),
    ['Telescope', 'telescopes'],
  );
});

test('makeSnippet without a match starts at the beginning; folds diacritics', () => {
  assert.deepEqual(makeSnippet('Plain text only.', ['absent']), [{ text: 'Plain text only.', match: false }]);
  assert.deepEqual(
    makeSnippet('Un café crème', ['cafe'])
      .filter((p) => p.match)
      .map((p) => p.text),
    ['café'],
  );
  assert.deepEqual(makeSnippet('', ['x']), []);
});
