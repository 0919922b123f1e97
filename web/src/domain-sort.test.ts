import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nextSort } from './domain-sort.ts';

describe('nextSort', () => {
  test('a new column starts in its natural direction; the same column flips', () => {
    assert.deepEqual(nextSort({ key: 'host', dir: 'asc' }, 'errors'), { key: 'errors', dir: 'desc' });
    assert.deepEqual(nextSort({ key: 'errors', dir: 'desc' }, 'errors'), { key: 'errors', dir: 'asc' });
    assert.deepEqual(nextSort({ key: 'errors', dir: 'desc' }, 'host'), { key: 'host', dir: 'asc' });
  });
});
