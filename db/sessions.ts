import type { Database } from 'better-sqlite3';

/** A live sign-in session as stored (times in ms since the epoch). */
export interface SessionRow {
  createdAt: number;
  expiresAt: number;
}

/**
 * Prepared statements for sign-in sessions, created once per connection. Rows are keyed by the
 * SHA-256 of the cookie's token (never the token), see migration 0009.
 */
export function sessionQueries(db: Database) {
  const insert = db.prepare('INSERT INTO sessions (token_digest, created_at, expires_at) VALUES (?, ?, ?)');
  const live = db.prepare<[string, number], SessionRow>(
    'SELECT created_at AS createdAt, expires_at AS expiresAt FROM sessions WHERE token_digest = ? AND expires_at > ?',
  );
  const remove = db.prepare('DELETE FROM sessions WHERE token_digest = ?');
  const removeExpired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');

  return {
    /** Records a new session that lasts until `expiresAt`, dropping those already over (the table stays small). */
    startSession: db.transaction((digest: string, now: number, expiresAt: number): void => {
      removeExpired.run(now);
      insert.run(digest, now, expiresAt);
    }),
    /** The session of `digest` if it is still live at `now`. */
    liveSession(digest: string, now: number): SessionRow | undefined {
      return live.get(digest, now);
    },
    /** Ends a session at once (sign-out); says whether there was one. */
    endSession(digest: string): boolean {
      return remove.run(digest).changes > 0;
    },
  };
}
