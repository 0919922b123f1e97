import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../../test-support/seeded-random.ts';
import {
  checkUrl,
  inScope,
  isPrivateAddress,
  looksLikeHostWithPort,
  registrableDomain,
  MAX_URL_LENGTH,
} from './url.ts';
import type { UrlCheck, UrlRefusalCode } from './url.ts';

const PUBLIC = { allowPrivate: false };
const PRIVATE_OK = { allowPrivate: true };

/** Asserts acceptance and returns the accepted result. */
function accepted(result: UrlCheck): Extract<UrlCheck, { ok: true }> {
  assert.equal(result.ok, true, result.ok ? '' : result.message);
  return result as Extract<UrlCheck, { ok: true }>;
}

/** Asserts a refusal with `code`, and that its message is a helpful `url: ` line. */
function refused(result: UrlCheck, code: UrlRefusalCode): string {
  assert.equal(result.ok, false, result.ok ? `accepted as ${result.url}` : '');
  const refusal = result as Extract<UrlCheck, { ok: false }>;
  assert.equal(refusal.code, code, refusal.message);
  assert.match(refusal.message, /^url: \S/);
  assert.ok(refusal.message.length < 400, 'message stays short');
  return refusal.message;
}

describe('checkUrl normalizes', () => {
  const cases: Array<[string, string]> = [
    ['HTTPS://Example.ORG:443/a/../b#frag', 'https://example.org/b'],
    ['http://example.org', 'http://example.org/'],
    ['  http://example.org/x \n', 'http://example.org/x'],
    ['http://example.org:80/', 'http://example.org/'],
    ['https://example.org:8443/p', 'https://example.org:8443/p'],
    ['http://example.org:443/', 'http://example.org:443/'],
    ['http://example.org/?b=2&a=1&b=1', 'http://example.org/?b=2&a=1&b=1'],
    ['http://example.org/b?', 'http://example.org/b'],
    ['http://bücher.de/', 'http://xn--bcher-kva.de/'],
    ['http://example.org./a', 'http://example.org/a'],
    ['http://example.org/a/./b/../c/%2e%2E/d', 'http://example.org/a/d'],
    ['http://example.org/%7e/x?q=%aa%2f', 'http://example.org/%7E/x?q=%AA%2F'],
    ['http://example.org/caf\u00e9 x', 'http://example.org/caf%C3%A9%20x'],
    ['http://@example.org/', 'http://example.org/'],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(accepted(checkUrl(input, PUBLIC)).url, expected);
    });
  }

  test('gives origin, host and hostname', () => {
    assert.deepEqual(checkUrl('HTTP://Example.org:8080/a?b#c', PUBLIC), {
      ok: true,
      url: 'http://example.org:8080/a?b',
      origin: 'http://example.org:8080',
      host: 'example.org:8080',
      hostname: 'example.org',
    });
    const local = accepted(checkUrl('http://127.0.0.2:8080/x', PRIVATE_OK));
    assert.equal(local.host, '127.0.0.2:8080');
    assert.equal(local.origin, 'http://127.0.0.2:8080');
    const https = accepted(checkUrl('https://example.org:443/', PUBLIC));
    assert.equal(https.host, 'example.org');
    assert.equal(https.origin, 'https://example.org');
  });

  test('is idempotent', () => {
    for (const input of [
      'HTTPS://Example.ORG:443/a/../b#frag',
      'http://bücher.de/ä?x=%aa&y',
      'http://example.org/b?',
    ]) {
      const once = accepted(checkUrl(input, PUBLIC)).url;
      assert.equal(accepted(checkUrl(once, PUBLIC)).url, once);
    }
  });
});

