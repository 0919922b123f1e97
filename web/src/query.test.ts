import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePage, siteQuery } from './query.ts';

describe('parsePage', () => {
  test('reads a positive page number', () => {
    assert.equal(parsePage('3'), 3);
  });
  test('anything missing, zero, negative or not a number is page 1', () => {
    for (const raw of [null, '', '0', '-2', 'abc', '2.5', '1e3', '9999999'])
      assert.equal(parsePage(raw), 1, String(raw));
  });
});

describe('siteQuery', () => {
  test('prefixes the query with site:HOST', () => {
    assert.equal(siteQuery('example.org', 'harbour lights'), 'site:example.org harbour lights');
  });
  test('replaces an existing site: operator instead of adding a second one', () => {
    assert.equal(siteQuery('b.example', 'site:a.example  tide'), 'site:b.example tide');
  });
  test('keeps a port in the host', () => {
    assert.equal(siteQuery('127.0.0.2:8080', ''), 'site:127.0.0.2:8080');
  });
});
