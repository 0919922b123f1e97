import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChunkedString, PIECES_PER_CHUNK } from './chunked-string.ts';

describe('ChunkedString', () => {
  it('200,000 pieces join in order, and no array ever holds more than PIECES_PER_CHUNK of them', () => {
    const out = new ChunkedString();
    const expected: string[] = [];
    for (let i = 0; i < 100_000; i++) {
      out.push(`<p${i}>`, ' ');
      expected.push(`<p${i}>`, ' ');
    }
    assert.equal(out.join(), expected.join(''));
    assert.equal(out.count, 200_000);
    assert.equal(PIECES_PER_CHUNK, 4096, 'a chunk array stays in a regular 128 KB heap page');
    assert.ok(out.longestArray <= 4096 + 1, `an array of ${out.longestArray} pieces`);
  });

  it('no pieces join to the empty string; one piece to itself', () => {
    assert.equal(new ChunkedString().join(), '');
    const one = new ChunkedString();
    one.push('a');
    assert.equal(one.join(), 'a');
  });
});
