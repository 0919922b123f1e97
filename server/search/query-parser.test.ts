import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/seeded-random.ts';
import BetterSqlite3 from 'better-sqlite3';
import { itemWords, parseQuery, parseSite, MAX_QUERY_CHARS, trailingStars, trimOuter } from './query-parser.ts';
import { identExpression, matchExpression, phrasesExpression, excludedExpression, quote } from './fts-expression.ts';
import { asIdentifier, extractIdentifiers } from '../../shared/identifiers.ts';

function summary(q: string) {
  const p = parseQuery(q);
  return {
    items: p.items.map((it) =>
      it.kind === 'phrase' ? `"${it.words.join(' ')}"` : `${it.text}${it.prefix ? '*' : ''}${it.ident ? '#' : ''}`,
    ),
    excluded: p.excluded.map((it) => (it.kind === 'phrase' ? `"${it.words.join(' ')}"` : it.text)),
    sites: p.sites.map((s) => `${s.name}${s.port ? `:${s.port}` : ''}`),
    excludedSites: p.excludedSites.map((s) => s.name),
  };
}

describe('parseQuery', () => {
  test('words, phrases, exclusions, sites and prefixes', () => {
    assert.deepEqual(summary('rust ownership'), {
      items: ['rust', 'ownership*'],
      excluded: [],
      sites: [],
      excludedSites: [],
    });
    assert.deepEqual(summary('rust ownership '), {
      items: ['rust', 'ownership'],
      excluded: [],
      sites: [],
      excludedSites: [],
    });
    assert.deepEqual(summary('"borrow checker" rules -unsafe -"raw pointer" site:doc.rust-lang.org -site:evil.com'), {
      items: ['"borrow checker"', 'rules'],
      excluded: ['unsafe', '"raw pointer"'],
      sites: ['doc.rust-lang.org'],
      excludedSites: ['evil.com'],
    });
    assert.deepEqual(summary('site:127.0.0.1:8080 foo*').sites, ['127.0.0.1:8080']);
    assert.deepEqual(summary('foo* bar').items, ['foo*', 'bar*']);
    assert.deepEqual(summary('ab').items, ['ab'], 'too short for an automatic prefix');
    assert.deepEqual(summary('"unclosed phrase here').items, ['"unclosed phrase here"']);
    assert.deepEqual(summary('"single"').items, ['single'], 'a one-word phrase is a word (no prefix)');
    assert.deepEqual(summary('capture_output git-rebase').items, ['capture_output#', 'git-rebase*#']);
    assert.deepEqual(summary('(parens), "quoted," end.').items, ['parens', 'quoted', 'end*']);
  });

  test('operators and FTS5 syntax are plain characters or dropped', () => {
    assert.deepEqual(summary('NEAR( a AND b OR NOT c').items, ['NEAR', 'a', 'AND', 'b', 'OR', 'NOT', 'c']);
    assert.deepEqual(summary('*** ^ : - -- + "" " "').items, []);
    assert.deepEqual(summary('title:foo').items, ['title:foo*']);
    assert.deepEqual(summary('-').excluded, []);
    assert.deepEqual(
      summary('aa\u0000bb\u0001ccc').items,
      ['aa', 'bb', 'ccc*'],
      'control characters separate words (NUL would end an FTS5 string)',
    );
  });

  test('long queries are cut to 1000 characters; word and item counts are bounded', () => {
    const p = parseQuery(`a ${'b'.repeat(5000)}`);
    assert.equal(p.truncated, true);
    assert.equal(p.text.length, MAX_QUERY_CHARS);
    assert.equal((p.items[1] as { text: string }).text.length, 100);
    assert.equal((p.items[1] as { prefix: boolean }).prefix, false, 'no prefix on a word cut in half');
    assert.equal(parseQuery('w '.repeat(400)).items.length, 32);
  });

  test('parseSite reads hosts, ports and pasted URLs', () => {
    assert.deepEqual(parseSite('Example.ORG.'), { name: 'example.org', port: undefined });
    assert.deepEqual(parseSite('https://example.org:8443/path?q'), { name: 'example.org', port: 8443 });
    assert.deepEqual(parseSite('[::1]:8080'), { name: '[::1]', port: 8080 });
    assert.deepEqual(
      parseSite('example.org:80'),
      { name: 'example.org', port: undefined },
      'default ports are dropped, as in pages.host',
    );
    assert.equal(parseSite(''), undefined);
    assert.equal(parseSite('%%%'), undefined);
  });

  test('itemWords lists the searchable words in order', () => {
    assert.deepEqual(itemWords(parseQuery('one "two three" -four four').items), ['one', 'two', 'three', 'four']);
  });
});

describe('identifiers', () => {
  test('asIdentifier and extractIdentifiers pick words joined by _ or -', () => {
    assert.equal(asIdentifier('Capture_Output'), 'capture_output');
    assert.equal(asIdentifier('-git-rebase-'), 'git-rebase');
    assert.equal(asIdentifier('__init__'), '__init__');
    assert.equal(asIdentifier('plain'), undefined);
    assert.equal(asIdentifier('a=b_c'), undefined);
    assert.equal(asIdentifier('___'), undefined);
    assert.equal(
      extractIdentifiers('Use capture_output=True; see git-rebase and capture_output.', 'well-known'),
      'capture_output git-rebase well-known',
    );
    assert.equal(
      extractIdentifiers(Array.from({ length: 3000 }, (_, i) => `id_${i}`).join(' ')).split(' ').length,
      2000,
    );
  });
});

