import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { pageQueries } from '../../db/pages.ts';
import { waitFor } from '../../test-support/test-web.ts';
import { BadQueryError, PAGE_CACHE_KIB, SearchService } from './search-service.ts';
import { CORPUS, makePage, tempDatabase } from '../../test-support/test-corpus.ts';
import type { SearchResponse } from './types.ts';

const LIMIT = { limit: 10, offset: 0 };

function urls(r: SearchResponse): string[] {
  return r.results.map((x) => x.url);
}

function matchedWords(r: SearchResponse, i = 0): string[] {
  return (r.results[i]?.snippet ?? []).filter((p) => p.match).map((p) => p.text.toLowerCase());
}

/** A corpus in a fresh database, with a started service whose title index is built. */
async function setup(opts: { refreshIntervalMs?: number } = {}) {
  const env = tempDatabase();
  const pages = pageQueries(env.db);
  env.db.transaction(() => {
    for (const p of Object.values(CORPUS)) pages.upsertPage(p);
  })();
  const service = new SearchService(env.db, opts);
  service.start();
  await waitFor(() => service.ready, { timeoutMs: 5000, message: 'title index ready' });
  return {
    env,
    pages,
    service,
    cleanup: () => {
      service.close();
      env.cleanup();
    },
  };
}

describe('SearchService over a known corpus', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  before(async () => {
    ctx = await setup();
  });
  after(() => ctx.cleanup());

  const intended: Array<[string, keyof typeof CORPUS]> = [
    ['ownership borrow', 'rust'],
    ['subprocess', 'python'],
    ['sourdough starter', 'sourdough'],
    ['telescope aperture', 'telescope'],
    ['andromeda', 'galaxies'],
    ['entanglement', 'quantum'],
    ['calvin cycle', 'photosynthesis'],
    ['volcano iceland', 'volcano'],
    ['sicilian defence', 'chess'],
    ['merino yarn', 'knitting'],
    ['kubernetes deployment', 'kubernetes'],
    ['gin index postgresql', 'postgres'],
    ['puncture inner tube', 'bicycle'],
    ['jazz autumn leaves', 'jazz'],
    ['orchids watering', 'orchids'],
    ['marathon tapering', 'marathon'],
    ['espresso grinder', 'espresso'],
    ['honey hive', 'beekeeping'],
    ['origami crane', 'origami'],
    ['moon tides', 'tides'],
    ['typescript generics', 'typescript'],
    ['wal checkpoint', 'sqlite'],
    ['death cap mushroom', 'mushrooms'],
    ['paris cafe', 'cafe'],
  ];
  for (const [q, key] of intended) {
    test(`"${q}" finds ${key} first`, () => {
      const r = ctx.service.search(q, LIMIT);
      assert.equal(r.results[0]?.url, CORPUS[key].url, JSON.stringify(urls(r)));
      assert.equal(r.mode, 'and');
      assert.ok(r.total >= 1);
    });
  }

  test('a title match ranks above a body-only match', () => {
    const r = ctx.service.search('sourdough', LIMIT);
    assert.deepEqual(urls(r), [CORPUS.sourdough.url, CORPUS.bagels.url]);
  });

  test('results carry title, host, ISO fetchedAt, score, and snippets with the matched words', () => {
    const r = ctx.service.search('andromeda galaxy', LIMIT);
    const first = r.results[0];
    assert.equal(first.title, 'Spiral galaxies');
    assert.equal(first.host, '127.0.0.1:8123');
    assert.equal(first.fetchedAt, '2024-01-01T00:00:00.000Z');
    assert.ok(first.score > 0);
    assert.ok(matchedWords(r).includes('andromeda'), JSON.stringify(first.snippet));
    assert.ok(matchedWords(r).includes('galaxy'));
    const text = first.snippet.map((p) => p.text).join('');
    assert.match(text, /Andromeda galaxy is a spiral galaxy/);
    for (const [q, word] of [
      ['espresso grinder', 'grinder'],
      ['calvin cycle', 'calvin'],
      ['merino', 'merino'],
    ]) {
      assert.ok(matchedWords(ctx.service.search(q, LIMIT)).includes(word), q);
    }
    assert.equal(typeof r.tookMs, 'number');
    assert.equal(r.indexing, false);
    assert.equal(r.notice, null);
  });

  test('"quoted phrases" match only the words together', () => {
    const words = ctx.service.search('sourdough starter', LIMIT);
    assert.ok(urls(words).includes(CORPUS.sourdough.url));
    const phrase = ctx.service.search('"sourdough starter"', LIMIT);
    assert.deepEqual(urls(phrase), [CORPUS.bagels.url]);
    assert.deepEqual(matchedWords(phrase), ['sourdough starter']);
    assert.deepEqual(urls(ctx.service.search('"capture the output"', LIMIT)), [CORPUS.prose.url]);
  });

  test('-word and -"phrase" exclude pages', () => {
    assert.deepEqual(urls(ctx.service.search('sourdough -bagels', LIMIT)), [CORPUS.sourdough.url]);
    assert.deepEqual(urls(ctx.service.search('sourdough -"boiled before"', LIMIT)), [CORPUS.sourdough.url]);
    assert.deepEqual(urls(ctx.service.search('sourdough -bread', LIMIT)), [CORPUS.bagels.url]);
  });

  test('site: keeps a host and its subdomains; a port narrows; -site: excludes', () => {
    const galaxies = urls(ctx.service.search('galaxies site:127.0.0.1', LIMIT));
    assert.deepEqual(new Set(galaxies), new Set([CORPUS.galaxies.url, CORPUS.telescope.url]));
    assert.deepEqual(urls(ctx.service.search('site:127.0.0.1:8123 telescope', LIMIT)), [CORPUS.telescope.url]);
    assert.equal(ctx.service.search('site:127.0.0.1:9999 telescope', LIMIT).total, 0);
    assert.deepEqual(urls(ctx.service.search('ownership site:example.org', LIMIT)), [CORPUS.rust.url]);
    assert.deepEqual(urls(ctx.service.search('ownership site:blog.example.org', LIMIT)), []);
    assert.deepEqual(urls(ctx.service.search('ownership site:http://docs.example.org/any/path', LIMIT)), [
      CORPUS.rust.url,
    ]);
    const git = urls(ctx.service.search('git -site:docs.example.org', LIMIT));
    assert.deepEqual(git, [CORPUS.gitProse.url]);
    // title-index-only (prefix) hits obey site: too
    assert.deepEqual(urls(ctx.service.search('kuber site:blog.example.org', LIMIT)), []);
  });

  test('the last word is a prefix, unless followed by a space', () => {
    assert.equal(ctx.service.search('photosynth', LIMIT).results[0]?.url, CORPUS.photosynthesis.url);
    assert.equal(ctx.service.search('kuber', LIMIT).results[0]?.url, CORPUS.kubernetes.url);
    assert.equal(ctx.service.search('orchid care', LIMIT).results[0]?.url, CORPUS.orchids.url);
    assert.equal(ctx.service.search('kuber ', LIMIT).total, 0);
    assert.equal(
      ctx.service.search('punc', LIMIT).results[0]?.url,
      CORPUS.bicycle.url,
      'a 4-letter prefix reaches bodies',
    );
    assert.equal(ctx.service.search('pun', LIMIT).total, 0, 'a 3-letter prefix does not (titles only)');
    assert.equal(ctx.service.search('marath* tapering', LIMIT).results[0]?.url, CORPUS.marathon.url);
  });

  test('a one-letter typo still finds the page, and the notice says what was searched', () => {
    const r = ctx.service.search('telescpe', LIMIT);
    assert.equal(r.results[0]?.url, CORPUS.telescope.url);
    assert.match(r.notice ?? '', /telescpe.*telescope/);
    const mid = ctx.service.search('photosinthesis light', LIMIT);
    assert.equal(mid.results[0]?.url, CORPUS.photosynthesis.url);
    assert.equal(mid.mode, 'and');
    assert.equal(ctx.service.search('beekeping', LIMIT).results[0]?.url, CORPUS.beekeeping.url);
  });

  test('identifiers are found exactly: capture_output and git-rebase lead over prose with the same words', () => {
    const cap = ctx.service.search('capture_output', LIMIT);
    assert.equal(cap.results[0]?.url, CORPUS.python.url, JSON.stringify(urls(cap)));
    assert.ok(matchedWords(cap).includes('capture_output'));
    const git = ctx.service.search('git-rebase', LIMIT);
    assert.equal(git.results[0]?.url, CORPUS.git.url, JSON.stringify(urls(git)));
    assert.equal(ctx.service.search('git-rebase interactive', LIMIT).results[0]?.url, CORPUS.git.url);
    assert.equal(
      ctx.service.search('capture_out', LIMIT).results[0]?.url,
      CORPUS.python.url,
      'prefix of an identifier',
    );
  });

  test('when no page has all the words, it falls back to any of them and says so', () => {
    const r = ctx.service.search('sourdough zebra', LIMIT);
    assert.equal(r.mode, 'or');
    assert.match(r.notice ?? '', /some of them/);
    assert.equal(r.results[0]?.url, CORPUS.sourdough.url);
    const none = ctx.service.search('zebra', LIMIT);
    assert.equal(none.total, 0);
    assert.deepEqual(none.results, []);
  });

  test('limit and offset page through one stable order; total counts all matches', () => {
    const all = ctx.service.search('collection', { limit: 50, offset: 0 });
    assert.equal(all.total, Object.keys(CORPUS).length);
    assert.equal(all.results.length, Object.keys(CORPUS).length);
    const p1 = ctx.service.search('collection', { limit: 5, offset: 0 });
    const p2 = ctx.service.search('collection', { limit: 5, offset: 5 });
    // Dealt in pages of the limit (at most two of a site on a page, site-folding.ts): each result once.
    const both = [...urls(p1), ...urls(p2)];
    assert.equal(new Set(both).size, 10);
    assert.ok(both.every((u) => urls(all).includes(u)));
    assert.deepEqual(ctx.service.search('collection', { limit: 5, offset: 1000 }).results, []);
    assert.equal(
      ctx.service.search('collection', { limit: 500, offset: -3 }).results.length,
      28,
      'limit clamped to 50',
    );
  });

  test('hostile queries answer or throw BadQueryError, never anything else', () => {
    const hostile = [
      '',
      ' ',
      '\t\n',
      '"',
      '""',
      '"""',
      '***',
      '^',
      '^foo',
      'NEAR(',
      'NEAR(a b)',
      'NEAR(a b, 3)',
      'a:b',
      'title:foo',
      'body:"x"',
      ':',
      '-',
      '--',
      '- -',
      '-"',
      'AND',
      'OR',
      'NOT',
      'a AND',
      'OR b',
      'NOT NOT',
      '(',
      ')',
      '((a',
      '{a b}',
      'a*',
      '*a',
      '"a',
      'a"b"c',
      '\\',
      "'",
      "';DROP TABLE pages;--",
      '\u0000',
      '\u0001kuber\u0002',
      '🔥',
      '🔥 sourdough',
      'site:',
      'site:::',
      'site:[::1]:80 x',
      'site:%%% x',
      '-site:x',
      '+',
      '+"a b"',
      'x'.repeat(3000),
      'word '.repeat(600),
      '"' + 'a '.repeat(800),
      'ünïcödé',
      '中文 搜索',
      'a\u0301',
      '\u200b',
      'col:umn:s',
      '*"*"*',
      'NEAR/3',
      'a OR b NOT c',
    ];
    // and a few hundred pseudo-random strings of operator characters and words
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const parts = [
      '"',
      '-',
      '*',
      '^',
      ':',
      '(',
      ')',
      'AND',
      'OR',
      'NOT',
      'NEAR(',
      'site:',
      ' ',
      'sour',
      'dough',
      'x_y',
      'a-b',
      '+',
      ',',
      '\\',
    ];
    for (let i = 0; i < 300; i++) {
      let s = '';
      const n = 1 + Math.floor(rand() * 12);
      for (let j = 0; j < n; j++) s += parts[Math.floor(rand() * parts.length)];
      hostile.push(s);
    }
    let answered = 0;
    let refused = 0;
    for (const q of hostile) {
      try {
        const r = ctx.service.search(q, LIMIT);
        assert.ok(Array.isArray(r.results));
        assert.ok(r.query.length <= 1000);
        answered++;
      } catch (err) {
        assert.ok(
          err instanceof BadQueryError,
          `${JSON.stringify(q.slice(0, 60))}: ${(err as Error).message} ${String((err as Error).cause)}`,
        );
        assert.equal(err.code, 'bad-query');
        refused++;
      }
      assert.ok(Array.isArray(ctx.service.suggest(q, 8).suggestions));
    }
    assert.ok(answered > 100 && refused > 10, `answered ${answered}, refused ${refused}`);
    assert.throws(() => ctx.service.search('', LIMIT), BadQueryError);
    assert.throws(() => ctx.service.search('-sourdough', LIMIT), BadQueryError);
    assert.throws(() => ctx.service.search('-site:example.org', LIMIT), BadQueryError);
    assert.equal(
      ctx.service.search('site:nowhere.invalid', LIMIT).total,
      0,
      'a site: alone lists its pages (none here)',
    );
    assert.throws(() => ctx.service.search('*** ^ :', LIMIT), BadQueryError);
  });

  test('a query of 2000+ characters is cut to 1000 and searched', () => {
    const r = ctx.service.search(`telescope ${'x'.repeat(2500)}`, LIMIT);
    assert.equal(r.query.length, 1000);
    assert.match(r.notice ?? '', /cut/);
    assert.equal(r.results[0]?.url, CORPUS.telescope.url, 'the OR fallback still finds the first word');
  });

  test('suggest completes the last word and offers matching titles', () => {
    const s = ctx.service.suggest('tele', 8);
    assert.equal(s.query, 'tele');
    assert.ok(
      s.suggestions.some((x) => x.kind === 'term' && x.text === 'telescope'),
      JSON.stringify(s),
    );
    assert.ok(
      s.suggestions.some(
        (x) => x.kind === 'title' && x.text === 'Choosing a telescope' && x.url === CORPUS.telescope.url,
      ),
    );
    const two = ctx.service.suggest('baking sour', 8);
    assert.ok(
      two.suggestions.some((x) => x.kind === 'term' && x.text === 'baking sourdough'),
      JSON.stringify(two),
    );
    const typo = ctx.service.suggest('photosinthesis', 8);
    assert.ok(
      typo.suggestions.some((x) => x.kind === 'title' && x.url === CORPUS.photosynthesis.url),
      JSON.stringify(typo),
    );
    assert.deepEqual(ctx.service.suggest('', 8).suggestions, []);
    assert.ok(ctx.service.suggest('t', 3).suggestions.length <= 3);
  });
});

