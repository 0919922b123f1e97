import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  allowAllRules,
  disallowAllRules,
  parseRobots,
  rulesLater,
  compileRobots,
  robotsRules,
  productToken,
  robotsOutcomeForStatus,
  ROBOTS_CACHE_MS,
  ROBOTS_MAX_BYTES,
  ROBOTS_MAX_CRAWL_DELAY_MS,
  ROBOTS_MAX_REDIRECTS,
  RobotsCostError,
} from './robots.ts';

const UA = 'LanternBot/0.1.0 (+personal search engine)';
const ROBOTS = 'http://example.com/robots.txt';

/** Rules of `body` for our crawler on example.com. */
const rules = (body: string | Uint8Array) => parseRobots(ROBOTS, body, UA);
const allowedPath = (body: string | Uint8Array, path: string) => rules(body).isAllowed(`http://example.com${path}`);

describe('productToken', () => {
  test('is the text before the first slash', () => {
    assert.equal(productToken(UA), 'LanternBot');
    assert.equal(productToken('FooBot'), 'FooBot');
    assert.equal(productToken('Foo_Bar-2/1.0'), 'Foo_Bar-2');
  });
  test('keeps only the leading run of token characters', () => {
    assert.equal(productToken('  Foo Bar/1.0'), 'Foo');
    assert.equal(productToken('Foobot*'), 'Foobot');
    assert.equal(productToken(''), '');
    assert.equal(productToken('ツ/1.0'), '');
  });
});

describe('parseRobots: groups', () => {
  test('matches our product token case-insensitively and ignores * then', () => {
    const body = 'User-agent: *\nDisallow: /\n\nUser-agent: lanternBOT\nDisallow: /private\n';
    assert.equal(allowedPath(body, '/private/x'), false);
    assert.equal(allowedPath(body, '/public'), true);
  });

  test('falls back to * groups, and a name with digits is another robot', () => {
    const body = 'User-agent: LanternBot2\nDisallow: /\n\nUser-agent: *\nDisallow: /star\n';
    assert.equal(allowedPath(body, '/star'), false);
    assert.equal(allowedPath(body, '/other'), true);
  });

  test('a Sitemap line between user-agent lines does not end the group (robots-parser would)', () => {
    const body = 'User-agent: LanternBot\nSitemap: http://example.com/s.xml\nUser-agent: OtherBot\nDisallow: /\n';
    assert.equal(allowedPath(body, '/x'), false);
    assert.deepEqual(rules(body).sitemaps, ['http://example.com/s.xml']);
  });

  test('an unknown line between user-agent lines does not end the group (robots-parser would)', () => {
    const body = 'User-agent: LanternBot\nRequest-rate: 1/5\nHost: example.com\nUser-agent: OtherBot\nDisallow: /\n';
    assert.equal(allowedPath(body, '/x'), false);
  });

  test('groups for the same agent are merged, wherever they stand', () => {
    const body =
      'User-agent: lanternbot\nDisallow: /a\n\nUser-agent: *\nDisallow: /\n\nUser-agent: LANTERNBOT\nDisallow: /b\n';
    assert.equal(allowedPath(body, '/a'), false);
    assert.equal(allowedPath(body, '/b'), false);
    assert.equal(allowedPath(body, '/c'), true);
  });

  test('our group without rules still shadows *', () => {
    assert.equal(allowedPath('User-agent: *\nDisallow: /\n\nUser-agent: LanternBot\n', '/x'), true);
    assert.equal(allowedPath('User-agent: LanternBot\nUser-agent: *\nDisallow: /\n', '/x'), false);
  });

  test('"* comment" is global, "*bot" and an empty agent name nothing', () => {
    assert.equal(allowedPath('User-agent: * everyone\nDisallow: /\n', '/x'), false);
    assert.equal(allowedPath('User-agent: *bot\nDisallow: /\n', '/x'), true);
    assert.equal(allowedPath('User-agent:\nDisallow: /\n', '/x'), true);
    // An empty name after rules still starts a new group, so the Allow is not ours.
    const body = 'User-agent: LanternBot\nDisallow: /\nUser-agent:\nAllow: /x\n';
    assert.equal(allowedPath(body, '/x'), false);
  });

  test('BOM, CRLF, odd key case, whitespace and comments', () => {
    const body =
      '\uFEFF# our rules\r\n  USER-AGENT :\tLanternBot  # us\r\n\tdisallow\t:\t/x # not /\r\nALLOW: /x/ok\r\n';
    assert.equal(allowedPath(body, '/x/no'), false);
    assert.equal(allowedPath(body, '/x/ok'), true);
    assert.equal(allowedPath(body, '/y'), true);
  });

  test('/robots.txt is always allowed', () => {
    const body = 'User-agent: *\nDisallow: /\nDisallow: /robots.txt\n';
    assert.equal(allowedPath(body, '/robots.txt'), true);
    assert.equal(allowedPath(body, '/robots.txt?x=1'), true);
    assert.equal(allowedPath(body, '/robots.txt2'), false);
  });
});

