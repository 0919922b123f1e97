import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SignInGuard, SIGN_IN_RATE } from './sign-in-guard.ts';
import { bearerToken, secretMatches } from './secret.ts';

const SECRET = 'the right secret, long enough';

test('the secret matches only itself', () => {
  assert.equal(secretMatches(SECRET, SECRET), true);
  for (const other of ['', 'the right secret', `${SECRET} `, SECRET.toUpperCase(), `${SECRET}\u0000`])
    assert.equal(secretMatches(other, SECRET), false, other);
});

test('wrong secrets are counted per client; out of budget, even the right one waits; right ones cost nothing', () => {
  const guard = new SignInGuard(SECRET);
  for (let i = 0; i < 20; i++)
    assert.deepEqual(guard.check('owner', SECRET, 0), { ok: true }, 'the owner is never slowed down');
  for (let i = 0; i < SIGN_IN_RATE.burst; i++)
    assert.deepEqual(guard.check('guesser', `guess ${i}`, 0), { ok: false, retryAfterMs: null });
  assert.deepEqual(guard.check('guesser', 'guess 6', 0), { ok: false, retryAfterMs: 12_000 });
  assert.deepEqual(
    guard.check('guesser', SECRET, 0),
    { ok: false, retryAfterMs: 12_000 },
    'a right guess cannot be told from a wrong one',
  );
  assert.deepEqual(guard.check('owner', SECRET, 0), { ok: true }, 'other clients are not affected');
  assert.deepEqual(guard.check('guesser', SECRET, 12_000), { ok: true }, 'after the wait');
});

test('Authorization: Bearer <token>, the scheme in any case; other schemes are not a token', () => {
  assert.equal(bearerToken(`Bearer ${SECRET}`), SECRET);
  assert.equal(bearerToken(`bearer  ${SECRET}`), SECRET);
  for (const h of [undefined, '', 'Bearer', 'Bearer ', `Basic ${SECRET}`, SECRET])
    assert.equal(bearerToken(h), null, String(h));
});
