import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether `given` is the secret, in time that does not depend on where they differ: both are hashed
 * first, so timingSafeEqual compares two 32-byte digests (and the length of the secret leaks nothing).
 */
export function secretMatches(given: string, secret: string): boolean {
  return timingSafeEqual(sha256(given), sha256(secret));
}

/** A new session token for a cookie: 32 random bytes, base64url (43 characters). */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What looks like a token `newSessionToken` made (anything else is not looked up). */
export function isSessionToken(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** The digest a session is stored under (the token itself is never stored). */
export function tokenDigest(token: string): string {
  return sha256(token).toString('hex');
}

/** The token of an `Authorization: Bearer <token>` header, or null for none or another scheme. */
export function bearerToken(header: string | undefined): string | null {
  const m = header === undefined ? null : /^Bearer[ ]+(\S(?:.*\S)?)\s*$/i.exec(header);
  return m === null ? null : m[1];
}
