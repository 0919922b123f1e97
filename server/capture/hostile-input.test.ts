import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { largeBookmarkExport } from '../../test-support/bookmark-exports.ts';
import { MAX_FOLDER_DEPTH, type StepCounter } from './bookmark-entry.ts';
import { looksLikeBookmarkHtml, MAX_LIST_NESTING, parseBookmarkHtml } from './bookmark-html.ts';
import { planImport } from './import-plan.ts';
import { parseCsvBookmarks, parseUrlLines } from './url-list.ts';

/**
 * The shapes a hostile file can have that made the old regular-expression reader backtrack (a 160 KB
 * file took 16 s), each at a base size and 8 times it. Each reader counts the characters it looks at;
 * a linear reader stays within a few looks per character at every size, a quadratic one does not.
 */
const BUDGET = 6;
const SIZES = [20_000, 160_000];

const SHAPES: Array<[string, (n: number) => string]> = [
  ['an <a tag with a long run of attribute-name characters and no "="', (n) => `<DL><DT><A ${'x'.repeat(n)}>t</A>`],
  ['many "<a " and no ">" at all', (n) => `<DL>${'<a '.repeat(n / 3)}`],
  ['many "<a " before one late ">"', (n) => `<DL>${'<a '.repeat(n / 3)}>`],
  ['many names without "=" in one tag', (n) => `<DL><DT><A HREF="https://a.example/" ${'ab '.repeat(n / 3)}>t</A>`],
  [
    'an anchor whose text is many "<b" without ">"',
    (n) => `<DL><DT><A HREF="https://a.example/">${'<b'.repeat(n / 2)}`,
  ],
  ['many anchors, no closing tags, all on one line', (n) => `<DL>${'<DT><A HREF=x>t '.repeat(n / 17)}`],
  ['many anchors each waiting for a "</a" that never comes', (n) => `<DL>${'<A HREF=x>t</b '.repeat(n / 16)}`],
  ['unclosed quotes', (n) => `<DL><DT><A HREF="https://a.example/" ${'a="b '.repeat(n / 5)}>t</A>`],
  ['a folder per few characters, nested', (n) => `<DL>${'<DT><H3>f</H3><DL>'.repeat(n / 19)}<DT><A HREF=x>t</A>`],
];

function steps(read: (counter: StepCounter) => unknown): number {
  const counter = { steps: 0 };
  read(counter);
  return counter.steps;
}

describe('every reader of an import file looks at each character a bounded number of times', () => {
  for (const [what, make] of SHAPES) {
    test(`bookmark HTML: ${what}`, () => {
      for (const size of SIZES) {
        const text = make(size);
        // Read as a bookmark file whatever the format detection says, and as the import reads it.
        for (const looked of [
          steps((counter) => parseBookmarkHtml(text, { counter })),
          steps((counter) => planImport(text, { allowPrivate: false, counter })),
        ]) {
          assert.ok(looked > 0, 'the reader counts what it reads');
          assert.ok(
            looked <= BUDGET * text.length,
            `${looked} looks over ${text.length} characters: more than ${BUDGET} per character`,
          );
        }
      }
    });
  }

  test('looksLikeBookmarkHtml over "<a " after "<a " without ">"', () => {
    for (const size of SIZES) {
      const text = `<dl>${'<a '.repeat(size / 3)}`;
      const counter = { steps: 0 };
      assert.equal(looksLikeBookmarkHtml(text, counter), false);
      assert.ok(counter.steps <= BUDGET * text.length, `${counter.steps} looks over ${text.length}`);
    }
    assert.equal(looksLikeBookmarkHtml('<dl><a x="1"\n href = "y">'), true);
    assert.equal(looksLikeBookmarkHtml('<dl><a x="1"> href="y"'), false, 'an href after the tag ended is not its');
  });

  test('CSV and URL lines: one quote left open, many commas, long lines', () => {
    for (const size of SIZES) {
      const csv = `url,title\n"${'a,'.repeat(size / 2)}`;
      assert.ok(steps((counter) => parseCsvBookmarks(csv, { counter })) <= BUDGET * csv.length);
      const lines = `${'https://a.example/ '.repeat(size / 19)}\n${'\n'.repeat(size)}`;
      assert.ok(steps((counter) => parseUrlLines(lines, { counter })) <= BUDGET * lines.length);
    }
  });

  test('the hostile shapes still read as the old reader read them', () => {
    assert.deepEqual(
      parseBookmarkHtml(`<DL><DT><A ${'x'.repeat(1000)} HREF="https://a.example/">t</A>`).map((e) => [e.url, e.title]),
      [['https://a.example/', 't']],
    );
    assert.deepEqual(
      parseBookmarkHtml('<DL><DT><A HREF="https://a.example/">one <b x & y</DL>').map((e) => e.title),
      ['one <b x & y'],
      'a "<" that opens no tag is text',
    );
    assert.deepEqual(
      parseBookmarkHtml('<DL><DT><A HREF=x>a</A  ><A HREF=y>b</abbr></a>').map((e) => [e.url, e.title]),
      [
        ['x', 'a'],
        ['y', 'b'],
      ],
    );
    assert.deepEqual(parseBookmarkHtml(`<DL>${'<a '.repeat(1000)}`), [], 'no tag ends: no bookmark');
  });
});

describe('reading stops at the entry limit, not after the whole file', () => {
  test('a bookmark export of 10,000 read with a limit of 10: 11 entries, and the rest of the file is not looked at', () => {
    const text = largeBookmarkExport(10_000, { icons: false });
    const counter = { steps: 0 };
    const entries = parseBookmarkHtml(text, { maxEntries: 10, counter });
    assert.equal(entries.length, 11, 'one more than the limit says there were more');
    assert.ok(counter.steps < text.length / 100, `${counter.steps} of ${text.length} characters looked at`);
  });

  test('URL lines and CSV stop the same way; planImport reports more and judges nothing', () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `https://a.example/${i}`).join('\n');
    assert.equal(parseUrlLines(lines, { maxEntries: 5 }).length, 6);
    assert.equal(parseCsvBookmarks(`url\n${lines}`, { maxEntries: 5 }).length, 6);
    const plan = planImport(lines, { allowPrivate: false, maxEntries: 999 });
    assert.deepEqual([plan.more, plan.entries, plan.seeds.length], [true, 1000, 0]);
    const fits = planImport(lines, { allowPrivate: false, maxEntries: 1000 });
    assert.deepEqual([fits.more, fits.entries, fits.seeds.length], [false, 1000, 1000]);
  });
});

test('lists nested deeper than MAX_LIST_NESTING are counted, not stacked: paths stay right on the way back out', () => {
  const depth = MAX_LIST_NESTING * 3;
  const file =
    '<DL>' +
    Array.from({ length: depth }, (_, i) => `<DT><H3>f${i}</H3><DL>`).join('') +
    '<DT><A HREF="https://a.example/deep">deep</A>' +
    '</DL>'.repeat(depth - 1) +
    '<DT><A HREF="https://a.example/shallow">shallow</A></DL>' +
    '<DT><A HREF="https://a.example/top">top</A>';
  const [deep, shallow, top] = parseBookmarkHtml(file);
  assert.deepEqual(
    deep.folder,
    Array.from({ length: MAX_FOLDER_DEPTH }, (_, i) => `f${i}`),
  );
  assert.deepEqual(shallow.folder, ['f0'], 'back in the first folder after closing all lists but its own');
  assert.deepEqual(top.folder, [], 'and out of it after its own');
});