describe('SearchService with very common words (bounded ranking)', () => {
  test('above rankAllMax matches, short-field matches lead and the rest come from the newest sample', () => {
    const env = tempDatabase();
    const pages = pageQueries(env.db);
    for (const p of Object.values(CORPUS)) pages.upsertPage(p);
    const service = new SearchService(env.db, { rankAllMax: 1, rankSample: 1 });
    try {
      service.refresh();
      const r = service.search('sourdough', LIMIT);
      assert.equal(r.total, 2);
      assert.deepEqual(urls(r), [CORPUS.sourdough.url, CORPUS.bagels.url]);
      const common = service.search('collection', { limit: 50, offset: 0 });
      assert.equal(common.total, Object.keys(CORPUS).length, 'the count is not sampled');
      // python's description says "collect" (same stem): a short-field match; then the newest body match
      assert.deepEqual(urls(common), [CORPUS.python.url, CORPUS.mushrooms.url], 'short fields, then a sample of 1');
    } finally {
      service.close();
      env.cleanup();
    }
  });
});

describe('SearchService freshness', () => {
  test('indexing is reported until the title index is built, while search already answers', async () => {
    const env = tempDatabase();
    const pages = pageQueries(env.db);
    env.db.transaction(() => {
      for (let i = 0; i < 60; i++)
        pages.upsertPage(makePage(`http://a.test/${i}`, { title: `Page number ${i}`, body: `common words ${i}` }));
    })();
    const service = new SearchService(env.db, { chunkRows: 10 });
    try {
      const early = service.search('common', LIMIT);
      assert.equal(early.indexing, true);
      assert.equal(early.total, 60, 'full-text results before the title index exists');
      service.start();
      await waitFor(() => service.ready, { timeoutMs: 5000 });
      assert.equal(service.search('common', LIMIT).indexing, false);
    } finally {
      service.close();
      env.cleanup();
    }
  });

  test('re-crawled pages show new text only; gone pages disappear; new pages appear on refresh', async () => {
    const ctx = await setup({ refreshIntervalMs: 60_000 });
    try {
      const { pages, service } = ctx;
      pages.upsertPage({
        ...CORPUS.python,
        title: 'Zygomorphic flowers',
        headings: [],
        description: 'Botany.',
        body: 'Orchid blossoms are zygomorphic.',
      });
      service.refresh();
      assert.deepEqual(urls(service.search('zygomorphic', LIMIT)), [CORPUS.python.url]);
      assert.equal(service.search('stderr', LIMIT).total, 0, 'old body is gone');
      assert.equal(service.search('"running programs"', LIMIT).total, 0, 'old title is gone from both indexes');
      assert.deepEqual(service.suggest('running progr', 8).suggestions, []);
      assert.equal(
        service.search('subprocess', LIMIT).results[0]?.title,
        'Zygomorphic flowers',
        'URL words still match',
      );
      assert.ok(
        service.suggest('zygomor', 8).suggestions.some((s) => s.kind === 'title' && s.url === CORPUS.python.url),
      );

      pages.markPageGone(CORPUS.origami.url, 404, Date.now());
      assert.equal(service.search('origami', LIMIT).total, 0, 'gone before the title index even heard of it');
      service.refresh();
      assert.equal(service.search('origam', LIMIT).total, 0);
      assert.deepEqual(
        service.suggest('origam', 8).suggestions.filter((s) => s.kind === 'title'),
        [],
      );

      const started = performance.now();
      pages.upsertPage(
        makePage('http://new.test/quokka', { title: 'Quokkas of Rottnest Island', body: 'A small marsupial.' }),
      );
      service.refresh();
      assert.deepEqual(urls(service.search('quokkas', LIMIT)), ['http://new.test/quokka']);
      assert.ok(
        service.suggest('quokk', 8).suggestions.some((s) => s.kind === 'title'),
        'the title index has it',
      );
      assert.ok(performance.now() - started < 1000);
    } finally {
      ctx.cleanup();
    }
  });

  test('without refresh(), the backstop timer picks up a stored page within a second', async () => {
    const ctx = await setup({ refreshIntervalMs: 100 });
    try {
      ctx.pages.upsertPage(
        makePage('http://new.test/axolotl', { title: 'Axolotl regeneration', body: 'Salamanders regrow limbs.' }),
      );
      // suggest reads only the title index, so this waits for the timer, not for FTS5 (always current)
      await waitFor(() => ctx.service.suggest('axolo', 8).suggestions.some((s) => s.kind === 'title'), {
        timeoutMs: 1000,
        message: 'title index caught up',
      });
    } finally {
      ctx.cleanup();
    }
  });
});