describe('checkUrl resolves against a base', () => {
  const base = 'https://example.org/dir/page.html?q=1#top';
  const cases: Array<[string, string]> = [
    ['other.html', 'https://example.org/dir/other.html'],
    ['../up#x', 'https://example.org/up'],
    ['/root?z=1&a=2', 'https://example.org/root?z=1&a=2'],
    ['//cdn.example.net/a', 'https://cdn.example.net/a'],
    ['?only=query', 'https://example.org/dir/page.html?only=query'],
    ['#fragment', 'https://example.org/dir/page.html?q=1'],
    ['http://Other.org', 'http://other.org/'],
  ];
  for (const [input, expected] of cases) {
    test(`${JSON.stringify(input)} → ${expected}`, () => {
      assert.equal(accepted(checkUrl(input, PUBLIC, base)).url, expected);
    });
  }

  test('refuses links by the same rules', () => {
    refused(checkUrl('javascript:void(0)', PUBLIC, base), 'unsupported-scheme');
    refused(checkUrl('mailto:a@example.org', PUBLIC, base), 'unsupported-scheme');
    refused(checkUrl('//127.0.0.1/admin', PUBLIC, base), 'private-address');
    refused(checkUrl('/x', PUBLIC, 'http://10.0.0.1/'), 'private-address');
    refused(checkUrl('/x', PUBLIC, 'not a url'), 'malformed');
    refused(checkUrl('http://a b/', PUBLIC, base), 'malformed');
  });

  test('a relative link that grows past the limit is too long', () => {
    const longBase = `https://example.org/${'d'.repeat(MAX_URL_LENGTH - 30)}/`;
    assert.equal(accepted(checkUrl('.', PUBLIC, longBase)).url.length <= MAX_URL_LENGTH, true);
    refused(checkUrl('x'.repeat(40), PUBLIC, longBase), 'too-long');
  });
});

