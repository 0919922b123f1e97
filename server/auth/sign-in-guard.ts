import { RateLimiter } from '../rate-limiter.ts';
import { secretMatches } from './secret.ts';

/**
 * How many wrong secrets one client may send: 5 at once, then one every 12 s (300 an hour). Only
 * wrong ones count, so the owner, who knows the secret, is never slowed down by their own use.
 */
export const SIGN_IN_RATE = { burst: 5, perSecond: 1 / 12 };

/** What a secret given by a client comes to. */
export type SecretCheck = { ok: true } | { ok: false; retryAfterMs: number | null };

/**
 * Checks secrets given by clients (sign-in and `Authorization: Bearer`) against LANTERN_SECRET, with
 * one budget of wrong guesses per client. A client out of budget is refused before its secret is even
 * compared, so a right guess cannot be told from a wrong one while it waits. Pure: time comes in.
 */
export class SignInGuard {
  private readonly limiter = new RateLimiter(SIGN_IN_RATE.burst, SIGN_IN_RATE.perSecond);

  constructor(private readonly secret: string) {}

  /** `ok`, or refused: `retryAfterMs` when the client must wait, null when the secret was wrong (and counted). */
  check(client: string, given: string, now: number): SecretCheck {
    const wait = this.limiter.wait(client, now);
    if (wait > 0) return { ok: false, retryAfterMs: wait };
    if (secretMatches(given, this.secret)) return { ok: true };
    this.limiter.take(client, now);
    return { ok: false, retryAfterMs: null };
  }
}
