import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { oneLine, withoutTrailingBlanks } from './text-document.ts';

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

describe('oneLine', () => {
  it('collapses whitespace and cuts to max code points', () => {
    assert.equal(oneLine('  a \t b\n\nc  ', 120), 'a b c');
    assert.equal(oneLine('😀 😀 😀', 2), '😀 ');
  });

  it('a title from a line of 1,000,000 characters collapses a prefix of it, not all of it', () => {
    const counter = { steps: 0 };
    assert.equal(oneLine('](a "'.repeat(200_000), 120, counter), '](a "'.repeat(24));
    assert.ok(counter.steps <= 4 * 120, `${counter.steps} characters collapsed`);
    const spaced = `${' '.repeat(10_000)}${'w '.repeat(200_000)}`;
    const counted = { steps: 0 };
    assert.equal(oneLine(spaced, 120), 'w '.repeat(60));
    oneLine(spaced, 120, counted);
    assert.ok(counted.steps <= 4 * (10_000 + 4 * 120), `${counted.steps} characters collapsed after a long blank run`);
  });
});
