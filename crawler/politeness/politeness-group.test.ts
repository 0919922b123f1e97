import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { politenessGroup, PolitenessGroupError } from './politeness-group.ts';

describe('politenessGroup', () => {
  test("'domain': the names of one registrable domain share a group, whatever the scheme or port", () => {
    for (const o of [
      'https://www.python.org',
      'https://docs.python.org',
      'http://python.org',
      'http://wiki.python.org:8080',
    ]) {
      assert.equal(politenessGroup(o, 'domain'), 'python.org', o);
    }
    assert.equal(politenessGroup('https://www.bbc.co.uk', 'domain'), 'bbc.co.uk');
    assert.equal(politenessGroup('https://news.bbc.co.uk', 'domain'), 'bbc.co.uk');
  });

  test("'domain': private suffixes keep their users apart (alice.github.io, bob.github.io)", () => {
    assert.equal(politenessGroup('https://alice.github.io', 'domain'), 'alice.github.io');
    assert.equal(politenessGroup('https://bob.github.io', 'domain'), 'bob.github.io');
    assert.equal(politenessGroup('https://docs.alice.github.io', 'domain'), 'alice.github.io');
  });

  test("'domain': an IP address or a single-label name is its own group (ports share it)", () => {
    assert.equal(politenessGroup('http://127.0.0.2:8001', 'domain'), '127.0.0.2');
    assert.equal(politenessGroup('http://127.0.0.2:8002', 'domain'), '127.0.0.2');
    assert.equal(politenessGroup('http://127.0.0.3:8001', 'domain'), '127.0.0.3');
    assert.equal(politenessGroup('http://[::1]:8080', 'domain'), '::1');
    assert.equal(politenessGroup('http://localhost:3000', 'domain'), 'localhost');
    assert.equal(politenessGroup('http://intranet', 'domain'), 'intranet');
    assert.equal(
      politenessGroup('https://github.io', 'domain'),
      'github.io',
      'a public suffix as a host name is its own group',
    );
  });

  test("'host': every origin is its own group", () => {
    assert.equal(politenessGroup('https://www.python.org', 'host'), 'https://www.python.org');
    assert.notEqual(politenessGroup('http://127.0.0.2:8001', 'host'), politenessGroup('http://127.0.0.2:8002', 'host'));
  });

  test('a string that is not an origin gets a typed error that says what to pass', () => {
    assert.throws(
      () => politenessGroup('not a url', 'domain'),
      (e: unknown) => e instanceof PolitenessGroupError && /^politeness-group: .*normalized origin/.test(e.message),
    );
  });
});