describe('parseRobots: paths', () => {
  test('characters WHATWG URL and encodeURI treat differently still match', () => {
    assert.equal(allowedPath('User-agent: *\nDisallow: /a|b\n', '/a|b'), false);
    assert.equal(allowedPath('User-agent: *\nDisallow: /[x]^\n', '/[x]^'), false);
    assert.equal(allowedPath("User-agent: *\nDisallow: /q?a='b'\n", "/q?a='b'"), false);
    assert.equal(allowedPath('User-agent: *\nDisallow: /a b\n', '/a%20b'), false);
    assert.equal(allowedPath('User-agent: *\nDisallow: /a%\n', '/a%'), false);
  });

  test('%XX of unreserved characters equals the character, both ways', () => {
    assert.equal(allowedPath('User-agent: *\nDisallow: /%7Euser\n', '/~user/x'), false);
    assert.equal(allowedPath('User-agent: *\nDisallow: /~user\n', '/%7euser/x'), false);
  });

  test('%XX of reserved characters does not equal the character', () => {
    assert.equal(allowedPath('User-agent: *\nDisallow: /a%2Fb\n', '/a/b'), true);
    assert.equal(allowedPath('User-agent: *\nDisallow: /a%2Fb\n', '/a%2fb'), false);
  });
});

describe('parseRobots: origin', () => {
  test('takes same-origin URLs, ports compared as WHATWG URL does', () => {
    const body = 'User-agent: *\nDisallow: /a\n';
    const local = parseRobots('http://127.0.0.2:41234/robots.txt', body, UA);
    assert.equal(local.isAllowed('http://127.0.0.2:41234/a'), false);
    assert.equal(local.isAllowed('http://127.0.0.2:41234/b'), true);
    assert.equal(parseRobots('http://Example.com:80/robots.txt', body, UA).isAllowed('http://example.COM/a'), false);
    assert.equal(parseRobots('https://example.com/robots.txt', body, UA).isAllowed('https://example.com:443/a'), false);
  });

  test('refuses URLs of another origin and invalid URLs', () => {
    const r = parseRobots('http://127.0.0.2:41234/robots.txt', 'User-agent: *\nDisallow: /a\n', UA);
    assert.throws(
      () => r.isAllowed('http://127.0.0.2:41235/a'),
      /^Error: robots: .*is not on http:\/\/127\.0\.0\.2:41234/,
    );
    assert.throws(() => r.isAllowed('https://127.0.0.2:41234/a'), /^Error: robots: /);
    assert.throws(() => r.isAllowed('http://127.0.0.3:41234/a'), /^Error: robots: /);
    assert.throws(() => r.isAllowed('/a'), /^Error: robots: URL is not a valid URL/);
    assert.throws(
      () => parseRobots('ftp://example.com/robots.txt', '', UA),
      /^Error: robots: robots URL is not http\(s\)/,
    );
  });
});

describe('parseRobots: size limit', () => {
  /** A body whose `line` starts `offset` bytes before the ROBOTS_MAX_BYTES boundary. */
  const straddling = (line: string, offset: number) => {
    const head = 'User-agent: *\nDisallow: /early\n';
    const pad = '#'.repeat(ROBOTS_MAX_BYTES - Buffer.byteLength(head) - offset - 1);
    return `${head}${pad}\n${line}\n`;
  };

  test('a line crossing the limit is dropped, not cut into a shorter rule', () => {
    // Cut after "Disallow: /" the rule would forbid everything.
    const body = straddling('Disallow: /private-area', 'Disallow: /'.length);
    assert.equal(Buffer.byteLength(body) > ROBOTS_MAX_BYTES, true);
    assert.equal(allowedPath(body, '/public'), true);
    assert.equal(allowedPath(body, '/private-area'), true);
    assert.equal(allowedPath(body, '/early'), false);
  });

  test('a line ending exactly at the limit is kept, anything after it ignored', () => {
    const line = 'Disallow: /last';
    const body = straddling(line, line.length + 1) + 'Disallow: /beyond\n';
    assert.equal(allowedPath(body, '/last'), false);
    assert.equal(allowedPath(body, '/beyond'), true);
    // The same as bytes.
    assert.equal(allowedPath(new TextEncoder().encode(body), '/last'), false);
    assert.equal(allowedPath(new TextEncoder().encode(body), '/beyond'), true);
  });

  test('the limit counts UTF-8 bytes, not characters', () => {
    // 'é' is two bytes: the text has fewer characters than the limit but more bytes.
    const body = `User-agent: *\nDisallow: /early\n#${'é'.repeat(260_000)}\nDisallow: /late\n`;
    assert.ok(body.length < ROBOTS_MAX_BYTES && Buffer.byteLength(body) > ROBOTS_MAX_BYTES);
    assert.equal(allowedPath(body, '/late'), true);
    assert.equal(allowedPath(body, '/early'), false);
  });

  test('a body at the limit with no final line end is read whole', () => {
    const head = 'User-agent: *\n';
    const last = 'Disallow: /tail';
    const body = `${head}${'#'.repeat(ROBOTS_MAX_BYTES - head.length - last.length - 1)}\n${last}`;
    assert.equal(Buffer.byteLength(body), ROBOTS_MAX_BYTES);
    assert.equal(allowedPath(body, '/tail'), false);
  });
});

