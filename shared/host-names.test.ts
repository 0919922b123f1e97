import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isLoopbackName, isWildcardAddress } from './host-names.ts';

test('loopback: localhost, *.localhost, 127.0.0.0/8 and ::1 in its spellings; nothing else', () => {
  for (const h of [
    'localhost',
    'LOCALHOST',
    'lantern.localhost',
    '127.0.0.1',
    '127.255.0.9',
    '::1',
    '[::1]',
    '0:0:0:0:0:0:0:1',
    '::ffff:127.0.0.1',
  ]) {
    assert.equal(isLoopbackName(h), true, h);
  }
  for (const h of [
    '0.0.0.0',
    '::',
    '128.0.0.1',
    '10.0.0.1',
    'localhost.example.com',
    'mylocalhost',
    '::2',
    '::ffff:10.0.0.1',
    'example.com',
  ]) {
    assert.equal(isLoopbackName(h), false, h);
  }
});

test('wildcards: 0.0.0.0 and :: in its spellings', () => {
  for (const h of ['0.0.0.0', '::', '[::]', '0:0:0:0:0:0:0:0']) assert.equal(isWildcardAddress(h), true, h);
  for (const h of ['127.0.0.1', '::1', 'localhost', '0.0.0.1']) assert.equal(isWildcardAddress(h), false, h);
});
