-- Browsing by operator (server/search/filter-browse.ts: `site:host`, `label:x` or `filetype:pdf` alone) lists the
-- searchable pages a filter selects, newest first. Without an index on fetched_at that read and sorted every row of
-- the wide pages table: 5-47 s a query at 1M pages. This partial index is in that order and holds every column the
-- filters test (host for site:, file_type for filetype:, seed_id and url for label:), so a listing walks it newest
-- first and stops at its LIMIT, and a count reads only it, never a row with its body.
CREATE INDEX pages_browse ON pages (fetched_at, id, host, file_type, seed_id, url) WHERE indexed = 1;
