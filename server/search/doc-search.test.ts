/**
 * Search over documentation shaped like the real thing (test-support/doc-site.ts: Sphinx-like pages
 * with permalinks, navigation, a table of contents and an index), stored through the crawler's own
 * extraction (test-support/doc-index.ts): completions that continue what was typed, page suggestions
 * that have the typed words, spelling corrections, honest notices, pages one site cannot fill, and ranking by links.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SearchService } from './search-service.ts';
import { tempDatabase } from '../../test-support/test-corpus.ts';
import { indexSite } from '../../test-support/doc-index.ts';
import { docSite, TOY_PAGES } from '../../test-support/doc-site.ts';
import { makePage } from '../../test-support/test-corpus.ts';
import { pageQueries } from '../../db/pages.ts';
import { linkTargetQueries } from '../../db/link-targets.ts';

const TOY = 'http://docs.toy.test';
const BLOG = 'http://blog.test';
let env: ReturnType<typeof tempDatabase>;
let service: SearchService;

before(() => {
  env = tempDatabase();
  indexSite(env.db, TOY, docSite('Toy 1.0', TOY_PAGES));
  indexSite(
    env.db,
    BLOG,
    docSite('Blog', [
      {
        path: '/post.html',
        title: 'Why I like list comprehensions',
        sections: [{ heading: 'Lists', text: 'A list comprehension is neat.' }],
      },
      {
        path: '/typo.html',
        title: 'Notes',
        sections: [{ heading: 'Draft', text: 'My notes on comprehnsions, to be written.' }],
      },
    ]),
  );
  service = new SearchService(env.db);
  service.refresh();
});
after(() => {
  service.close();
  env.cleanup();
});

const LIMIT = { limit: 10, offset: 0 };
const terms = (q: string) =>
  service
    .suggest(q, 8)
    .suggestions.filter((s) => s.kind === 'term')
    .map((s) => s.text);
const pagesOf = (q: string) => service.suggest(q, 8).suggestions.filter((s) => s.kind === 'title');
const urls = (q: string, opts = LIMIT) => service.search(q, opts).results.map((r) => r.url);

describe('completions continue what was typed', () => {
  test('the phrase of more pages leads, and every completion starts with the typed text', () => {
    for (const q of ['list compre', 'list', 'List Compre', 'how do i spl', 'os.pa', 'li', 'list ']) {
      const got = terms(q);
      assert.ok(got.length > 0, `${q}: ${JSON.stringify(got)}`);
      for (const t of got) assert.ok(t.startsWith(q), `${JSON.stringify(t)} continues ${JSON.stringify(q)}`);
    }
    assert.equal(terms('list compre')[0], 'list comprehensions');
    assert.equal(terms('List Compre')[0], 'List Comprehensions', 'what was typed stays as typed');
    assert.equal(terms('data str')[0], 'data structures', 'what is added is lower case ("5. Data Structures")');
    assert.equal(terms('functional ')[0], 'functional programming', 'the next word too');
    assert.deepEqual(terms('os.pa'), ['os.path']);
    assert.ok(terms('how do i spl').includes('how do i split a string into words'), 'a heading as a whole');
    assert.equal(terms('list ')[0], 'list comprehensions', 'after a space, the next word');
  });

  test('a word being typed is never replaced by a different one (no typo completions)', () => {
    assert.deepEqual(terms('list comprehx'), []);
    assert.deepEqual(terms('zqxj'), []);
    assert.deepEqual(
      terms('pythn'),
      [],
      'no page has a word starting "pythn": nothing to complete ("python" would drop a letter)',
    );
  });

  test('page suggestions have every typed word in their title, and carry their site', () => {
    const pages = pagesOf('list');
    assert.ok(pages.length > 0);
    for (const p of pages) {
      assert.match(p.text, /\blist/i, p.text);
      assert.equal(p.host, new URL(p.url!).host);
    }
    const os = pagesOf('os.pa');
    assert.deepEqual(
      os.map((p) => p.url),
      [`${TOY}/library/os.path.html`],
    );
    assert.ok(!pagesOf('gnu').some((p) => !/gnu/i.test(p.text)));
  });

  test('operators before the words are kept as typed', () => {
    const got = terms('site:docs.toy.test list compre');
    assert.equal(got[0], 'site:docs.toy.test list comprehensions');
    assert.ok(pagesOf('site:docs.toy.test list').every((p) => p.host === 'docs.toy.test'));
  });
});

describe('spelling', () => {
  test('a word no page has: the correction\'s results, said as such; "search instead" searches it as typed', () => {
    const r = service.search('pyhton', LIMIT);
    assert.deepEqual(r.correction, { query: 'python', applied: true });
    assert.equal(r.query, 'pyhton');
    assert.equal(r.results[0]?.url, `${TOY}/library/python.html`);
    assert.match(r.notice ?? '', /Showing results for “python”; search instead for “pyhton”/);
    const exact = service.search('pyhton', { ...LIMIT, correct: false });
    assert.equal(exact.total, 0);
    assert.equal(exact.correction, null);
  });

  test('a rare word with a far more common close one: "did you mean", results as typed', () => {
    const r = service.search('comprehnsions', LIMIT);
    assert.ok(urls('comprehnsions').includes(`${BLOG}/typo.html`), 'the page with the word as typed is found');
    assert.deepEqual(r.correction, { query: 'comprehensions', applied: false });
    assert.equal(service.search('comprehensions', LIMIT).correction, null, 'a common word is left alone');
  });
});

describe('notices say what happened', () => {
  test('no OR notice above no results', () => {
    const r = service.search('zebra quartz', LIMIT);
    assert.equal(r.total, 0);
    assert.equal(r.mode, 'and');
    assert.equal(r.notice, null);
  });
});

describe('results a person can scan', () => {
  test("a site's results beyond two wait while other sites can fill the page; pages stay full and honest", () => {
    const ranked = service.search('list', { limit: 50, offset: 0 });
    const small = 4;
    const first = service.search('list', { limit: small, offset: 0 });
    const hosts = first.results.map((x) => x.host);
    assert.ok(new Set(ranked.results.map((x) => x.host)).size >= 2);
    // Both sites on the first page, neither more than twice while the other still has results.
    assert.equal(hosts.filter((h) => h === 'docs.toy.test').length, 2, hosts.join(' '));
    assert.equal(first.results.find((x) => x.host === 'docs.toy.test' && x.moreFromSite)?.host, 'docs.toy.test');
    // Every page but the last is full, and the pages together show each result once.
    const seen: string[] = [];
    const pages = Math.ceil(first.total / small);
    for (let p = 0; p < pages; p++) {
      const r = service.search('list', { limit: small, offset: p * small });
      assert.equal(r.total, first.total, 'the total does not change from page to page');
      if (p < pages - 1) assert.equal(r.results.length, small, `page ${p + 1} is full`);
      seen.push(...r.results.map((x) => x.url));
    }
    assert.equal(new Set(seen).size, seen.length, 'no result twice');
    assert.equal(seen.length, first.total);
    assert.ok(service.search('list site:docs.toy.test', LIMIT).results.every((x) => !x.moreFromSite));
  });

  test('no permalink marks in titles or snippets', () => {
    for (const q of ['list comprehensions', 'compression level', 'iterators']) {
      for (const x of service.search(q, LIMIT).results) {
        assert.ok(!x.title.includes('¶'), x.title);
        assert.ok(!x.snippet.some((p) => p.text.includes('¶')), JSON.stringify(x.snippet));
      }
    }
  });
});

describe('ranking from links', () => {
  test('pages that are mostly links rank below the pages they link to', () => {
    for (const [q, page] of [
      ['str.split', '/library/stdtypes.html'],
      ['list comprehensions', '/tutorial/datastructures.html'],
      ['split a string', '/faq/programming.html'],
    ] as const) {
      const got = urls(q);
      const at = got.indexOf(`${TOY}${page}`);
      assert.ok(at >= 0, `${q}: ${got.join(' ')}`);
      for (const toc of ['/contents.html', '/genindex.html']) {
        const tocAt = got.indexOf(`${TOY}${toc}`);
        assert.ok(tocAt === -1 || tocAt > at, `${q}: ${toc} below ${page}: ${got.join(' ')}`);
      }
    }
  });

  test('a page named by the links to it beats a page that only mentions the words', () => {
    assert.deepEqual(urls('os.path.join').slice(0, 2), [`${TOY}/library/os.path.html`, `${TOY}/library/readline.html`]);
  });
});

describe('each link signal on its own', () => {
  const TEXT = 'Sorting lists in place or into a new list, with a key function and in reverse order. ';
  function service2(ranking: { anchors?: boolean; linkDensity?: boolean }) {
    const e = tempDatabase();
    const pages = pageQueries(e.db);
    const links = linkTargetQueries(e.db);
    // A contents page that lists every sorting section (mostly links), the howto it links to, and pages linking the howto by name.
    pages.upsertPage(
      makePage('http://s.test/contents', {
        title: 'Contents',
        linkDensity: 0.95,
        body: 'Sorting HOWTO. Sorting basics. Key functions for sorting. Sorting stability. Sorting keys. Sorting in reverse. Sorting lists.',
      }),
    );
    const howto = pages.upsertPage(
      makePage('http://s.test/howto/sorting', { title: 'HOWTO', linkDensity: 0.05, body: TEXT.repeat(3) }),
    );
    const other = pages.upsertPage(
      makePage('http://s.test/library/functions', {
        title: 'Built-in functions',
        linkDensity: 0.1,
        body: `${'sorted() returns a new sorted list; sorting keys and reverse. '.repeat(3)}`,
      }),
    );
    for (let i = 0; i < 6; i++) {
      const from = pages.upsertPage(
        makePage(`http://s.test/ref${i}`, { title: `Reference ${i}`, body: 'See the guide.' }),
      );
      links.recordLinks(from, [{ url: 'http://s.test/howto/sorting', text: 'Sorting HOWTO: sorting keys' }]);
    }
    void howto;
    void other;
    const s = new SearchService(e.db, { ranking });
    s.refresh();
    return {
      s,
      close: () => {
        s.close();
        e.cleanup();
      },
    };
  }

  test('a page that is mostly links ranks below the page it links to (and above it without the penalty)', () => {
    const on = service2({ anchors: false, linkDensity: true });
    const off = service2({ anchors: false, linkDensity: false });
    try {
      const order = (svc: SearchService) =>
        svc.search('sorting keys', LIMIT).results.map((r) => new URL(r.url).pathname);
      assert.equal(order(off.s)[0], '/contents', `without: ${order(off.s).join(' ')}`);
      assert.ok(
        order(on.s).indexOf('/howto/sorting') < order(on.s).indexOf('/contents'),
        `with: ${order(on.s).join(' ')}`,
      );
    } finally {
      on.close();
      off.close();
    }
  });

  test('the words of the links to a page rank it', () => {
    const on = service2({ anchors: true, linkDensity: false });
    const off = service2({ anchors: false, linkDensity: false });
    try {
      const rank = (svc: SearchService) =>
        svc.search('sorting reverse', LIMIT).results.map((r) => new URL(r.url).pathname);
      assert.ok(
        rank(on.s).indexOf('/howto/sorting') < rank(off.s).indexOf('/howto/sorting') ||
          rank(on.s)[0] === '/howto/sorting',
        `with: ${rank(on.s).join(' ')}; without: ${rank(off.s).join(' ')}`,
      );
      assert.equal(rank(on.s)[0], '/howto/sorting', rank(on.s).join(' '));
      assert.notEqual(rank(off.s)[0], '/howto/sorting', rank(off.s).join(' '));
    } finally {
      on.close();
      off.close();
    }
  });
});
