-- Removing a seed. The server, which writes only what users submit, marks the seed removed
-- (removed_at, with updated_at so that the crawler's cursor over seeds sees the change). The crawler
-- primary, the single writer of frontier and pages, then drops the seed's URLs, takes its pages out of
-- search, and deletes the seed row. A removed seed is listed nowhere; submitting its URL again
-- brings it back as a new seed.
ALTER TABLE seeds ADD COLUMN removed_at INTEGER;

-- A removed seed's pages stay as tombstones (indexed = 0, body dropped, seq bumped), because the
-- server's title index follows the pages table by seq and must see them leave; removed = 1 keeps them
-- out of the page count. Storing the URL again (another seed finds it) brings the row back.
ALTER TABLE pages ADD COLUMN removed INTEGER NOT NULL DEFAULT 0;
CREATE INDEX pages_removed ON pages (id) WHERE removed = 1;
