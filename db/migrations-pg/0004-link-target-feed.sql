-- Link targets reach the search copy through the change feed as pages do (db/pg/pg-change-feed.ts, docs/scaling.md):
-- the ranking reads their inlinks and anchor text (anchors_fts), which on PostgreSQL only link_targets holds.
--
-- * link_targets.change_xid / change_seq: the transaction that last wrote the row and a value of pages' own sequence
--   (pages_change_seq), so that pages, their tombstones and link targets lie on ONE (change_xid, change_seq) clock
--   and a copy follows all three past one cursor, under 0003's in-flight rule (read only below
--   pg_snapshot_xmin(pg_current_snapshot())). One cursor rather than one per table: a chunk is one ordered read
--   and one SQLite transaction, and a copy's state stays one row. Rows written before this migration get a value
--   of the sequence and this migration's transaction id (not 0): a copy made before it stands at a cursor below
--   that id, so it takes every existing target on its next read, without a rebuild.
-- * No tombstones: nothing deletes link_targets (a target's row only grows within its bounds, db/link-targets.ts);
--   a row deleted by hand stays in the copies until they are rebuilt (remove DATA_DIR/search-copy).
-- * No two changes of one transaction share a (change_xid, change_seq): the reader's cursor steps past a pair, so
--   the second of a tie would never be read. Values drawn from the sequence never tie; but a pages insert may
--   carry its own change_seq (db/pg/copy-from-sqlite.ts keeps SQLite's seq, in the same transaction that then
--   inserts the link targets). So pages_next_change now moves the sequence past any change_seq an insert brings,
--   and the link targets of that transaction draw values above every page's.
-- * NOTIFY lantern_pages after each statement that writes link targets: the channel the copy's feed listens on.
ALTER TABLE link_targets ADD COLUMN change_seq BIGINT NOT NULL DEFAULT nextval('pages_change_seq');
ALTER TABLE link_targets ADD COLUMN change_xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX link_targets_change_feed ON link_targets (change_xid, change_seq);

-- An insert keeps the value its default drew; an update draws a new one. Both record their transaction.
CREATE FUNCTION link_targets_next_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    NEW.change_seq := nextval('pages_change_seq');
  END IF;
  NEW.change_xid := pg_current_xact_id();
  RETURN NEW;
END;
$$;
CREATE TRIGGER link_targets_change BEFORE INSERT OR UPDATE ON link_targets
  FOR EACH ROW EXECUTE FUNCTION link_targets_next_change();

-- As 0003's, and an insert's own change_seq past the sequence moves the sequence there (see the tie above).
CREATE OR REPLACE FUNCTION pages_next_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    NEW.change_seq := nextval('pages_change_seq');
  ELSIF NEW.change_seq > coalesce(pg_sequence_last_value('pages_change_seq'), 0) THEN
    PERFORM setval('pages_change_seq', NEW.change_seq);
  END IF;
  NEW.change_xid := pg_current_xact_id();
  RETURN NEW;
END;
$$;

CREATE TRIGGER link_targets_changed AFTER INSERT OR UPDATE ON link_targets
  FOR EACH STATEMENT EXECUTE FUNCTION pages_notify();
