import { test } from 'node:test';
import assert from 'node:assert/strict';
import { highlightPieces, queryWords } from './highlight.ts';

test('queryWords keeps the words a person searched for, not the operators', () => {
  assert.deepEqual(queryWords('Harbour "lights" site:example.org -market a'), ['harbour', 'lights']);
  assert.deepEqual(queryWords('café, naïve!'), ['naïve', 'café']);
  assert.deepEqual(queryWords(''), []);
});

test('highlightPieces marks word starts, case-insensitively, and keeps every character as text', () => {
  const text = 'The Harbour lights; harbours and a seaharbour. <script>harbour</script>';
  const pieces = highlightPieces(text, ['harbour']);
  assert.equal(pieces.map((p) => p.text).join(''), text, 'nothing lost or added');
  assert.deepEqual(
    pieces.filter((p) => p.match).map((p) => p.text),
    ['Harbour', 'harbour', 'harbour'],
  );
  assert.deepEqual(highlightPieces('plain', []), [{ text: 'plain', match: false }]);
  assert.deepEqual(highlightPieces('', ['x']), []);
});

test('a query word with regular-expression characters is taken literally', () => {
  assert.deepEqual(
    highlightPieces('a+b a.b', ['a.b'])
      .filter((p) => p.match)
      .map((p) => p.text),
    ['a.b'],
  );
});
