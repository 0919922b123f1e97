import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capSnippet, capText, RESULT_CAPS } from './result-caps.ts';

test('a long title is cut at a space near the cap, with an ellipsis; a short one is untouched', () => {
  assert.equal(capText('short title', 200), 'short title');
  const long = 'word '.repeat(100);
  const cut = capText(long, 200);
  assert.ok(cut.length <= 200 && cut.endsWith('word…'), cut);
  assert.equal(capText('x'.repeat(60_000), 200), `${'x'.repeat(199)}…`, 'one unbroken word: cut at the cap');
});

test('a cut never splits a character outside the basic plane', () => {
  const emoji = '\u{1F600}'.repeat(150); // 300 code units
  const cut = capText(emoji, 200);
  assert.ok(cut.length <= 200);
  assert.ok(!/[\uD800-\uDBFF]…$/.test(cut), 'no lone high surrogate before the ellipsis');
  assert.equal(
    [...cut.slice(0, -1)].every((c) => c === '\u{1F600}'),
    true,
  );
});

test('a snippet holds at most its cap in all: the piece that crosses it is cut, then an ellipsis', () => {
  const word = 'w'.repeat(60_000);
  const pieces = capSnippet(
    [
      { text: 'before ', match: false },
      { text: word, match: true },
      { text: ' after', match: false },
    ],
    RESULT_CAPS.snippetChars,
  );
  assert.equal(
    pieces.reduce((n, p) => n + p.text.length, 0),
    RESULT_CAPS.snippetChars,
  );
  assert.deepEqual(
    pieces.map((p) => p.match),
    [false, true, false],
  );
  assert.equal(pieces.at(-1)!.text, '…');
  const small = [
    { text: 'a ', match: false },
    { text: 'b', match: true },
  ];
  assert.deepEqual(capSnippet(small, 320), small);
});
