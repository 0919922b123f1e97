-- Each fetched page's revisit interval (crawler/frontier/revisit.ts): a page unchanged at a visit waits
-- longer before the periodic refresh asks for it again (doubling up to CRAWL_REVISIT_MAX), a page that
-- changed waits shorter. One row per URL fetched at least once since this table exists; a URL without one
-- is due at every refresh, as before. Times are Unix epoch milliseconds.
CREATE TABLE revisits (
  url             TEXT    PRIMARY KEY,
  interval_ms     INTEGER NOT NULL,
  checked_at      INTEGER NOT NULL,  -- last time the page was judged: a request, or its sitemap's lastmod standing for one
  visited_at      INTEGER NOT NULL,  -- last request to it
  content_hash    TEXT,              -- of the text seen at that request: a different one next time means it changed
  changed_count   INTEGER NOT NULL DEFAULT 0,
  unchanged_count INTEGER NOT NULL DEFAULT 0,
  sitemap_lastmod INTEGER            -- the <lastmod> its sitemap gave when last read, if any
) WITHOUT ROWID;
