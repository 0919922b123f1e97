import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHROME_EXPORT,
  EDGE_EXPORT,
  FIREFOX_EXPORT,
  SAFARI_EXPORT,
  largeBookmarkExport,
} from '../../test-support/bookmark-exports.ts';
import { planImport, type ImportPlan } from './import-plan.ts';
import { parseCsv } from './url-list.ts';
import { MAX_NAME_READ, toLabel } from './label.ts';

const plan = (text: string): ImportPlan => planImport(text, { allowPrivate: false });
const seeds = (p: ImportPlan) => p.seeds.map((s) => [s.url, s.title, s.folder, s.labels]);
const refused = (p: ImportPlan) => p.refused.map((r) => [r.line, r.error, r.url]);

describe('bookmark exports, as each browser writes them', () => {
  test('Chrome: nested folders give labels (not the bookmarks bar itself), entities and non-Latin text are read, javascript: and chrome: are refused with their line', () => {
    const p = plan(CHROME_EXPORT);
    assert.equal(p.format, 'netscape');
    assert.equal(p.entries, 7);
    assert.deepEqual(seeds(p), [
      ['https://example.org/', 'Example & Co', 'Bookmarks bar', []],
      ['https://doc.rust-lang.org/book/?x=1&y=2', 'The Rust <Book>', 'Bookmarks bar / Dev Tools', ['dev-tools']],
      [
        'https://xn--e1afmkfd.xn--p1ai/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F',
        'Статья 📚',
        'Bookmarks bar / Dev Tools / Библиотеки',
        ['dev-tools', 'библиотеки'],
      ],
      ["https://news.example.com/it's", "It's news", 'Other bookmarks', []],
    ]);
    assert.equal(p.duplicates, 1, 'https://example.org/#top is https://example.org/ once normalized: merged, not lost');
    assert.deepEqual(refused(p), [
      [19, 'unsupported-scheme', 'javascript:(function(){alert(document.title)})()'],
      [25, 'unsupported-scheme', 'chrome://settings/'],
    ]);
    assert.match(p.refused[0].message, /^url: .*javascript: scheme; Lantern crawls only http and https/);
  });

  test('Edge: the favorites bar is a container; a folder name with a slash is one label; data: is refused', () => {
    const p = plan(EDGE_EXPORT);
    assert.deepEqual(seeds(p), [
      ['https://learn.example.net/docs/', 'Docs', 'Favorites bar', []],
      ['https://tracker.example.net/board?id=7', 'Board', 'Favorites bar / Work / Projects', ['work-projects']],
      ['https://recipes.example.com/soup', 'Soup', 'Other favorites', []],
    ]);
    assert.deepEqual(refused(p), [[15, 'unsupported-scheme', 'data:text/html,<h1>hi</h1>']]);
  });

  test('Firefox: toolbar and unfiled folders are containers, TAGS become labels, place:, file: and credentials are refused', () => {
    const p = plan(FIREFOX_EXPORT);
    assert.deepEqual(seeds(p), [
      ['https://support.mozilla.example/products/firefox', 'Get Help', 'Mozilla Firefox', ['mozilla-firefox']],
      ['https://doc.rust-lang.org/book/?y=2&x=1', 'Rust book (Firefox)', 'Bookmarks Toolbar', ['rust', 'reading-list']],
      [
        'https://greek.example.org/%CE%BA%CE%B1%CE%BB%CE%B7%CE%BC%CE%AD%CF%81%CE%B1',
        'Καλημέρα κόσμε',
        'Bookmarks Toolbar / Ελληνικά',
        ['ελληνικα'],
      ],
    ]);
    assert.deepEqual(refused(p), [
      [12, 'unsupported-scheme', 'place:parent=menu________&queryType=1&sort=12&maxResults=10&excludeQueries=1'],
      [29, 'unsupported-scheme', 'place:sort=8&maxResults=10'],
      [30, 'unsupported-scheme', 'file:///home/me/notes.pdf'],
      [31, 'credentials', 'https://user:secret@private.example.com/'],
    ]);
  });

  test('Safari: top-level folders without an outer list, the Reading List, and an empty address refused as missing', () => {
    const p = plan(SAFARI_EXPORT);
    assert.deepEqual(seeds(p), [
      ['https://www.apple.example/', 'Apple', 'Favorites', []],
      ['https://recipes.example.com/soup', 'Soup (Safari)', 'Favorites / Recipes & Food', ['recipes-food']],
      ['https://recipes.example.com/bread', 'Bread', 'Favorites / Recipes & Food', ['recipes-food']],
      ['https://blog.example.org/post', 'A long read', 'Reading List', []],
    ]);
    assert.deepEqual(refused(p), [[22, 'missing', '']]);
  });

  test('a broken file never throws: unbalanced lists, unclosed anchors and folders', () => {
    const p = plan(
      '<DL><p><DT><H3>A</H3><DL><DT><A HREF="https://a.example/">one<DT><A HREF="https://b.example/">two</A></DL></DL></DL><DT><A HREF="https://c.example/">three',
    );
    assert.deepEqual(seeds(p), [
      ['https://a.example/', 'one', 'A', ['a']],
      ['https://b.example/', 'two', 'A', ['a']],
      ['https://c.example/', 'three', null, []],
    ]);
  });

  test('duplicates merge their labels into the first seed', () => {
    const p = plan(
      '<DL><DT><H3>x</H3><DL><DT><A HREF="https://a.example/">A</A></DL><DT><H3>y</H3><DL><DT><A HREF="https://A.example">A again</A></DL></DL>',
    );
    assert.deepEqual(seeds(p), [['https://a.example/', 'A', 'x', ['x', 'y']]]);
    assert.equal(p.duplicates, 1);
  });

  test('10,000 bookmarks with favicons are all read, each with its folders as labels', () => {
    const p = plan(largeBookmarkExport(10_000));
    assert.equal(p.seeds.length, 10_000);
    assert.equal(p.refused.length, 0);
    assert.deepEqual(p.seeds[9_999].labels, ['topic-39', 'sub-199']);
  });
});

