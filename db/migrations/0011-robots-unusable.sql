-- A host's robots.txt can now be 'unusable': fetched, but its rules cost too much to check within the
-- crawler's budget, so the host is handled as broken until a later robots.txt gives usable rules. And
-- robots_rules keeps the file's rules as a crawler worker compiled them (JSON), so that the crawler
-- primary never reads the file itself, not even after a restart or a 304. SQLite cannot change a CHECK
-- constraint in place: the table is rebuilt, its columns kept.
CREATE TABLE hosts_new (
  origin              TEXT    PRIMARY KEY,      -- scheme://host[:port]
  host                TEXT    NOT NULL,         -- host with port when not default (what the API shows)
  robots_status       TEXT    NOT NULL DEFAULT 'pending'
                      CHECK (robots_status IN ('pending', 'ok', 'allow-all', 'unreachable', 'unusable')),
  robots_http_status  INTEGER,
  robots_body         TEXT,                     -- cached robots.txt (at most 500 KiB)
  robots_fetched_at   INTEGER,
  robots_expires_at   INTEGER,
  crawl_delay_ms      INTEGER,                  -- from robots.txt Crawl-delay
  backoff_ms          INTEGER NOT NULL DEFAULT 0,
  backoff_until       INTEGER NOT NULL DEFAULT 0,
  backoff_reason      TEXT,
  consecutive_errors  INTEGER NOT NULL DEFAULT 0,
  last_request_start  INTEGER,
  last_request_end    INTEGER,                  -- the clock that survives a restart
  fetched_count       INTEGER NOT NULL DEFAULT 0,
  error_count         INTEGER NOT NULL DEFAULT 0,
  last_error          TEXT,
  updated_at          INTEGER NOT NULL,
  robots_etag         TEXT,
  robots_last_modified TEXT,
  robots_rules        TEXT                      -- robots_body compiled for our product token (JSON), or NULL
);
INSERT INTO hosts_new SELECT origin, host, robots_status, robots_http_status, robots_body, robots_fetched_at,
  robots_expires_at, crawl_delay_ms, backoff_ms, backoff_until, backoff_reason, consecutive_errors,
  last_request_start, last_request_end, fetched_count, error_count, last_error, updated_at, robots_etag,
  robots_last_modified, NULL FROM hosts;
DROP TABLE hosts;
ALTER TABLE hosts_new RENAME TO hosts;
