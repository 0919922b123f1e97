import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutTrailingBlanks } from './text-document.ts';

describe('withoutTrailingBlanks', () => {
  it('drops the spaces and tabs that end each line, and nothing else', () => {
    assert.equal(withoutTrailingBlanks('a \t\n b\t\n\n  \nc  '), 'a\n b\n\n\nc');
    assert.equal(withoutTrailingBlanks(' a b'), ' a b');
  });

  it('a text of 100,000 lines with no trailing blanks is returned as it is, not split into lines', () => {
    const text = 'a line\n'.repeat(100_000);
    const counter = { pieces: 0 };
    assert.equal(withoutTrailingBlanks(text, counter), text);
    assert.equal(counter.pieces, 0, `${counter.pieces} pieces made`);
  });

  it('100,000 lines that end in blanks: one piece per line cut, joined in chunks', () => {
    const counter = { pieces: 0 };
    assert.equal(withoutTrailingBlanks('w \n'.repeat(100_000), counter), 'w\n'.repeat(100_000));
    assert.ok(counter.pieces <= 100_001, `${counter.pieces} pieces`);
  });
});
