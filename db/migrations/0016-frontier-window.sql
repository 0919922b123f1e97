-- The frontier lives on disk; the crawler primary keeps in memory only a short window of each host's
-- queue (crawler/frontier/frontier-window.ts) and reads the next rows as the window empties. This index
-- is that read: a host's queued URLs in queue order (due at once first, in the order they were found,
-- then retries by next_attempt_at), so a refill seeks to where the window ends and reads a few entries,
-- whatever the size of the frontier. Partial: finished URLs (most of a crawl's rows) are not in it, and
-- at start it counts each host's queued URLs with one covering scan.
CREATE INDEX frontier_queue ON frontier (origin, next_attempt_at, id) WHERE state = 'queued';
