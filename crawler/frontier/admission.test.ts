import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  admitLinks,
  budgetMessage,
  findRedirectLoop,
  judgeRedirect,
  loopMessage,
  MAX_REDIRECTS,
  trapMessage,
  UrlBudget,
} from './admission.ts';
import { CRAWL_LIMITS } from '../common/url-traps.ts';

const SEED = { url: 'https://example.org/', depth: 3, scope: 'host' as const };
const PUBLIC = { allowPrivate: false };

describe('admitLinks', () => {
  const links = [
    'https://example.org/a',
    'https://other.org/x',
    'https://example.org/a/a/a/a/',
    'https://example.org/b',
  ];

  test('keeps in-scope links that are no trap, counts the traps and names the first', async () => {
    const r = admitLinks(links, { depth: 0, nofollow: false, seed: SEED });
    assert.deepEqual(r.follow, ['https://example.org/a', 'https://example.org/b']);
    assert.equal(r.trapped, 1);
    assert.equal(r.trapExample?.url, 'https://example.org/a/a/a/a/');
    assert.match(r.trapExample?.reason ?? '', /repeats "a\/" 4 times/);
    assert.equal(r.overPageCap, 0);
  });

  test('nothing at the seed depth, for a nofollow page, or for an unknown seed', async () => {
    assert.deepEqual(admitLinks(links, { depth: 3, nofollow: false, seed: SEED }).follow, []);
    assert.deepEqual(admitLinks(links, { depth: 0, nofollow: true, seed: SEED }).follow, []);
    assert.deepEqual(admitLinks(links, { depth: 0, nofollow: false, seed: undefined }).follow, []);
  });

  test('the depth never exceeds CRAWL_LIMITS.maxDepth, whatever the seed says', async () => {
    const deepSeed = { ...SEED, depth: 50 };
    assert.deepEqual(admitLinks(links, { depth: CRAWL_LIMITS.maxDepth, nofollow: false, seed: deepSeed }).follow, []);
    assert.equal(
      admitLinks(links, { depth: CRAWL_LIMITS.maxDepth - 1, nofollow: false, seed: deepSeed }).follow.length,
      2,
    );
  });

  test('a page with 100,000 links: only the first maxLinksPerPage are looked at', async () => {
    const many = Array.from({ length: 100_000 }, (_, i) => `https://example.org/l/${i}`);
    const r = admitLinks(many, { depth: 0, nofollow: false, seed: SEED });
    assert.equal(r.follow.length, CRAWL_LIMITS.maxLinksPerPage);
    assert.equal(r.overPageCap, 100_000 - CRAWL_LIMITS.maxLinksPerPage);
    assert.equal(r.follow.at(-1), `https://example.org/l/${CRAWL_LIMITS.maxLinksPerPage - 1}`);
  });

  test('messages for the host row', async () => {
    assert.equal(
      budgetMessage(10_000),
      'stopped following links: 10,000 URLs already found on this host (the limit per host, CRAWL_MAX_URLS_PER_HOST)',
    );
    assert.equal(
      trapMessage(3, {
        url: 'https://example.org/a/a/a/a/',
        reason: 'url-traps: the path repeats "a/" 4 times in a row (more than 3)',
      }),
      'stopped following 3 links that look like an endless URL space, e.g. https://example.org/a/a/a/a/ (the path repeats "a/" 4 times in a row (more than 3))',
    );
  });
});

describe('UrlBudget', () => {
  test('counts stored URLs per host; provisional ones count until rolled back', async () => {
    const b = new UrlBudget(3);
    b.load([{ origin: 'http://a', n: 2 }]);
    assert.equal(b.hasRoom('http://a'), true);
    b.add('http://a');
    assert.equal(b.hasRoom('http://a'), false, 'a provisional URL uses the budget at once');
    b.rollback();
    assert.equal(b.count('http://a'), 2, 'a failed transaction gives it back');
    b.add('http://a');
    b.commit();
    b.rollback();
    assert.equal(b.count('http://a'), 3, 'committed URLs stay counted');
    b.record('http://b');
    assert.equal(b.count('http://b'), 1);
  });
});

