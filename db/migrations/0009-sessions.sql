-- Sign-in sessions (LANTERN_SECRET): one row per signed-in browser, so signing out ends it on the
-- server and a copied cookie dies with it. The cookie's token itself is not stored, only its SHA-256,
-- so a copy of the database signs no one in.
CREATE TABLE sessions (
  token_digest TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_expires ON sessions (expires_at);
