import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanPrefill, PREFILL_TITLE_MAX_CHARS, withoutControls } from './prefill.ts';

describe('cleanPrefill', () => {
  test('a right-to-left override in the title is removed, so it reads as spelled', () => {
    // What `title=Wiki%E2%80%AEfdp.exe` decodes to: shown as "Wikiexe.pdf" with the override kept.
    assert.equal(cleanPrefill('https://wiki.example/', 'Wiki\u202Efdp.exe').title, 'Wikifdp.exe');
  });

  test('every bidi control and mark is removed from the title and the URL', () => {
    const bidi = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C';
    const cleaned = cleanPrefill(`https://a.example/${bidi}gnp.exe`, `Invoice ${bidi}gnp.exe`);
    assert.deepEqual(cleaned, { url: 'https://a.example/gnp.exe', title: 'Invoice gnp.exe' });
  });

  test('C0 and C1 controls and DEL are removed; in the title, line breaks and tabs become one space', () => {
    const cleaned = cleanPrefill(
      '\u0000https://a.example/\u0007pa\u007Fth\u009B\n',
      ' A\u0000 title\r\n\twith\u0085lines\u0001\u009F and\u001B[31m escapes ',
    );
    assert.deepEqual(cleaned, { url: 'https://a.example/path', title: 'A title with lines and[31m escapes' });
  });

  test('ordinary text is kept as it is: right-to-left scripts, emoji, accents, joiners', () => {
    const title = 'ויקיפדיה – Wikipédia 👩‍💻 عربي';
    assert.deepEqual(cleanPrefill('https://he.wikipedia.org/wiki/עברית', title), {
      url: 'https://he.wikipedia.org/wiki/עברית',
      title,
    });
  });

  test(`the title is cut at ${PREFILL_TITLE_MAX_CHARS} characters, counting code points, not UTF-16 units`, () => {
    const long = cleanPrefill('https://a.example/', '😀'.repeat(1000)).title;
    assert.equal(Array.from(long).length, PREFILL_TITLE_MAX_CHARS);
    assert.equal(long, '😀'.repeat(PREFILL_TITLE_MAX_CHARS));
    const spaced = cleanPrefill('https://a.example/', `${'a'.repeat(PREFILL_TITLE_MAX_CHARS - 1)} b`).title;
    assert.equal(spaced, 'a'.repeat(PREFILL_TITLE_MAX_CHARS - 1), 'no space left dangling at the cut');
    const exact = 'x'.repeat(PREFILL_TITLE_MAX_CHARS);
    assert.equal(cleanPrefill('https://a.example/', exact).title, exact);
  });

  test('a title made only of controls is blank', () => {
    assert.equal(cleanPrefill('https://a.example/', '\u202E\u0000\n\u2066').title, '');
  });
});

describe('withoutControls', () => {
  test('keeps everything but control characters; whitespace controls become the given space', () => {
    assert.equal(withoutControls('a\tb\u202Ec'), 'abc');
    assert.equal(withoutControls('a\tb\u202Ec', ' '), 'a bc');
  });
});