describe('judgeRedirect', () => {
  const base = { refusal: null, redirects: 0, depth: 1, seed: SEED, policy: PUBLIC };

  test('an ordinary redirect is followed, normalized', async () => {
    assert.deepEqual(judgeRedirect({ ...base, location: 'https://example.org/new#x' }), {
      ok: true,
      url: 'https://example.org/new',
      origin: 'https://example.org',
    });
  });

  test('CRAWL_ALLOW_PRIVATE=0: a redirect to loopback, private, link-local, metadata or local names is refused', async () => {
    const targets: Array<[string, RegExp]> = [
      ['http://127.0.0.1/admin', /loopback address/],
      ['http://10.1.2.3/', /private-network address/],
      ['http://192.168.0.1/router', /private-network address/],
      ['http://169.254.169.254/latest/meta-data/', /cloud metadata address/],
      ['http://[::1]:8080/', /loopback address/],
      ['http://[fd00::1]/', /unique-local address/],
      ['http://localhost./', /loopback host name/],
      ['http://metadata.google.internal/computeMetadata/v1/', /cloud metadata host name/],
      ['http://2130706433/', /loopback address/],
    ];
    for (const [location, kind] of targets) {
      for (const depth of [0, 1]) {
        const seed = { ...SEED, scope: 'any' as const };
        const r = judgeRedirect({ ...base, seed, depth, location });
        assert.equal(r.ok, false, `${location} refused`);
        assert.match(!r.ok ? r.error : '', /^redirect refused: url: /);
        assert.match(!r.ok ? r.error : '', kind);
        assert.match(!r.ok ? r.error : '', /CRAWL_ALLOW_PRIVATE=1/);
      }
    }
  });

  test('CRAWL_ALLOW_PRIVATE=1: the same private target is followed', async () => {
    const r = judgeRedirect({
      ...base,
      seed: { ...SEED, scope: 'any' },
      policy: { allowPrivate: true },
      location: 'http://10.1.2.3/',
    });
    assert.deepEqual(r, { ok: true, url: 'http://10.1.2.3/', origin: 'http://10.1.2.3' });
  });

  test('file:, javascript: and other schemes are refused even with CRAWL_ALLOW_PRIVATE=1', async () => {
    for (const location of [
      'file:///etc/passwd',
      'FILE://localhost/etc/passwd',
      'javascript:alert(1)',
      'ftp://example.org/x',
      'gopher://example.org/',
    ]) {
      const r = judgeRedirect({ ...base, policy: { allowPrivate: true }, location });
      assert.equal(r.ok, false, location);
      assert.match(!r.ok ? r.error : '', /^redirect refused: url: .* scheme; Lantern crawls only http and https URLs$/);
    }
  });

  test("the worker's own refusal is passed on; no Location at all is said so", async () => {
    assert.deepEqual(judgeRedirect({ ...base, location: null, refusal: 'url: "file:///x" uses the file: scheme' }), {
      ok: false,
      error: 'redirect refused: url: "file:///x" uses the file: scheme',
    });
    assert.deepEqual(judgeRedirect({ ...base, location: null }), {
      ok: false,
      error: 'redirect without a usable Location',
    });
  });

  test(`more than ${MAX_REDIRECTS} hops: too many redirects`, async () => {
    assert.equal(judgeRedirect({ ...base, redirects: MAX_REDIRECTS - 1, location: 'https://example.org/n' }).ok, true);
    assert.deepEqual(judgeRedirect({ ...base, redirects: MAX_REDIRECTS, location: 'https://example.org/n' }), {
      ok: false,
      error: `too many redirects (more than ${MAX_REDIRECTS})`,
    });
  });

  test('out of scope below the seed; the seed URL itself may move anywhere', async () => {
    assert.deepEqual(judgeRedirect({ ...base, location: 'https://elsewhere.org/' }), {
      ok: false,
      error: 'redirects out of scope to https://elsewhere.org/',
    });
    assert.equal(judgeRedirect({ ...base, depth: 0, location: 'https://www.example.org/' }).ok, true);
  });

  test('a trap-like target is refused', async () => {
    const r = judgeRedirect({ ...base, location: 'https://example.org/x/x/x/x/' });
    assert.match(
      !r.ok ? r.error : '',
      /^redirect refused: https:\/\/example\.org\/x\/x\/x\/x\/: url-traps: the path repeats/,
    );
  });
});

describe('findRedirectLoop', () => {
  const table = (pairs: Record<string, string>) => (url: string) => pairs[url];

  test('x → y after y → x was recorded: the loop, from the source back to it', async () => {
    assert.deepEqual(await findRedirectLoop('/y', '/x', table({ '/x': '/y' })), ['/y', '/x', '/y']);
    assert.equal(loopMessage(['/y', '/x', '/y']), 'redirect loop: /y → /x → /y');
  });

  test('a URL redirecting to itself', async () => {
    assert.deepEqual(await findRedirectLoop('/z', '/z', table({})), ['/z', '/z']);
  });

  test('a longer loop through several hops', async () => {
    assert.deepEqual(await findRedirectLoop('/d', '/a', table({ '/a': '/b', '/b': '/c', '/c': '/d' })), [
      '/d',
      '/a',
      '/b',
      '/c',
      '/d',
    ]);
  });

  test('a target already known that does not lead back is a duplicate, not a loop', async () => {
    assert.equal(await findRedirectLoop('/old', '/new', table({})), null);
    assert.equal(await findRedirectLoop('/old', '/a', table({ '/a': '/b' })), null);
  });

  test('a target inside another loop ends the walk after maxSteps', async () => {
    assert.equal(await findRedirectLoop('/w', '/p', table({ '/p': '/q', '/q': '/p' })), null);
  });
});
