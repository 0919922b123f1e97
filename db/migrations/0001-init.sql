-- Lantern's first schema: what the user asked for (seeds), what the crawler must still do (frontier),
-- what it knows of each host (hosts) and what it found (pages). Times are Unix epoch milliseconds.

CREATE TABLE seeds (
  id          INTEGER PRIMARY KEY,
  url         TEXT    NOT NULL UNIQUE,          -- normalized by crawler/url.ts
  origin      TEXT    NOT NULL,                 -- scheme://host[:port], the scheduler's host key
  depth       INTEGER NOT NULL CHECK (depth BETWEEN 0 AND 10),
  scope       TEXT    NOT NULL CHECK (scope IN ('host', 'domain', 'any')),
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);

-- Every URL the crawler has decided to fetch, exactly once per normalized URL.
-- state: queued (waiting), leased (handed to a worker), done (stored or recorded), failed (gave up),
--        skipped (refused by robots.txt, noindex'ed redirects, out of policy).
CREATE TABLE frontier (
  id              INTEGER PRIMARY KEY,
  url             TEXT    NOT NULL UNIQUE,
  origin          TEXT    NOT NULL,
  seed_id         INTEGER NOT NULL REFERENCES seeds(id) ON DELETE CASCADE,
  depth           INTEGER NOT NULL,             -- links followed from the seed to reach this URL
  state           TEXT    NOT NULL DEFAULT 'queued'
                  CHECK (state IN ('queued', 'leased', 'done', 'failed', 'skipped')),
  lease_owner     TEXT,                         -- crawler run that leased it (a dead run's leases are returned)
  leased_at       INTEGER,
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  redirects       INTEGER NOT NULL DEFAULT 0,   -- hops taken to reach this URL through redirects
  inlinks         INTEGER NOT NULL DEFAULT 0,   -- distinct pages seen linking here (a ranking signal)
  discovered_at   INTEGER NOT NULL,
  finished_at     INTEGER
);
CREATE INDEX frontier_state_origin ON frontier (state, origin);
CREATE INDEX frontier_seed_state ON frontier (seed_id, state);
CREATE INDEX frontier_origin_state ON frontier (origin, state);

CREATE TABLE hosts (
  origin              TEXT    PRIMARY KEY,      -- scheme://host[:port]
  host                TEXT    NOT NULL,         -- host with port when not default (what the API shows)
  robots_status       TEXT    NOT NULL DEFAULT 'pending'
                      CHECK (robots_status IN ('pending', 'ok', 'allow-all', 'unreachable')),
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
  updated_at          INTEGER NOT NULL
);

-- What was fetched. One row per frontier URL (url is unique, so a re-crawl replaces, never duplicates).
CREATE TABLE pages (
  id             INTEGER PRIMARY KEY,
  url            TEXT    NOT NULL UNIQUE,
  final_url      TEXT    NOT NULL,
  origin         TEXT    NOT NULL,
  host           TEXT    NOT NULL,
  seed_id        INTEGER REFERENCES seeds(id) ON DELETE SET NULL,
  status         INTEGER NOT NULL,
  content_type   TEXT,
  title          TEXT    NOT NULL DEFAULT '',
  description    TEXT    NOT NULL DEFAULT '',
  headings       TEXT    NOT NULL DEFAULT '',   -- h1-h3, one per line
  body           TEXT    NOT NULL DEFAULT '',   -- readable text, never HTML
  lang           TEXT,
  canonical      TEXT,
  fetched_at     INTEGER NOT NULL,
  etag           TEXT,
  last_modified  TEXT,
  content_hash   TEXT,
  noindex        INTEGER NOT NULL DEFAULT 0,
  nofollow       INTEGER NOT NULL DEFAULT 0,
  indexed        INTEGER NOT NULL DEFAULT 1,    -- 0: kept for bookkeeping but out of search (noindex, 404, 410)
  seq            INTEGER NOT NULL               -- bumped on every write; the search index's cursor
);
CREATE INDEX pages_seq ON pages (seq);
CREATE INDEX pages_origin ON pages (origin);
CREATE INDEX pages_seed ON pages (seed_id);
