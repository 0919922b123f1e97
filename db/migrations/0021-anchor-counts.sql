-- Link targets keep the anchor texts most pages use, not the first ones found (db/link-targets.ts, the
-- Space-Saving rule): a count per text, one number per line of `anchors`, space-separated. Rows written before
-- have none: each of their texts counts as used once.
ALTER TABLE link_targets ADD COLUMN anchor_counts TEXT NOT NULL DEFAULT '';
