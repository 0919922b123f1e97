/**
 * Google's robots.txt conformance tests (github.com/google/robotstxt, robots_test.cc), ported to
 * crawler/politeness/robots.ts. Each test is named after the Google test it ports. Where RFC 9309 and Google
 * disagree, the RFC wins and the assertion says so; Google-only behaviour the RFC does not ask for
 * (index.html as directory, 16 KiB line cut-off) is not ported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRobots } from './robots.ts';

/** Google's IsUserAgentAllowed: robots.txt of the URL's own origin, our crawler named `userAgent`. */
function isUserAgentAllowed(robotstxt: string | Uint8Array, userAgent: string, url: string): boolean {
  return parseRobots(new URL('/robots.txt', url).href, robotstxt, userAgent).isAllowed(url);
}

const allowed = (robotstxt: string | Uint8Array, ua: string, url: string) =>
  assert.equal(isUserAgentAllowed(robotstxt, ua, url), true, `expected ${url} allowed for ${ua}`);
const disallowed = (robotstxt: string | Uint8Array, ua: string, url: string) =>
  assert.equal(isUserAgentAllowed(robotstxt, ua, url), false, `expected ${url} disallowed for ${ua}`);

test('GoogleOnly_SystemTest', () => {
  const robotstxt = 'user-agent: FooBot\ndisallow: /\n';
  // Empty robots.txt: everything allowed.
  allowed('', 'FooBot', 'http://foo.bar/');
  // Empty user-agent to be matched: only `*` groups apply, and there are none.
  allowed(robotstxt, '', 'http://foo.bar/');
  allowed('', '', 'http://foo.bar/');
  disallowed(robotstxt, 'FooBot', 'http://foo.bar/');
  // Google: an empty URL is disallowed. Our API takes absolute URLs only and says so loudly.
  assert.throws(() => parseRobots('http://foo.bar/robots.txt', robotstxt, 'FooBot').isAllowed(''), /^Error: robots: /);
});

test('ID_LineSyntax_Line', () => {
  const url = 'http://foo.bar/x/y';
  disallowed('user-agent: FooBot\ndisallow: /\n', 'FooBot', url);
  allowed('foo: FooBot\nbar: /\n', 'FooBot', url);
  // Missing colon: accepted, as Google does (not required by RFC 9309; the polite reading).
  disallowed('user-agent FooBot\ndisallow /\n', 'FooBot', url);
});

test('ID_LineSyntax_Groups', () => {
  const robotstxt =
    'allow: /foo/bar/\n' +
    '\n' +
    'user-agent: FooBot\n' +
    'disallow: /\n' +
    'allow: /x/\n' +
    'user-agent: BarBot\n' +
    'disallow: /\n' +
    'allow: /y/\n' +
    '\n' +
    '\n' +
    'allow: /w/\n' +
    'user-agent: BazBot\n' +
    '\n' +
    'user-agent: FooBot\n' +
    'allow: /z/\n' +
    'disallow: /\n';
  const urlW = 'http://foo.bar/w/a';
  const urlX = 'http://foo.bar/x/b';
  const urlY = 'http://foo.bar/y/c';
  const urlZ = 'http://foo.bar/z/d';
  const urlFoo = 'http://foo.bar/foo/bar/';
  allowed(robotstxt, 'FooBot', urlX);
  allowed(robotstxt, 'FooBot', urlZ);
  disallowed(robotstxt, 'FooBot', urlY);
  allowed(robotstxt, 'BarBot', urlY);
  allowed(robotstxt, 'BarBot', urlW);
  disallowed(robotstxt, 'BarBot', urlZ);
  allowed(robotstxt, 'BazBot', urlZ);
  // Lines with rules outside groups are ignored.
  disallowed(robotstxt, 'FooBot', urlFoo);
  disallowed(robotstxt, 'BarBot', urlFoo);
  disallowed(robotstxt, 'BazBot', urlFoo);
});

test('ID_REPLineNamesCaseInsensitive', () => {
  const files = [
    'USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n',
    'user-agent: FooBot\nallow: /x/\ndisallow: /\n',
    'uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n',
  ];
  for (const robotstxt of files) {
    allowed(robotstxt, 'FooBot', 'http://foo.bar/x/y');
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/a/b');
  }
});

test('ID_UserAgentValueCaseInsensitive', () => {
  const files = [
    'User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n',
    'User-Agent: foo bar\nAllow: /x/\nDisallow: /\n',
    'User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n',
  ];
  for (const robotstxt of files) {
    for (const ua of ['Foo', 'foo']) {
      allowed(robotstxt, ua, 'http://foo.bar/x/y');
      disallowed(robotstxt, ua, 'http://foo.bar/a/b');
    }
  }
});

test('GoogleOnly_AcceptUserAgentUpToFirstSpace', () => {
  const robotstxt = 'User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n';
  allowed(robotstxt, 'Foo', 'http://foo.bar/x/y');
  // Google's second assertion (a crawler *named* "Foo Bar" does not match) has no counterpart: we
  // always match by the product token of our User-Agent, which for "Foo Bar" is "Foo".
});