describe('plain lists of URLs', () => {
  test('one per line: blank and # lines skipped, the rest of a line is the title, bad lines refused with their number', () => {
    const p = plan(
      '# my links\nhttps://a.example/ The A site\n\nexample.org\nhttp://localhost:8080/\r\nhttps://b.example/x\n',
    );
    assert.equal(p.format, 'lines');
    assert.deepEqual(seeds(p), [
      ['https://a.example/', 'The A site', null, []],
      ['https://b.example/x', null, null, []],
    ]);
    assert.deepEqual(refused(p), [
      [4, 'malformed', 'example.org'],
      [5, 'private-address', 'http://localhost:8080/'],
    ]);
  });

  test('CSV with a URL column (Pocket-like): quoted fields, commas and line breaks inside quotes, tags as labels', () => {
    const csv =
      'title,url,time_added,tags\n"Hello, world",https://a.example/,1700000000,rust|web\n"Two\nlines",https://b.example/,1,\nNo url,,1,\n';
    const p = plan(csv);
    assert.equal(p.format, 'csv');
    assert.deepEqual(seeds(p), [
      ['https://a.example/', 'Hello, world', null, ['rust', 'web']],
      ['https://b.example/', 'Two\nlines', null, []],
    ]);
    assert.deepEqual(refused(p), [[5, 'missing', '']]);
  });

  test('CSV parsing follows RFC 4180 (doubled quotes, CRLF)', () => {
    assert.deepEqual(
      parseCsv('a,"b ""q""",c\r\n1,2,3').map((r) => r.fields),
      [
        ['a', 'b "q"', 'c'],
        ['1', '2', '3'],
      ],
    );
  });
});

describe('labels', () => {
  test('names fold into labels that can be typed after label:', () => {
    assert.equal(toLabel('Dev Tools'), 'dev-tools');
    assert.equal(toLabel('  Café/Recettes '), 'cafe-recettes');
    assert.equal(toLabel('C++'), 'c');
    assert.equal(toLabel('!!!'), undefined);
    assert.equal(toLabel('x'.repeat(100))?.length, 60);
  });

  test('only the first 1,000 characters of a name are read, whatever its length', () => {
    assert.equal(MAX_NAME_READ, 1000);
    assert.equal(toLabel(`${'-'.repeat(999)}ab`), 'a', 'the 1,000th character is read, the next is not');
    assert.equal(toLabel(`${'.'.repeat(1000)}abc`), undefined, 'nothing but punctuation in the part read');
    assert.equal(toLabel(`Dev ${'é'.repeat(1_000_000)}`), `dev-${'e'.repeat(56)}`);
  });
});
