import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Parser } from 'htmlparser2';
import { HTML_SHAPES } from '../../test-support/hostile-shapes.ts';
import { extractPage } from './extract.ts';
import { limitNesting } from './nesting-limit.ts';
import { BREAK, PageReader } from './page-reader.ts';

/** The reader after a whole page, read as extractPage reads it. */
function read(html: string): PageReader {
  const reader = new PageReader('lanternbot', 10_000);
  const parser = new Parser(reader, { decodeEntities: true });
  parser.write(limitNesting(html));
  parser.end();
  return reader;
}

describe('PageReader: what a page of empty elements costs', () => {
  for (const name of ['tags never closed', 'deep nesting']) {
    it(`${name} (100,000 characters): the text arrays hold its text, not a break per element`, () => {
      const shape = HTML_SHAPES.find((s) => s.name === name);
      assert.ok(shape);
      const reader = read(shape.make(100_000));
      assert.ok(reader.all.length <= 4, `all: ${reader.all.length} entries`);
      assert.ok(reader.content.length <= 4, `content: ${reader.content.length} entries`);
    });
  }

  it('breaks between blocks are kept, one per boundary, and the text reads as before', () => {
    const html = `<html><body>${'<div>'.repeat(5000)}one${'</div>'.repeat(5000)}<p>two</p><h2>${'<div>'.repeat(100)}three</h2></body></html>`;
    const reader = read(html);
    assert.deepEqual(
      reader.all.map((s) => (s === BREAK ? '|' : s.trim())),
      ['|', 'one', '|', 'two', '|', 'three', '|'],
    );
    const page = extractPage(html, 'http://h.test/', { productToken: 'LanternBot' });
    assert.equal(page.text, 'one\ntwo\nthree');
    assert.deepEqual(page.headings, ['three']);
  });
});

describe('PageReader: one enormous text node', () => {
  it('keeps at most about a million characters of it, however long it runs (3,000,000 here)', () => {
    const reader = new PageReader('lanternbot', 10_000);
    const parser = new Parser(reader, { decodeEntities: true });
    const html = `<html><body><p>${'a \t\n  '.repeat(500_000)}</p><p>after</p></body></html>`;
    for (let at = 0; at < html.length; at += 8_192) parser.write(html.slice(at, at + 8_192)); // as extractPage writes
    parser.end();
    const kept = reader.all.reduce((n, s) => n + s.length, 0);
    assert.ok(kept <= 1_010_000, `kept ${kept.toLocaleString('en-US')} characters of one text node`);
    assert.ok(kept >= 1_000_000, `kept only ${kept.toLocaleString('en-US')}: the page's text must still fill its cap`);
  });
});