describe('checkUrl refuses', () => {
  test('missing: non-strings and empty strings', () => {
    for (const input of [undefined, null, 42, {}, ['http://example.org/'], '', '   \n']) {
      refused(checkUrl(input, PUBLIC), 'missing');
    }
  });

  test('malformed: not a URL, no host, port 0', () => {
    for (const input of [
      'not a url',
      'http://',
      'http:// /',
      'https://exa mple.org/',
      'http://[::1/',
      'http://a.b.c.d.1/',
      'http://example.org:0/',
      '/relative/only',
    ]) {
      refused(checkUrl(input, PRIVATE_OK), 'malformed');
    }
  });

  test('malformed: a host without a scheme gets a hint', () => {
    assert.match(refused(checkUrl('example.org', PUBLIC), 'malformed'), /https:\/\/example\.org/);
    assert.match(refused(checkUrl('localhost:3000', PRIVATE_OK), 'malformed'), /https:\/\/localhost:3000/);
    assert.match(refused(checkUrl('example.org:8080/a', PUBLIC), 'malformed'), /lacks a scheme/);
  });

  test('unsupported-scheme: ftp, javascript, file, data, mailto', () => {
    assert.equal(
      refused(checkUrl('ftp://x', PUBLIC), 'unsupported-scheme'),
      'url: "ftp://x" uses the ftp: scheme; Lantern crawls only http and https URLs',
    );
    for (const input of [
      'javascript:alert(1)',
      'file:///etc/passwd',
      'data:text/html,hi',
      'mailto:me@example.org',
      'ws://example.org/',
    ]) {
      refused(checkUrl(input, PRIVATE_OK), 'unsupported-scheme');
    }
  });

  test('too-long: a 5000-character URL, with a short message', () => {
    const long = `https://example.org/${'a'.repeat(4980)}`;
    assert.equal(long.length, 5000);
    assert.match(refused(checkUrl(long, PUBLIC), 'too-long'), /5000 characters.*2048/);
    const exact = `https://example.org/${'a'.repeat(MAX_URL_LENGTH - 20)}`;
    assert.equal(accepted(checkUrl(exact, PUBLIC)).url.length, MAX_URL_LENGTH);
    refused(checkUrl(`${exact}a`, PUBLIC), 'too-long');
  });

  test('too-long: after normalizing (escapes grow a URL)', () => {
    const input = `https://example.org/${'é'.repeat(1000)}`;
    assert.ok(input.length <= MAX_URL_LENGTH);
    refused(checkUrl(input, PUBLIC), 'too-long');
  });

  test('credentials, without echoing the password', () => {
    for (const input of [
      'http://user:hunter2@example.org/',
      'https://user@example.org/',
      'http://:hunter2@example.org/',
    ]) {
      const message = refused(checkUrl(input, PRIVATE_OK), 'credentials');
      assert.doesNotMatch(message, /hunter2|user@/);
      assert.match(message, /example\.org/);
    }
  });

  const privateUrls = [
    'http://127.0.0.1/',
    'http://10.1.2.3/',
    'http://[::1]/',
    'http://169.254.169.254/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
    'http://0.0.0.0/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://127.1/',
    'http://localhost:3000/',
    'http://192.168.1.1',
    'http://172.16.0.1',
    'http://100.64.0.1',
    'http://[::]/',
    'http://[ff02::1]/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://[64:ff9b::10.0.0.1]/',
    'http://app.localhost/',
    'http://printer.local/',
    'http://metadata.google.internal/',
    'http://LOCALHOST./',
    'http://%31%32%37.0.0.1/',
    'http://１２７.０.０.１/',
    'http://nas.home.arpa/',
  ];
  for (const input of privateUrls) {
    test(`private-address: ${input}, accepted with allowPrivate`, () => {
      refused(checkUrl(input, PUBLIC), 'private-address');
      accepted(checkUrl(input, PRIVATE_OK));
    });
  }

  test('private-address messages say what and how to allow it', () => {
    assert.equal(
      refused(checkUrl('http://127.0.0.1/', PUBLIC), 'private-address'),
      'url: 127.0.0.1 is a loopback address; Lantern does not crawl local or private networks unless CRAWL_ALLOW_PRIVATE=1 is set',
    );
    assert.match(
      refused(checkUrl('http://2130706433/', PUBLIC), 'private-address'),
      /^url: 127\.0\.0\.1 \(written "2130706433"\) is a loopback address/,
    );
    assert.match(
      refused(checkUrl('http://localhost:3000/', PUBLIC), 'private-address'),
      /localhost is a loopback host name.*CRAWL_ALLOW_PRIVATE=1/,
    );
    assert.match(refused(checkUrl('http://169.254.169.254/latest/', PUBLIC), 'private-address'), /metadata/);
  });

  test('public addresses and names pass', () => {
    for (const input of [
      'http://8.8.8.8/',
      'http://172.32.0.1/',
      'http://172.15.255.255/',
      'http://100.128.0.1/',
      'http://[2606:4700:4700::1111]/',
      'http://[::ffff:8.8.8.8]/',
      'http://localhost.example.org/',
      'http://local.example.org/',
      'https://example.org/',
    ]) {
      accepted(checkUrl(input, PUBLIC));
    }
  });
});

describe('isPrivateAddress', () => {
  const privates = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.251',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.0.170',
    '198.18.0.1',
    '2130706433',
    '0x7f.1',
    '127.1',
    '017700000001',
    '::1',
    '[::1]',
    '::',
    '0:0:0:0:0:0:0:1',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '[::ffff:10.0.0.1]',
    '::ffff:0:192.168.0.1',
    '::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b:1::1',
    '2002:c0a8:0101::1',
    '2002:7f00:1::',
  ];
  for (const ip of privates) {
    test(`${ip} is private`, () => assert.equal(isPrivateAddress(ip), true));
  }
  const publics = [
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.0.1',
    '192.169.0.1',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '[2001:4860:4860::8888]',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:0808:0808::1',
    'fb00::1',
    'fe00::1',
    // not IP literals: host names are judged by checkUrl
    'localhost',
    'example.org',
    '',
    '1.2.3.4.5',
    '256.1.1.1',
    '1:2:3:4:5:6:7:8:9',
    '::1::',
    '12345::1',
    'gggg::1',
  ];
  for (const ip of publics) {
    test(`${JSON.stringify(ip)} is not private`, () => assert.equal(isPrivateAddress(ip), false));
  }
});