describe('FTS5 expressions', () => {
  test('are built from quoted strings only', () => {
    const p = parseQuery('"a b" c -d -"e f" g_h');
    assert.equal(matchExpression(p, 'and'), '("a b" AND "c" AND "g_h"*) NOT ("d" OR "e f")');
    assert.equal(matchExpression(p, 'or'), '("a b" OR "c" OR "g_h"*) NOT ("d" OR "e f")');
    assert.equal(
      matchExpression(p, 'and', new Map([['c', ['cc', 'ca']]])),
      '("a b" AND ("c" OR "cc" OR "ca") AND "g_h"*) NOT ("d" OR "e f")',
    );
    assert.equal(identExpression(p, 'and'), '("g_h"*)');
    assert.equal(phrasesExpression(p), '("a b")');
    assert.equal(excludedExpression(p), '("d" OR "e f")');
    assert.equal(quote('say "hi"'), '"say ""hi"""');
    assert.equal(matchExpression(parseQuery('-only'), 'and'), undefined);
  });

  test('every expression from hostile input is valid FTS5 (never a syntax error)', () => {
    const db = new BetterSqlite3(':memory:');
    try {
      db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, tokenize = 'porter unicode61 remove_diacritics 2');
        CREATE VIRTUAL TABLE i USING fts5(a, tokenize = "unicode61 remove_diacritics 2 tokenchars '_-'");
        INSERT INTO t VALUES ('alpha beta gamma near and or not'); INSERT INTO i VALUES ('x_y a-b');`);
      const run = db.prepare('SELECT rowid FROM t WHERE t MATCH ?');
      const runIdent = db.prepare('SELECT rowid FROM i WHERE i MATCH ?');
      let seed = 11;
      const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const parts = [
        '"',
        '""',
        '-',
        '*',
        '^',
        ':',
        '(',
        ')',
        '{',
        '}',
        'AND',
        'OR',
        'NOT',
        'NEAR(',
        'NEAR/2',
        'site:',
        ' ',
        ' ',
        'alpha',
        'beta',
        'x_y',
        'a-b',
        '+',
        ',',
        '\\',
        "'",
        '\u0000',
        '🔥',
        'ü',
        'a:',
        'col:',
        '[',
        ']',
        '\ud800',
        'x\udfff',
      ];
      let checked = 0;
      for (let i = 0; i < 2000; i++) {
        let s = '';
        const n = 1 + Math.floor(rand() * 14);
        for (let j = 0; j < n; j++) s += parts[Math.floor(rand() * parts.length)];
        const p = parseQuery(s);
        for (const expr of [
          matchExpression(p, 'and'),
          matchExpression(p, 'or', new Map([['alpha', ['beta']]])),
          phrasesExpression(p),
          excludedExpression(p),
        ]) {
          if (expr === undefined) continue;
          assert.doesNotThrow(() => run.all(expr), `${JSON.stringify(s)} → ${expr}`);
          checked++;
        }
        const ident = identExpression(p, 'and');
        if (ident !== undefined) assert.doesNotThrow(() => runIdent.all(ident), `${JSON.stringify(s)} → ${ident}`);
      }
      assert.ok(checked > 1000);
      assert.deepEqual(
        run.all(matchExpression(parseQuery('NEAR( AND'), 'and') as string),
        [{ rowid: 1 }],
        'operators are searched as words',
      );
    } finally {
      db.close();
    }
  });
});

describe('query-parser: trimOuter and trailingStars, linear scans', () => {
  // The regexes they replace: the reference, run on short random words only (quadratic on long runs).
  const regexTrim = (s: string) => s.replace(/^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu, '');
  const regexStars = (s: string) => (/\*+$/.test(s) ? (/\*+$/.exec(s)?.[0].length ?? 0) : 0);
  const PIECES = ['a', 'É', '𝐀', '😀', '_', '*', '!', '-', ' ', '.', '7', '\u0301', '\ud800'];

  test('give what the regexes gave on 20,000 random words', () => {
    const next = seededRandom(26);
    for (let i = 0; i < 20_000; i++) {
      const word = Array.from(
        { length: Math.floor(next() * 9) },
        () => PIECES[Math.floor(next() * PIECES.length)],
      ).join('');
      assert.equal(trimOuter(word), regexTrim(word), JSON.stringify(word));
      assert.equal(trailingStars(word), regexStars(word), JSON.stringify(word));
    }
  });

  test('the hostile shapes of the query parser, at its 1,000-character cap, give the words they hold', () => {
    const inner = parseQuery(`a${'!'.repeat(998)}b`).items;
    assert.equal(inner.length, 1);
    assert.ok(inner[0].kind === 'term' && inner[0].text.startsWith('a!!!'));
    const stars = parseQuery(`ab${'*'.repeat(998)}`);
    assert.deepEqual(
      stars.items.map((i) => i.kind === 'term' && [i.text, i.prefix]),
      [['ab', false]],
    );
    assert.deepEqual(
      parseQuery(`abc${'*'.repeat(997)}`).items.map((i) => i.kind === 'term' && [i.text, i.prefix]),
      [['abc', true]],
    );
    assert.deepEqual(
      parseQuery(`${'!'.repeat(500)}word${'?'.repeat(496)}`).items.map((i) => i.kind === 'term' && i.text),
      ['word'],
    );
  });
});
