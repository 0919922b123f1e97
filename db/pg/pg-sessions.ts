/**
 * Sign-in sessions on PostgreSQL, as db/sessions.ts keeps them on SQLite: keyed by the SHA-256 of the cookie's
 * token (never the token), those already over dropped whenever a new one starts.
 */
import type pg from 'pg';
import type { SessionStore } from '../server-store.ts';
import type { SessionRow } from '../sessions.ts';
import { changed, inTransaction, row, statement } from './pool.ts';

const INSERT = statement(
  'sessions.insert',
  'INSERT INTO sessions (token_digest, created_at, expires_at) VALUES ($1, $2, $3)',
);
const LIVE = statement(
  'sessions.live',
  'SELECT created_at AS "createdAt", expires_at AS "expiresAt" FROM sessions WHERE token_digest = $1 AND expires_at > $2',
);
const REMOVE = statement('sessions.remove', 'DELETE FROM sessions WHERE token_digest = $1');
const REMOVE_EXPIRED = statement('sessions.remove-expired', 'DELETE FROM sessions WHERE expires_at <= $1');

/** The session port on PostgreSQL (see SessionStore). */
export function pgSessionStore(pool: pg.Pool): SessionStore {
  return {
    startSession(digest, now, expiresAt) {
      return inTransaction(pool, async (client) => {
        await changed(client, REMOVE_EXPIRED, [now]);
        await changed(client, INSERT, [digest, now, expiresAt]);
      });
    },
    liveSession: (digest, now) => row<SessionRow>(pool, LIVE, [digest, now]),
    endSession: async (digest) => (await changed(pool, REMOVE, [digest])) > 0,
  };
}