describe('what a page allows to be shown', () => {
  test('nosnippet: found, but no text of it in results (neither from FTS5 nor the title index); noarchive: found, stored text not offered', async () => {
    const ctx = await setup();
    try {
      const pages = [
        makePage('http://shown.test/wombat', {
          title: 'Wombat burrows',
          description: 'Wombats dig.',
          body: 'The wombat digs burrows with its claws.',
        }),
        makePage('http://quiet.test/wombat', {
          title: 'Wombat diet',
          description: 'Wombats graze.',
          body: 'The wombat grazes on grasses at night.',
          nosnippet: true,
        }),
        makePage('http://private.test/wombat', {
          title: 'Wombat cubes',
          body: 'The wombat leaves cube-shaped droppings.',
          noarchive: true,
        }),
      ];
      for (const p of pages) ctx.pages.upsertPage(p);
      ctx.service.refresh();
      for (const q of ['wombat', 'wombat dig', 'Wombat diet']) {
        const byUrl = new Map(ctx.service.search(q, LIMIT).results.map((r) => [r.url, r]));
        const quiet = byUrl.get('http://quiet.test/wombat');
        if (quiet) assert.deepEqual(quiet.snippet, [], `${q}: no snippet for a nosnippet page`);
        if (q === 'wombat') {
          assert.equal(byUrl.size, 3, 'all three are found');
          assert.ok(byUrl.get('http://shown.test/wombat')!.snippet.length > 0, 'a page that allows it has its snippet');
          assert.deepEqual([...byUrl.values()].map((r) => [r.url, r.stored]).sort(), [
            ['http://private.test/wombat', false],
            ['http://quiet.test/wombat', true],
            ['http://shown.test/wombat', true],
          ]);
        }
      }
      assert.ok(ctx.service.search('Wombat diet', LIMIT).results.some((r) => r.url === 'http://quiet.test/wombat'));
    } finally {
      ctx.cleanup();
    }
  });
});

