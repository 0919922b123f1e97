import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { forPeople } from './api.ts';

describe('forPeople', () => {
  test("drops the server module's prefix and capitalizes", () => {
    assert.equal(forPeople('url: "ftp://x/" uses the ftp: scheme'), '"ftp://x/" uses the ftp: scheme');
    assert.equal(forPeople('search: nothing to search for'), 'Nothing to search for');
  });
  test('leaves a message without a prefix alone', () => {
    assert.equal(forPeople('Something went wrong'), 'Something went wrong');
  });
});
