import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type CsvCounter, MAX_CSV_FIELDS, parseCsv } from './url-list.ts';

/**
 * A CSV field is cut from the text in a bounded number of pieces (one per run between quotes), not
 * grown one character at a time: a per-character field held one string node per character, which
 * the garbage collector copied over and over, so big fields cost more than linear time.
 */
const SIZE = 160_000;

function read(text: string): { fields: string[][]; pieces: number } {
  const counter: CsvCounter = { steps: 0, pieces: 0 };
  const fields = parseCsv(text, Number.POSITIVE_INFINITY, counter).map((r) => r.fields);
  return { fields, pieces: counter.pieces ?? 0 };
}

describe('CSV fields are sliced from the text, not built a character at a time', () => {
  test('a huge unquoted field, a quoted one and one whose quote never closes: one piece each', () => {
    for (const [text, field] of [
      [`url,title\nhttp://a.test/,${'a'.repeat(SIZE)}`, 'a'.repeat(SIZE)],
      [`url,title\nhttp://a.test/,"${'a,\n'.repeat(SIZE / 3)}"`, 'a,\n'.repeat(SIZE / 3)],
      [`url,title\n"${'a'.repeat(SIZE)}`, 'a'.repeat(SIZE)],
    ] as const) {
      const { fields, pieces } = read(text);
      assert.equal(fields[1].at(-1), field);
      assert.ok(pieces > 0 && pieces <= 6, `${pieces} pieces for ${fields.flat().length} fields`);
    }
  });

  test('doubled quotes: the quoted run is one piece', () => {
    const { fields, pieces } = read(`url,title\n"${'ab""'.repeat(SIZE / 4)}"`);
    assert.equal(fields[1][0], 'ab"'.repeat(SIZE / 4));
    assert.ok(pieces > 0 && pieces <= 4, `${pieces} pieces for ${SIZE / 4} doubled quotes`);
  });

  test('what is read is unchanged: quotes, doubled quotes, line breaks in quotes, CR LF, text after a quote', () => {
    assert.deepEqual(
      parseCsv('a,"b ""q""",c\r\n1,"x\ny",3\n"p"q,r"s",""\n\n,').map((r) => [r.line, r.fields]),
      [
        [1, ['a', 'b "q"', 'c']],
        [2, ['1', 'x\ny', '3']],
        [4, ['pq', 'r"s"', '']],
        [6, ['', '']],
      ],
    );
  });
});

describe('a CSV record keeps a bounded number of fields', () => {
  test('160,000 commas in one record: its first MAX_CSV_FIELDS fields kept, the next record still read', () => {
    const records = parseCsv(`url,title\n${','.repeat(SIZE)}\nhttp://a.test/,t`);
    assert.deepEqual(
      records.map((r) => [r.line, r.fields.length]),
      [
        [1, 2],
        [2, MAX_CSV_FIELDS],
        [3, 2],
      ],
    );
    assert.equal(MAX_CSV_FIELDS, 1000);
  });
});
