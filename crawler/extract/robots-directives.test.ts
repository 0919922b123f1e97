import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/seeded-random.ts';
import { parseRobotsDirectives } from './robots-directives.ts';

const TOKEN = 'LanternBot';
type Input = { metaRobots?: string[]; metaForToken?: string[]; headerValues?: string[] };
const parseAll = (input: Input) =>
  parseRobotsDirectives({ metaRobots: [], metaForToken: [], headerValues: [], ...input }, TOKEN);
/** Indexing and following only (the display directives have tests of their own below). */
const parse = (input: Input) => {
  const { noindex, nofollow } = parseAll(input);
  return { noindex, nofollow };
};

describe('parseRobotsDirectives: meta robots', () => {
  test('nothing means index and follow', () => {
    assert.deepEqual(parse({}), { noindex: false, nofollow: false });
  });

  test('noindex', () => {
    assert.deepEqual(parse({ metaRobots: ['noindex'] }), { noindex: true, nofollow: false });
  });

  test('NOINDEX, NOFOLLOW in upper case with spaces', () => {
    assert.deepEqual(parse({ metaRobots: [' NOINDEX , NOFOLLOW '] }), { noindex: true, nofollow: true });
  });

  test('none means noindex and nofollow', () => {
    assert.deepEqual(parse({ metaRobots: ['None'] }), { noindex: true, nofollow: true });
  });

  test('all, index, follow and unknown words change nothing', () => {
    assert.deepEqual(parse({ metaRobots: ['all', 'index, follow', 'noimageindex, max-snippet:20, whatever'] }), {
      noindex: false,
      nofollow: false,
    });
  });

  test('directives from several tags combine', () => {
    assert.deepEqual(parse({ metaRobots: ['index, nofollow', 'noindex'] }), { noindex: true, nofollow: true });
  });

  test('space-separated words are honoured too', () => {
    assert.deepEqual(parse({ metaRobots: ['noindex nofollow'] }), { noindex: true, nofollow: true });
  });

  test('a word containing a directive is not that directive', () => {
    assert.deepEqual(parse({ metaRobots: ['noindexing, nofollowers'] }), { noindex: false, nofollow: false });
  });

  test('token-specific meta (<meta name="LanternBot" content="noindex">) applies', () => {
    assert.deepEqual(parse({ metaForToken: ['noindex'] }), { noindex: true, nofollow: false });
  });
});

describe('parseRobotsDirectives: X-Robots-Tag', () => {
  test('an unprefixed value applies to everyone', () => {
    assert.deepEqual(parse({ headerValues: ['noindex, nofollow'] }), { noindex: true, nofollow: true });
  });

  test('otherbot: noindex is ignored', () => {
    assert.deepEqual(parse({ headerValues: ['otherbot: noindex'] }), { noindex: false, nofollow: false });
  });

  test('lanternbot: nofollow is applied (token matched case-insensitively)', () => {
    assert.deepEqual(parse({ headerValues: ['lanternbot: nofollow'] }), { noindex: false, nofollow: true });
    assert.deepEqual(parse({ headerValues: ['LANTERNBOT:noindex'] }), { noindex: true, nofollow: false });
  });

  test('words after a bot prefix belong to that bot until the next prefix', () => {
    assert.deepEqual(parse({ headerValues: ['otherbot: noindex, nofollow'] }), { noindex: false, nofollow: false });
    assert.deepEqual(parse({ headerValues: ['otherbot: noindex, lanternbot: nofollow'] }), {
      noindex: false,
      nofollow: true,
    });
    assert.deepEqual(parse({ headerValues: ['lanternbot: none, googlebot: all'] }), { noindex: true, nofollow: true });
  });

  test('each header line starts unprefixed again', () => {
    assert.deepEqual(parse({ headerValues: ['otherbot: nofollow', 'noindex'] }), { noindex: true, nofollow: false });
  });

  test('valued directives are not mistaken for bot names', () => {
    assert.deepEqual(parse({ headerValues: ['unavailable_after: 25 Jun 2010 15:00:00 PST, noindex'] }), {
      noindex: true,
      nofollow: false,
    });
    assert.deepEqual(parse({ headerValues: ['max-snippet: 20, nofollow'] }), { noindex: false, nofollow: true });
  });

  test('meta and header sources combine', () => {
    assert.deepEqual(parse({ metaRobots: ['noindex'], headerValues: ['lanternbot: nofollow'] }), {
      noindex: true,
      nofollow: true,
    });
  });
});