describe('one result per content', () => {
  test('pages with the same title and text at several addresses appear once, under the best-ranked; pages go on after them', async () => {
    const ctx = await setup();
    try {
      const same = {
        title: 'Numbat habitat',
        body: 'The numbat lives in eucalyptus woodland.',
        contentHash: 'numbat-home',
      };
      ctx.pages.upsertPage(makePage('http://numbat.test/', same));
      ctx.pages.upsertPage(makePage('http://numbat.test/index.html', same));
      ctx.pages.upsertPage(makePage('https://numbat.test/?ref=feed', same));
      ctx.pages.upsertPage(
        makePage('http://numbat.test/diet', {
          title: 'What numbats eat',
          body: 'A numbat eats termites.',
          contentHash: 'numbat-diet',
        }),
      );
      ctx.service.refresh();
      const r = ctx.service.search('numbat', LIMIT);
      assert.deepEqual(
        urls(r).sort(),
        ['http://numbat.test/', 'http://numbat.test/diet'],
        'the copies fold into the shortest address',
      );
      assert.equal(r.total, 2, 'folded copies are not counted');
      const pages = [0, 1].map((offset) => urls(ctx.service.search('numbat', { limit: 1, offset })));
      assert.deepEqual(
        pages.flat().sort(),
        ['http://numbat.test/', 'http://numbat.test/diet'],
        'one page each, no copy on page 2',
      );
    } finally {
      ctx.cleanup();
    }
  });

  test('a page of results stays full even when more copies than the ranking window rank first', async () => {
    const ctx = await setup();
    try {
      for (let i = 0; i < 60; i++) {
        ctx.pages.upsertPage(
          makePage(`http://mirror.test/copy/${i}`, {
            title: 'Quoll quoll quoll',
            body: 'Quoll facts.',
            contentHash: 'quoll-copy',
          }),
        );
      }
      for (let i = 0; i < 10; i++) {
        ctx.pages.upsertPage(
          makePage(`http://other.test/page/${i}`, {
            title: `Marsupial notes ${i}`,
            body: `Note ${i} mentions a quoll once.`,
            contentHash: `note-${i}`,
          }),
        );
      }
      ctx.service.refresh();
      const r = ctx.service.search('quoll', LIMIT);
      assert.equal(r.results.length, 10, 'ten different pages');
      assert.equal(
        r.results.filter((x) => x.url.startsWith('http://mirror.test/')).length,
        1,
        'the 60 copies are one result',
      );
    } finally {
      ctx.cleanup();
    }
  });
});

describe('the search connection', () => {
  test('keeps a page cache of PAGE_CACHE_KIB, not the 16 MB default (each search at 1M pages re-read 6 MB with it)', () => {
    const env = tempDatabase();
    try {
      const service = new SearchService(env.db);
      assert.equal(env.db.pragma('cache_size', { simple: true }), -PAGE_CACHE_KIB);
      service.close();
    } finally {
      env.cleanup();
    }
  });
});
