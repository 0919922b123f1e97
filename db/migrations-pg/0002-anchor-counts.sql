-- As SQLite's 0021 (db/migrations/0021-anchor-counts.sql): a count per anchor text of a link target, one number
-- per line of `anchors`, space-separated, so that a target keeps the texts most pages use (db/link-targets.ts).
ALTER TABLE link_targets ADD COLUMN anchor_counts TEXT NOT NULL DEFAULT '';