describe('parseRobotsDirectives: what may be shown of a searchable page', () => {
  test("noarchive (and Bing's nocache) hides the stored copy; nosnippet hides the text in results; neither stops indexing", () => {
    assert.deepEqual(parseAll({}), { noindex: false, nofollow: false, noarchive: false, nosnippet: false });
    assert.deepEqual(parseAll({ metaRobots: ['NoArchive'] }), {
      noindex: false,
      nofollow: false,
      noarchive: true,
      nosnippet: false,
    });
    assert.deepEqual(parseAll({ metaRobots: ['nocache'] }), {
      noindex: false,
      nofollow: false,
      noarchive: true,
      nosnippet: false,
    });
    assert.deepEqual(parseAll({ metaForToken: ['nosnippet'] }), {
      noindex: false,
      nofollow: false,
      noarchive: false,
      nosnippet: true,
    });
    assert.deepEqual(parseAll({ headerValues: ['noarchive, nosnippet'] }), {
      noindex: false,
      nofollow: false,
      noarchive: true,
      nosnippet: true,
    });
  });

  test('max-snippet:0 is nosnippet; another length is not', () => {
    for (const input of [
      { metaRobots: ['max-snippet:0'] },
      { metaRobots: ['index, MAX-SNIPPET : 0'] },
      { headerValues: ['max-snippet: 0, noarchive'] },
    ]) {
      assert.equal(parseAll(input).nosnippet, true, JSON.stringify(input));
    }
    for (const input of [
      { metaRobots: ['max-snippet:20'] },
      { metaRobots: ['max-snippet:0.5'] },
      { headerValues: ['max-snippet: 05'] },
      { headerValues: ['otherbot: max-snippet:0'] },
    ]) {
      assert.equal(parseAll(input).nosnippet, false, JSON.stringify(input));
    }
  });

  test("none does not imply them, and another bot's header words do not apply to us", () => {
    assert.deepEqual(parseAll({ metaRobots: ['none'] }), {
      noindex: true,
      nofollow: true,
      noarchive: false,
      nosnippet: false,
    });
    assert.deepEqual(parseAll({ headerValues: ['otherbot: noarchive, nosnippet'] }), {
      noindex: false,
      nofollow: false,
      noarchive: false,
      nosnippet: false,
    });
    assert.deepEqual(parseAll({ headerValues: ['otherbot: noindex, lanternbot: nosnippet'] }), {
      noindex: false,
      nofollow: false,
      noarchive: false,
      nosnippet: true,
    });
  });
});

describe('parseRobotsDirectives: scans give what the regexes gave', () => {
  // The word split and max-snippet regex it used before: the reference, on short random values.
  const OLD_NO_SNIPPET = /(?:^|[\s,])max-snippet\s*:\s*0+(?![\d.])/i;
  const oldWords = (text: string) => {
    const r = { noindex: false, nofollow: false, noarchive: false, nosnippet: OLD_NO_SNIPPET.test(text) };
    for (const raw of text.split(/[\s,]+/)) {
      const w = raw.toLowerCase();
      if (w === 'noindex' || w === 'none') r.noindex = true;
      if (w === 'nofollow' || w === 'none') r.nofollow = true;
      if (w === 'noarchive' || w === 'nocache') r.noarchive = true;
      if (w === 'nosnippet') r.nosnippet = true;
    }
    return r;
  };
  const PIECES = [
    'max-snippet',
    'MAX-SNIPPET',
    ':',
    ' ',
    ',',
    '0',
    '00',
    '1',
    '.',
    'noindex',
    'None',
    'nocache',
    'nosnippet',
    '\t',
  ];

  test('on 20,000 random meta robots values', () => {
    const next = seededRandom(26);
    for (let i = 0; i < 20_000; i++) {
      const value = Array.from(
        { length: Math.floor(next() * 8) },
        () => PIECES[Math.floor(next() * PIECES.length)],
      ).join('');
      assert.deepEqual(
        parseRobotsDirectives({ metaRobots: [value], metaForToken: [], headerValues: [] }, 'lanternbot'),
        oldWords(value),
        JSON.stringify(value),
      );
    }
  });
});