describe('parseRobots: files built to be costly', () => {
  const longPath = (head: string) => `${head}${'a'.repeat(2040 - head.length)}`;

  test('499,000 stars after /a: one rule, obeyed', () => {
    const r = rules(`User-agent: *\nDisallow: /a${'*'.repeat(499_000)}\nAllow: /a/open\n`);
    assert.equal(r.ruleCount, 2);
    assert.equal(r.isAllowed(`http://example.com${longPath('/a/')}`), false);
    assert.equal(r.isAllowed('http://example.com/a/open'), false, 'the longer pattern (stars counted) wins');
    assert.equal(r.isAllowed('http://example.com/b'), true);
  });

  test('36,000 lines of Disallow: /a* are one rule', () => {
    const r = rules(`User-agent: *\n${'Disallow: /a*\n'.repeat(36_000)}`);
    assert.equal(r.ruleCount, 1);
    assert.equal(r.isAllowed(`http://example.com${longPath('/a')}`), false);
    assert.equal(r.check(`http://example.com${longPath('/b')}`).kind, 'allowed');
  });

  test('tens of thousands of distinct wildcard rules: a check stops at its budget and says so', () => {
    const body = `User-agent: *\n${Array.from({ length: 25_000 }, (_, i) => `Disallow: /*x${i}`).join('\n')}\n`;
    assert.ok(Buffer.byteLength(body) <= ROBOTS_MAX_BYTES);
    const r = rules(body);
    const url = `http://example.com${longPath('/b')}`;
    assert.equal(r.check(url).kind, 'over-budget');
    assert.throws(
      () => r.isAllowed(url),
      (err: unknown) =>
        err instanceof RobotsCostError &&
        /^robots: its 25,000 rules for this crawler take more than [\d,]+ steps to check one URL \(http:\/\/example\.com\/baaa+…\); they are too costly to use$/.test(
          err.message,
        ),
    );
    assert.equal(r.isAllowed('http://example.com/robots.txt'), true, 'robots.txt itself needs no check');
  });
});

describe('parseRobots: crawl-delay', () => {
  const delay = (value: string) => rules(`User-agent: LanternBot\nCrawl-delay: ${value}\n`).crawlDelayMs;

  test('whole and fractional seconds become whole milliseconds, rounded up', () => {
    assert.equal(delay('10'), 10_000);
    assert.equal(delay('0.5'), 500);
    assert.equal(delay('.25'), 250);
    assert.equal(delay('1.1'), 1100);
    assert.equal(delay('0.0001'), 1);
    assert.equal(delay('2.'), 2000);
    assert.equal(delay('0'), 0);
  });

  test('nonsense is ignored and huge values are capped at 24 hours', () => {
    for (const bad of ['-1', 'NaN', 'abc', '', '1e3', '5s', 'Infinity', '.']) assert.equal(delay(bad), undefined, bad);
    assert.equal(delay('100000'), ROBOTS_MAX_CRAWL_DELAY_MS);
    assert.equal(delay('99999999999999999999999'), ROBOTS_MAX_CRAWL_DELAY_MS);
    assert.equal(ROBOTS_MAX_CRAWL_DELAY_MS, 24 * 60 * 60 * 1000);
  });

  test('comes from our group only, else from *', () => {
    const star = 'User-agent: *\nCrawl-delay: 3\n';
    assert.equal(rules(star).crawlDelayMs, 3000);
    assert.equal(rules(`${star}\nUser-agent: LanternBot\nDisallow: /x\n`).crawlDelayMs, undefined);
    assert.equal(rules('User-agent: OtherBot\nCrawl-delay: 9\n').crawlDelayMs, undefined);
  });

  test('the last valid value of our groups wins; an invalid one does not clear it', () => {
    const body =
      'User-agent: LanternBot\nCrawl-delay: 2\nCrawl-delay: soon\n\nUser-agent: *\nCrawl-delay: 7\n\nUser-agent: LanternBot\nCrawl-delay: 4\n';
    assert.equal(rules(body).crawlDelayMs, 4000);
    assert.equal(rules('User-agent: LanternBot\nCrawl-delay: 2\nCrawl-delay: soon\n').crawlDelayMs, 2000);
  });

  test('ends the user-agent lines of its group, as it is usually meant', () => {
    const body = 'User-agent: *\nCrawl-delay: 5\n\nUser-agent: Baiduspider\nDisallow: /\n';
    assert.equal(rules(body).crawlDelayMs, 5000);
    assert.equal(allowedPath(body, '/x'), true);
  });
});

describe('parseRobots: sitemaps', () => {
  test('absolute, resolved, deduplicated, http(s) only, in order', () => {
    const body =
      'SITEMAP: http://example.com/a.xml\nUser-agent: *\nsitemap:/b.xml\nDisallow: /x\nSitemap: http://example.com/a.xml\n' +
      'Sitemap: ftp://example.com/c.xml\nSitemap: http://[bad\nSitemap:\nSitemap: https://cdn.example.net/d.xml # ours\n';
    assert.deepEqual(rules(body).sitemaps, [
      'http://example.com/a.xml',
      'http://example.com/b.xml',
      'https://cdn.example.net/d.xml',
    ]);
  });
});

describe('robotsOutcomeForStatus', () => {
  test('maps statuses as RFC 9309 says', () => {
    const expected: [number, string][] = [
      [200, 'rules'],
      [204, 'rules'],
      [299, 'rules'],
      [301, 'allow-all'],
      [304, 'allow-all'],
      [399, 'allow-all'],
      [400, 'allow-all'],
      [401, 'allow-all'],
      [403, 'allow-all'],
      [404, 'allow-all'],
      [410, 'allow-all'],
      [499, 'allow-all'],
      [429, 'disallow-all'],
      [500, 'disallow-all'],
      [503, 'disallow-all'],
      [599, 'disallow-all'],
      [100, 'disallow-all'],
      [0, 'disallow-all'],
      [600, 'disallow-all'],
      [200.5, 'disallow-all'],
      [Number.NaN, 'disallow-all'],
    ];
    for (const [status, outcome] of expected) assert.equal(robotsOutcomeForStatus(status), outcome, String(status));
  });
});

describe('allowAllRules / disallowAllRules', () => {
  test('allow all allows everything and says nothing else', () => {
    const r = allowAllRules();
    assert.equal(r.isAllowed('http://example.com/'), true);
    assert.equal(r.isAllowed('https://other.example/private?x'), true);
    assert.equal(r.crawlDelayMs, undefined);
    assert.deepEqual(r.sitemaps, []);
    assert.throws(() => r.isAllowed('nope'), /^Error: robots: /);
  });

  test('disallow all allows only /robots.txt', () => {
    const r = disallowAllRules();
    assert.equal(r.isAllowed('http://example.com/robots.txt'), true);
    assert.equal(r.isAllowed('http://example.com/'), false);
    assert.equal(r.isAllowed('http://example.com/a/robots.txt'), false);
    assert.equal(r.crawlDelayMs, undefined);
    assert.deepEqual(r.sitemaps, []);
  });
});

test('limits are the RFC 9309 ones', () => {
  assert.equal(ROBOTS_MAX_BYTES, 512_000);
  assert.equal(ROBOTS_MAX_REDIRECTS, 5);
  assert.equal(ROBOTS_CACHE_MS, 86_400_000);
});

describe('compileRobots / robotsRules / rulesLater', () => {
  test('a file compiled (as a worker does) and adopted after a JSON round trip (as the primary does) answers as parseRobots', () => {
    const body = 'User-agent: *\nCrawl-delay: 2\nDisallow: /private\nAllow: /private/*.css$\nSitemap: /s.xml\n';
    const compiled = JSON.parse(JSON.stringify(compileRobots(ROBOTS, body, UA)));
    const adopted = robotsRules(ROBOTS, compiled);
    const direct = rules(body);
    for (const path of ['/private/x', '/private/a.css', '/private/a.css?x', '/open']) {
      assert.equal(adopted.isAllowed(`http://example.com${path}`), direct.isAllowed(`http://example.com${path}`), path);
    }
    assert.deepEqual(
      [adopted.crawlDelayMs, adopted.sitemaps, adopted.ruleCount],
      [2000, ['http://example.com/s.xml'], 2],
    );
    assert.equal(compiled.token, 'lanternbot', 'says which crawler name it was compiled for');
  });

  test('rulesLater makes the rules only when first asked', () => {
    let made = 0;
    const later = rulesLater(() => {
      made++;
      return rules('User-agent: *\nDisallow: /private\n');
    });
    assert.equal(made, 0);
    assert.equal(later.isAllowed('http://example.com/private/x'), false);
    assert.equal(later.check('http://example.com/x').kind, 'allowed');
    assert.equal(later.ruleCount, 1);
    assert.equal(made, 1);
  });
});
