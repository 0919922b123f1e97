import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CRAWL_LIMITS, stripSessionIds, trapReason } from './url-traps.ts';
import { checkUrl } from './url.ts';

const H = 'http://example.org';

describe('trapReason', () => {
  test('ordinary URLs are no trap', () => {
    for (const path of [
      '/',
      '/a/b/c',
      '/2024/01/01/',
      '/a/a/a/',
      '/docs/v1/docs/v1/docs/v1/',
      '/x?q=1&page=2',
      `/${'s/'.repeat(0)}`,
      '/a//b',
    ]) {
      assert.equal(trapReason(H + path), null, path);
    }
    const deep = `/${Array.from({ length: CRAWL_LIMITS.maxPathSegments }, (_, i) => `d${i}`).join('/')}/`;
    assert.equal(trapReason(H + deep), null, 'exactly maxPathSegments segments');
    assert.equal(trapReason(`${H}/s?${'q'.repeat(CRAWL_LIMITS.maxQueryLength)}`), null, 'exactly maxQueryLength');
  });

  test('one segment back to back more than maxRepeats times', () => {
    assert.equal(trapReason(`${H}/a/a/a/a/`), 'url-traps: the path repeats "a/" 4 times in a row (more than 3)');
    assert.match(trapReason(`${H}/x/a/a/a/a/a/y`) ?? '', /repeats "a\/" 5 times/);
  });

  test('a run of two or three segments back to back more than maxRepeats times', () => {
    assert.match(trapReason(`${H}/x/y/x/y/x/y/x/y`) ?? '', /repeats "x\/y\/" 4 times/);
    assert.match(trapReason(`${H}/p/a/b/c/a/b/c/a/b/c/a/b/c/`) ?? '', /repeats "a\/b\/c\/" 4 times/);
  });

  test('too many path segments', () => {
    const path = `/${Array.from({ length: CRAWL_LIMITS.maxPathSegments + 1 }, (_, i) => `d${i}`).join('/')}`;
    assert.equal(
      trapReason(H + path),
      `url-traps: the path has ${CRAWL_LIMITS.maxPathSegments + 1} segments (more than ${CRAWL_LIMITS.maxPathSegments})`,
    );
  });

  test('an overlong query', () => {
    const q = 'x'.repeat(CRAWL_LIMITS.maxQueryLength + 1);
    assert.equal(
      trapReason(`${H}/search?${q}`),
      `url-traps: the query is ${q.length} characters long (more than ${CRAWL_LIMITS.maxQueryLength})`,
    );
  });

  test('smaller limits can be passed', () => {
    assert.match(
      trapReason(`${H}/a/a/`, { maxPathSegments: 20, maxRepeats: 1, maxQueryLength: 10 }) ?? '',
      /repeats "a\/" 2 times/,
    );
    assert.match(
      trapReason(`${H}/a/b/c`, { maxPathSegments: 2, maxRepeats: 3, maxQueryLength: 10 }) ?? '',
      /3 segments/,
    );
  });

  test('a string that is not a URL is refused, not thrown', () => {
    assert.match(trapReason('not a url') ?? '', /^url-traps: /);
  });
});

describe('stripSessionIds (through checkUrl, as every seed, link and redirect is normalized)', () => {
  const norm = (u: string) => {
    const r = checkUrl(u, { allowPrivate: false });
    assert.ok(r.ok, r.ok ? '' : r.message);
    return r.url;
  };
  const cases: Array<[string, string]> = [
    [`${H}/p?PHPSESSID=abc123&page=2`, `${H}/p?page=2`],
    [`${H}/p?page=2&jsessionid=XYZ`, `${H}/p?page=2`],
    [`${H}/p;jsessionid=0A1B2C3D4E?x=1`, `${H}/p?x=1`],
    [`${H}/cart;JSESSIONID=abc/item`, `${H}/cart/item`],
    [`${H}/p?sid=0123456789abcdef0123456789abcdef`, `${H}/p`],
    [`${H}/p?b=2&sid=0123456789abcdef&a=1`, `${H}/p?b=2&a=1`],
    [`${H}/p?ASPSESSIONIDQQGGQGPG=KJHGFDSA&x=1`, `${H}/p?x=1`],
    [`${H}/p?CFID=1234&CFTOKEN=5678&q=a`, `${H}/p?q=a`],
    [`${H}/?sessionid=`, `${H}/`],
  ];
  for (const [input, expected] of cases) {
    test(`${input} → ${expected}`, () => assert.equal(norm(input), expected));
  }

  test('short sid values and look-alike names are kept (sid=42 may be a story id)', () => {
    for (const u of [
      `${H}/story?sid=42`,
      `${H}/p?side=0123456789abcdef0123`,
      `${H}/p?mysessionid=1`,
      `${H}/p?x=jsessionid`,
    ]) {
      assert.equal(norm(u), u);
    }
  });

  test('is idempotent and leaves a URL without session IDs untouched', () => {
    const once = new URL(`${H}/p?q=%20a&PHPSESSID=1&z`);
    stripSessionIds(once);
    assert.equal(once.href, `${H}/p?q=%20a&z`);
    const twice = new URL(once.href);
    stripSessionIds(twice);
    assert.equal(twice.href, once.href);
  });
});