describe('isPrivateAddress: documentation ranges and what an embedded IPv4 address is called', () => {
  test('documentation addresses (RFC 5737, 3849, 9637) are never crawled by default; their neighbours are', () => {
    for (const ip of [
      '192.0.2.1',
      '198.51.100.255',
      '203.0.113.0',
      '2001:db8::1',
      '[2001:db8:ffff::1]',
      '3fff::1',
      '::ffff:192.0.2.1',
    ]) {
      assert.equal(isPrivateAddress(ip), true, ip);
    }
    for (const ip of ['192.0.3.1', '198.51.101.1', '203.0.114.1', '2001:db9::1', '4000::1'])
      assert.equal(isPrivateAddress(ip), false, ip);
    assert.match(
      refused(checkUrl('http://203.0.113.7/', PUBLIC), 'private-address'),
      /^url: 203\.0\.113\.7 is a documentation address;/,
    );
  });

  test('an IPv6 address carrying a private IPv4 one says which and how', () => {
    const kind = (url: string) =>
      /^url: \S+ (?:\(written "[^"]*"\) )?is (.*?);/.exec(refused(checkUrl(url, PUBLIC), 'private-address'))?.[1];
    assert.equal(kind('http://[::ffff:10.0.0.1]/'), 'a private-network address (IPv4-mapped)');
    assert.equal(kind('http://[::127.0.0.1]/'), 'a loopback address (IPv4-compatible)');
    assert.equal(
      kind('http://[::ffff:0:169.254.169.254]/'),
      'the cloud metadata address (link-local) (IPv4-translated)',
    );
    assert.equal(kind('http://[64:ff9b::100.64.0.1]/'), 'a carrier-grade NAT (shared) address (NAT64)');
    assert.equal(kind('http://[2002:c0a8:0101::1]/'), 'a private-network address (6to4)');
    assert.equal(
      kind('http://[2002:ac1f:ffff::]/'),
      'a private-network address (6to4)',
      '172.31.255.255, the end of 172.16.0.0/12',
    );
    accepted(checkUrl('http://[2002:ac20::1]/', PUBLIC)); // 172.32.0.0, just past it
  });
});

describe('registrableDomain', () => {
  test('uses the public suffix list, keeps IPs and single labels', () => {
    assert.equal(registrableDomain('www.example.co.uk'), 'example.co.uk');
    assert.equal(registrableDomain('blog.Example.org.'), 'example.org');
    assert.equal(registrableDomain('a.b.example.com'), 'example.com');
    assert.equal(registrableDomain('alice.github.io'), 'alice.github.io');
    assert.equal(registrableDomain('127.0.0.1'), '127.0.0.1');
    assert.equal(registrableDomain('[::1]'), '::1');
    assert.equal(registrableDomain('localhost'), 'localhost');
    assert.equal(registrableDomain('co.uk'), 'co.uk');
  });
});

describe('inScope', () => {
  const seed = 'https://www.example.co.uk/start';
  test('host: same host name and port; an http→https upgrade stays in scope', () => {
    assert.equal(inScope(seed, 'https://www.example.co.uk/other?x', 'host'), true);
    assert.equal(inScope(seed, 'http://WWW.example.co.uk/', 'host'), true);
    assert.equal(inScope('http://example.org/', 'https://example.org:443/a', 'host'), true);
    assert.equal(inScope(seed, 'https://blog.example.co.uk/', 'host'), false);
    assert.equal(inScope(seed, 'https://www.example.co.uk:8443/', 'host'), false);
    assert.equal(inScope('http://127.0.0.2:8080/', 'http://127.0.0.2:8080/a', 'host'), true);
    assert.equal(inScope('http://127.0.0.2:8080/', 'http://127.0.0.2:8081/a', 'host'), false);
    assert.equal(inScope('http://127.0.0.2:8080/', 'http://127.0.0.3:8080/a', 'host'), false);
  });

  test("path: the seed's host, under the seed's folder only", () => {
    const docs = 'https://example.org/docs/';
    assert.equal(inScope(docs, 'https://example.org/docs/a/b.html?x', 'path'), true);
    assert.equal(
      inScope(docs, 'http://example.org/docs/', 'path'),
      true,
      'an http→https move stays in scope, as for host',
    );
    assert.equal(
      inScope(docs, 'https://example.org/docs', 'path'),
      false,
      'the folder without its slash is another path',
    );
    assert.equal(inScope(docs, 'https://example.org/docsearch/', 'path'), false);
    assert.equal(inScope(docs, 'https://example.org/blog/', 'path'), false);
    assert.equal(inScope(docs, 'https://other.example.org/docs/a', 'path'), false);
    assert.equal(
      inScope('https://example.org/docs/intro.html', 'https://example.org/docs/next.html', 'path'),
      true,
      "a page's folder",
    );
    assert.equal(
      inScope('https://example.org/', 'https://example.org/anything', 'path'),
      true,
      'a root seed: the whole host',
    );
  });

  test('domain: same registrable domain, any port', () => {
    assert.equal(inScope(seed, 'https://blog.example.co.uk/', 'domain'), true);
    assert.equal(inScope(seed, 'http://example.co.uk:8080/', 'domain'), true);
    assert.equal(inScope(seed, 'https://www.other.co.uk/', 'domain'), false);
    assert.equal(inScope('https://example.org/', 'https://example.com/', 'domain'), false);
    assert.equal(inScope('https://alice.github.io/', 'https://bob.github.io/', 'domain'), false);
    assert.equal(inScope('http://10.0.0.1/', 'http://10.0.0.1:81/x', 'domain'), true);
    assert.equal(inScope('http://10.0.0.1/', 'http://10.0.0.2/', 'domain'), false);
    assert.equal(inScope('http://[::1]:8080/', 'http://[0:0::1]/', 'domain'), true);
  });

  test('any: every http(s) URL, nothing else', () => {
    assert.equal(inScope(seed, 'https://example.com/', 'any'), true);
    assert.equal(inScope(seed, 'http://10.0.0.1/', 'any'), true);
    assert.equal(inScope(seed, 'ftp://example.com/', 'any'), false);
    assert.equal(inScope(seed, 'not a url', 'any'), false);
    assert.equal(inScope('not a url', 'https://example.com/', 'host'), false);
  });
});

describe('looksLikeHostWithPort: a linear scan', () => {
  // The regex it replaces: the reference, on short random texts (quadratic in the dots of a long one).
  const regex = (s: string) => /^(?:localhost|[^/:?#\s]*\.[^/:?#\s]*):\d+(?:[/?#]|$)/i.test(s);
  const PIECES = ['a', '.', ':', '8', '0', '/', '?', '#', ' ', 'localhost', 'LocalHost', '\u00a0', 'x'];

  test('gives what the regex gave on 20,000 random texts', () => {
    const next = seededRandom(26);
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from(
        { length: Math.floor(next() * 8) },
        () => PIECES[Math.floor(next() * PIECES.length)],
      ).join('');
      assert.equal(looksLikeHostWithPort(text), regex(text), JSON.stringify(text));
    }
  });

  test('a URL of dots and no colon, at the length cap, is refused as malformed, with its hint', () => {
    const dots = 'a.'.repeat(MAX_URL_LENGTH / 2);
    const checked = checkUrl(dots, PUBLIC);
    assert.equal(checked.ok, false);
    assert.ok(!checked.ok && checked.code === 'malformed' && checked.message.includes('it lacks a scheme'));
    assert.equal(looksLikeHostWithPort(`${dots.slice(0, -1)}:8080/`), true);
    assert.equal(looksLikeHostWithPort(`${dots}:8080x`), false);
  });
});
