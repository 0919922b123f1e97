-- A result list reads each candidate's title, url, host, description, date and ranking signals
-- (server/search/fts-search.ts meta): from this covering index rather than from the wide rows with their
-- bodies (a page's row fills most of a 4 KB page, so each candidate was one page read, and a cold one after a
-- restart: at 1,000,000 pages the first searches spent 38 ms each there against 3 ms warm). The index is the
-- one suggestions already read (0014), widened, so a page write still updates one index, not two, and the
-- search warm-up (server/search/term-scan-thread.mjs) reads it whole at start.
DROP INDEX pages_short_texts;
CREATE INDEX pages_short_texts ON pages (
  id, indexed, url, host, title, headings, link_density,
  description, fetched_at, noarchive, nosnippet, content_hash
);
