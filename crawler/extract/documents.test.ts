import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { documentKind } from './document-kind.ts';
import { pdfPage } from './pdf-document.ts';
import { processTextDocument } from './text-document.ts';

const UA = 'LanternBot/0.1 (+test)';
const pdf = (title: string, heading: string, pages: string[]) => ({
  title,
  heading,
  pages,
  pageCount: pages.length,
  truncated: false,
});

describe('which documents are read', () => {
  test('by Content-Type, Markdown also by a .md address served as text/plain', () => {
    assert.equal(documentKind('application/pdf', 'https://a.example/x'), 'pdf');
    assert.equal(documentKind('Application/PDF; qs=0.1', 'https://a.example/x'), 'pdf');
    assert.equal(documentKind('text/plain; charset=utf-8', 'https://a.example/notes.txt'), 'text');
    assert.equal(documentKind('text/plain', 'https://a.example/README.md'), 'markdown');
    assert.equal(documentKind('text/markdown', 'https://a.example/x'), 'markdown');
    assert.equal(documentKind(undefined, 'https://a.example/x'), 'html');
    assert.equal(documentKind('image/png', 'https://a.example/x.pdf'), null);
    assert.equal(documentKind('application/zip', 'https://a.example/x'), null);
  });
});

describe('a PDF as a page', () => {
  test("pages are joined, and each page's start is kept in code points (as SQLite counts)", () => {
    const page = pdfPage(
      { url: 'https://a.example/m.pdf', xRobotsTag: undefined, userAgent: UA },
      pdf('Manual', 'Intro', ['Intro\n𝔸 one  \n', 'two\u0007', '', 'four']),
    );
    assert.equal(page.text, 'Intro\n𝔸 one\n\ntwo\n\n\n\nfour');
    assert.deepEqual(page.pageStarts, [0, 13, 18, 20]);
    const codePoints = Array.from(page.text);
    assert.equal(codePoints.slice(page.pageStarts![1], page.pageStarts![1] + 3).join(''), 'two');
    assert.equal(codePoints.slice(page.pageStarts![3]).join(''), 'four');
    assert.deepEqual([page.fileType, page.title, page.headings, page.links], ['pdf', 'Manual', ['Intro'], []]);
  });

  test("the title: the document's own, else the first page's heading-like line, else its first line, else the file name", () => {
    const at = { url: 'https://a.example/docs/Guide%20v2.pdf', xRobotsTag: undefined, userAgent: UA };
    assert.equal(pdfPage(at, pdf('  ', 'Big   Heading', ['Big Heading\nbody'])).title, 'Big Heading');
    assert.equal(pdfPage(at, pdf('', '', ['\n  first line\nsecond'])).title, 'first line');
    assert.equal(pdfPage(at, pdf('', '', [''])).title, 'Guide v2.pdf');
  });

  test('headings: numbered section lines and short lines standing between sentences, on every page', () => {
    const page = pdfPage(
      { url: 'https://a.example/R-intro.pdf', xRobotsTag: undefined, userAgent: UA },
      pdf('An Introduction to R', 'An Introduction to R', [
        'An Introduction to R\nNotes on R.',
        'Vectors can be used in arithmetic.\nThe recycling rule\nShorter vectors are recycled to the length of the longest.',
        '2.2 Vector arithmetic\nContents\n2.3 Generating regular sequences . . . 9\nsee the manual for details\nand more\nthen',
      ]),
    );
    assert.deepEqual(page.headings, ['The recycling rule', 'Vector arithmetic']);
  });

  test('X-Robots-Tag applies to a PDF: noarchive, nosnippet, noindex', () => {
    const page = pdfPage(
      { url: 'https://a.example/m.pdf', xRobotsTag: 'noarchive\nOtherBot: noindex', userAgent: UA },
      pdf('T', '', ['x']),
    );
    assert.deepEqual([page.noarchive, page.noindex, page.nosnippet], [true, false, false]);
    const none = pdfPage(
      { url: 'https://a.example/m.pdf', xRobotsTag: 'LanternBot: noindex, nosnippet', userAgent: UA },
      pdf('T', '', ['x']),
    );
    assert.deepEqual([none.noindex, none.nosnippet], [true, true]);
  });
});

describe('plain text and Markdown as pages', () => {
  const input = (body: string, contentType: string, url = 'https://a.example/notes') => ({
    url,
    body: Buffer.from(body),
    contentType,
    xRobotsTag: undefined,
    userAgent: UA,
    allowPrivate: false,
    maxLinks: 100,
  });

  test('plain text: its first line is the title, the text is kept as written, no links followed', () => {
    const page = processTextDocument(
      input('\n  Shopping list  \nmilk https://a.example/x\neggs\n', 'text/plain; charset=utf-8'),
      'text',
    )!;
    assert.deepEqual(
      [page.fileType, page.title, page.text, page.links],
      ['text', 'Shopping list', 'Shopping list\nmilk https://a.example/x\neggs', []],
    );
  });

  test('plain text: numbered sections and short lines between sentences are its headings', () => {
    const page = processTextDocument(
      input(
        'R notes\nSome words end here.\nThe recycling rule\nShorter vectors are reused.\n2.2 Vector arithmetic\nmore text\n',
        'text/plain',
      ),
      'text',
    )!;
    assert.deepEqual([page.title, page.headings], ['R notes', ['The recycling rule', 'Vector arithmetic']]);
  });

  test('Markdown: the first # heading is the title, headings kept, syntax reduced to words, links followed', () => {
    const md =
      'Intro text\n# The *Real* Title\n## Setup\nSee [the guide](guide.md "Guide") and <https://b.example/x>.\n```\n# not a heading [x](y.md)\n```\n> quoted **bold**\n';
    const page = processTextDocument(input(md, 'text/markdown', 'https://a.example/docs/README.md'), 'markdown')!;
    assert.equal(page.title, 'The Real Title');
    assert.deepEqual(page.headings, ['The Real Title', 'Setup']);
    assert.equal(
      page.text,
      'Intro text\nThe Real Title\nSetup\nSee the guide and https://b.example/x.\n# not a heading [x](y.md)\nquoted bold',
    );
    assert.deepEqual(page.links, ['https://a.example/docs/guide.md', 'https://b.example/x']);
  });

  test('binary data served as text/plain is not a page', () => {
    assert.equal(
      processTextDocument(
        { ...input('', 'text/plain'), body: Buffer.from([0, 1, 2, 3, 0, 0, 5, 6, 0, 7, 8, 0]) },
        'text',
      ),
      null,
    );
  });
});
