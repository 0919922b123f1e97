-- The full-text entries of new rows are written by the writer itself, at the end of its transaction
-- (db/pages.ts writeSearchEntries, db/link-targets.ts writeGathered), no longer by AFTER INSERT triggers.
--
-- Why: FTS5 writes the entries it holds in memory to disk as a new segment at every statement savepoint,
-- and SQLite opens one for each write statement that fires triggers inside a transaction. With a trigger
-- per row, a batch of 20 pages wrote 20 segments per index (each page its own), which FTS5's automatic
-- merge then merged again: measured on the crawl benchmark's pages, most of the crawler primary's CPU for
-- storing a page. Written back to back after the batch's other statements, in ascending rowids, the
-- entries of a whole batch become one segment.
--
-- The UPDATE and DELETE triggers of pages stay (0002): a re-crawl, a page gone or a removed seed's page
-- changes a row already indexed. link_targets' UPDATE trigger goes too: only link-targets.ts writes the
-- table, and it writes anchors_fts for what it changed.
DROP TRIGGER pages_search_insert;
DROP TRIGGER link_targets_insert;
DROP TRIGGER link_targets_update;