test('ID_GlobalGroups_Secondary', () => {
  const empty = '';
  const global = 'user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n';
  const onlySpecific =
    'user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n';
  const url = 'http://foo.bar/x/y';
  allowed(empty, 'FooBot', url);
  disallowed(global, 'FooBot', url);
  allowed(global, 'BarBot', url);
  allowed(onlySpecific, 'QuxBot', url);
});

test('ID_AllowDisallow_Value_CaseSensitive', () => {
  const url = 'http://foo.bar/x/y';
  disallowed('user-agent: FooBot\ndisallow: /x/\n', 'FooBot', url);
  allowed('user-agent: FooBot\ndisallow: /X/\n', 'FooBot', url);
});

test('ID_LongestMatch', () => {
  const url = 'http://foo.bar/x/page.html';
  disallowed('user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n', 'FooBot', url);
  {
    const robotstxt = 'user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n';
    allowed(robotstxt, 'FooBot', url);
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/x/');
  }
  // Equivalent disallow and allow patterns: allow is used.
  allowed('user-agent: FooBot\ndisallow: \nallow: \n', 'FooBot', url);
  allowed('user-agent: FooBot\ndisallow: /\nallow: /\n', 'FooBot', url);
  {
    const robotstxt = 'user-agent: FooBot\ndisallow: /x\nallow: /x/\n';
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/x');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/x/');
  }
  allowed('user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n', 'FooBot', url);
  {
    const robotstxt = 'user-agent: FooBot\nallow: /page\ndisallow: /*.html\n';
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/page.html');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/page');
  }
  {
    const robotstxt = 'user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n';
    allowed(robotstxt, 'FooBot', url);
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/x/y.html');
  }
  {
    // The most specific group for FooBot implicitly allows /x/page.
    const robotstxt = 'User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n';
    allowed(robotstxt, 'FooBot', 'http://foo.bar/x/page');
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/y/page');
  }
});

test('ID_Encoding', () => {
  {
    const robotstxt = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n';
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par');
  }
  {
    // 3-byte character in the rule: /foo/bar/ツ -> /foo/bar/%E3%83%84
    const robotstxt = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n';
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/%E3%83%84');
    // Google: disallowed, because its caller must encode the URL first. RFC 9309 §2.2.2 says both
    // sides are percent-encoded before comparison, and a URL string with a raw ツ is that same URL.
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/ツ');
  }
  {
    const robotstxt = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n';
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/%E3%83%84');
    // Google: disallowed (see above); RFC 9309: allowed.
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/ツ');
  }
  {
    // Percent-encoded unreserved ASCII. Google: /foo/bar/baz disallowed ("should not be relied
    // on"). RFC 9309 §2.2.2: such octets MUST be unencoded before comparison, so it is allowed.
    const robotstxt = 'User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n';
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/baz');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/%62%61%7A');
  }
});

test('ID_SpecialCharacters', () => {
  {
    const robotstxt = 'User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n';
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/quz');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/quz');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo//quz');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bax/quz');
  }
  {
    const robotstxt = 'User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n';
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/qux');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/');
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar/baz');
  }
  {
    const robotstxt = 'User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n';
    allowed(robotstxt, 'FooBot', 'http://foo.bar/foo/bar');
    disallowed(robotstxt, 'FooBot', 'http://foo.bar/foo/quz');
  }
});

test('GoogleOnly_DocumentationChecks', () => {
  const check = (rule: string, yes: string[], no: string[]) => {
    const robotstxt = `user-agent: FooBot\ndisallow: /\nallow: ${rule}\n`;
    for (const path of yes) allowed(robotstxt, 'FooBot', `http://foo.bar${path}`);
    for (const path of no) disallowed(robotstxt, 'FooBot', `http://foo.bar${path}`);
  };
  const fishYes = [
    '/fish',
    '/fish.html',
    '/fish/salmon.html',
    '/fishheads',
    '/fishheads/yummy.html',
    '/fish.html?id=anything',
  ];
  check('/fish', fishYes, ['/bar', '/Fish.asp', '/catfish', '/?id=fish']);
  // "/fish*" equals "/fish".
  check('/fish*', fishYes, ['/bar', '/Fish.bar', '/catfish', '/?id=fish']);
  // "/fish/" does not equal "/fish".
  check(
    '/fish/',
    ['/fish/', '/fish/salmon', '/fish/?salmon', '/fish/salmon.html', '/fish/?id=anything'],
    ['/bar', '/fish', '/fish.html', '/Fish/Salmon.html'],
  );
  check(
    '/*.php',
    [
      '/filename.php',
      '/folder/filename.php',
      '/folder/filename.php?parameters',
      '//folder/any.php.file.html',
      '/filename.php/',
      '/index?f=filename.php/',
    ],
    ['/bar', '/php/', '/index?php', '/windows.PHP'],
  );
  check(
    '/*.php$',
    ['/filename.php', '/folder/filename.php'],
    [
      '/bar',
      '/filename.php?parameters',
      '/filename.php/',
      '/filename.php5',
      '/php/',
      '/filename?php',
      '/aaaphpaaa',
      '//windows.PHP',
    ],
  );
  check('/fish*.php', ['/fish.php', '/fishheads/catfish.php?parameters'], ['/bar', '/Fish.PHP']);
  // Section "Order of precedence for group-member records".
  allowed('user-agent: FooBot\nallow: /p\ndisallow: /\n', 'FooBot', 'http://example.com/page');
  allowed('user-agent: FooBot\nallow: /folder\ndisallow: /folder\n', 'FooBot', 'http://example.com/folder/page');
  disallowed('user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n', 'FooBot', 'http://example.com/page.htm');
  {
    const robotstxt = 'user-agent: FooBot\nallow: /$\ndisallow: /\n';
    allowed(robotstxt, 'FooBot', 'http://example.com/');
    disallowed(robotstxt, 'FooBot', 'http://example.com/page.html');
  }
});

