import { test } from 'node:test';
import assert from 'node:assert/strict';
import { containsPattern } from './seed-list.ts';

test('a search is a LIKE pattern matching it anywhere, its own wildcards taken literally', () => {
  assert.equal(containsPattern('rust'), '%rust%');
  assert.equal(containsPattern('50%_off\\'), '%50\\%\\_off\\\\%');
});