test('ID_LinesNumbersAreCountedCorrectly', () => {
  // Google counts directives and line numbers; we check the observable effect: every kind of line
  // end (LF, CRLF, CR, none at the end, mixed) splits the same six lines.
  const files = {
    unix: 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n',
    dos: 'User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n',
    mac: 'User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r',
    noFinalNewline: 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /',
    mixed: 'User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /',
  };
  for (const [name, robotstxt] of Object.entries(files)) {
    assert.equal(isUserAgentAllowed(robotstxt, 'foo', 'http://foo.bar/other'), true, name);
    assert.equal(isUserAgentAllowed(robotstxt, 'bar', 'http://foo.bar/other'), false, name);
  }
});

test('ID_UTF8ByteOrderMarkIsSkipped', () => {
  // Google counts the directives it saw; we use a Disallow so that seeing it is observable.
  const bytes = (...parts: (number[] | string)[]) =>
    Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...new TextEncoder().encode(p)] : p)));
  const rest = 'User-Agent: foo\nDisallow: /AnyValue\n';
  const url = 'http://foo.bar/AnyValue';
  disallowed(bytes([0xef, 0xbb, 0xbf], rest), 'foo', url);
  // Partial byte order marks are allowed as well.
  disallowed(bytes([0xef, 0xbb], rest), 'foo', url);
  disallowed(bytes([0xef], rest), 'foo', url);
  // A text body (already decoded) with its BOM.
  disallowed('\uFEFF' + rest, 'foo', url);
  // A broken BOM makes the first line garbage: the Disallow then stands outside any group.
  allowed(bytes([0xef, 0x11, 0xbf], rest), 'foo', url);
  // A BOM is only skipped at the start of the file: elsewhere it spoils its line.
  allowed(bytes('User-Agent: foo\n', [0xef, 0xbb, 0xbf], 'Disallow: /AnyValue\n'), 'foo', url);
});

test('ID_NonStandardLineExample_Sitemap', () => {
  const sitemapLoc = 'http://foo.bar/sitemap.xml';
  const group = 'User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n';
  const sitemapsOf = (robotstxt: string) => parseRobots('http://foo.bar/robots.txt', robotstxt, 'foo').sitemaps;
  assert.deepEqual(sitemapsOf(`${group}Sitemap: ${sitemapLoc}\n`), [sitemapLoc]);
  // A sitemap line may appear anywhere in the file.
  assert.deepEqual(sitemapsOf(`Sitemap: ${sitemapLoc}\n${group}`), [sitemapLoc]);
});

test('TestGetPathParamsQuery', () => {
  // Google's helper that takes path, params and query from a URL (fragment dropped). Ported for
  // the absolute URLs our API accepts, observed through `$`-anchored rules.
  const cases: [string, string][] = [
    ['http://www.example.com', '/'],
    ['http://www.example.com/', '/'],
    ['http://www.example.com/a', '/a'],
    ['http://www.example.com/a/', '/a/'],
    ['http://www.example.com/a/b?c=http://d.e/', '/a/b?c=http://d.e/'],
    ['http://www.example.com/a/b?c=d&e=f#fragment', '/a/b?c=d&e=f'],
    ['http://example.com/a;b#c', '/a;b'],
  ];
  for (const [url, path] of cases) {
    disallowed(`user-agent: FooBot\ndisallow: ${path}$\n`, 'FooBot', url);
    allowed(`user-agent: FooBot\ndisallow: ${path}x$\n`, 'FooBot', url);
  }
});

test('TestMaybeEscapePattern', () => {
  // Google's pattern escaping: non-ASCII to UTF-8 %XX, %xx to upper case; plain patterns unchanged.
  disallowed('user-agent: FooBot\ndisallow: /a/b/c\n', 'FooBot', 'http://foo.bar/a/b/c');
  disallowed('user-agent: FooBot\ndisallow: /á$\n', 'FooBot', 'http://foo.bar/%C3%A1');
  disallowed('user-agent: FooBot\ndisallow: /%aa$\n', 'FooBot', 'http://foo.bar/%AA');
  allowed('user-agent: FooBot\ndisallow: /%aa$\n', 'FooBot', 'http://foo.bar/%AB');
});
