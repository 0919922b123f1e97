-- The change feed each Lantern server's search copy reads (db/pg/pg-change-feed.ts, docs/scaling.md).
--
-- * pages.change_xid: the id of the transaction that last wrote the row (pg_current_xact_id(), xid8). A sequence
--   value is drawn when a row is written, not when its transaction commits, so a reader of `change_seq > cursor`
--   would step past a value a transaction still in flight holds and never see that row. The reader instead reads
--   in (change_xid, change_seq) order only rows whose transaction is below pg_snapshot_xmin(pg_current_snapshot()):
--   every transaction below it has finished, and every later write gets a transaction id at or above it, so
--   nothing can appear behind the cursor. Rows written before this migration keep change_xid 0 (finished).
-- * page_deletions: a DELETE of a pages row leaves a tombstone here (the row's id and url, drawn on the same
--   (xid, sequence) clock), so a deletion reaches the feed as any write does. A tombstone table, not a log of
--   every change: a page written a hundred times is read once (its row holds only its last write), and
--   deletions are rare (Lantern itself retires pages in place: removed = 1, indexed = 0). Tombstones are kept;
--   pruning them (say, those older than any copy's cursor) is not built yet.
-- * NOTIFY lantern_pages after each statement that writes pages or deletes one: a listening reader wakes at once
--   (delivered at commit, one per transaction); its poll is the fallback.
-- * lantern_instance: a random id drawn once per database, stored in each search copy, so that a copy made from
--   another database (even one of the same cluster, or one dropped and created again) is refused and rebuilt.
ALTER TABLE pages ADD COLUMN change_xid xid8 NOT NULL DEFAULT '0';
CREATE INDEX pages_change_feed ON pages (change_xid, change_seq);

-- An insert keeps the change_seq it was given (db/pg/copy-from-sqlite.ts keeps SQLite's seq) or draws one by
-- default; an update always draws a new one. Both record their transaction.
CREATE OR REPLACE FUNCTION pages_next_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' THEN
    NEW.change_seq := nextval('pages_change_seq');
  END IF;
  NEW.change_xid := pg_current_xact_id();
  RETURN NEW;
END;
$$;
DROP TRIGGER pages_change ON pages;
CREATE TRIGGER pages_change BEFORE INSERT OR UPDATE ON pages FOR EACH ROW EXECUTE FUNCTION pages_next_change();

CREATE TABLE page_deletions (
  page_id     BIGINT NOT NULL,
  url         TEXT   NOT NULL,
  change_xid  xid8   NOT NULL DEFAULT pg_current_xact_id(),
  change_seq  BIGINT NOT NULL DEFAULT nextval('pages_change_seq')
);
CREATE INDEX page_deletions_feed ON page_deletions (change_xid, change_seq);

CREATE FUNCTION pages_tombstone() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO page_deletions (page_id, url) VALUES (OLD.id, OLD.url);
  RETURN OLD;
END;
$$;
CREATE TRIGGER pages_deleted AFTER DELETE ON pages FOR EACH ROW EXECUTE FUNCTION pages_tombstone();

CREATE FUNCTION pages_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('lantern_pages', '');
  RETURN NULL;
END;
$$;
CREATE TRIGGER pages_changed AFTER INSERT OR UPDATE OR DELETE ON pages
  FOR EACH STATEMENT EXECUTE FUNCTION pages_notify();

CREATE TABLE lantern_instance (
  id          INTEGER PRIMARY KEY CHECK (id = 1),
  instance_id TEXT    NOT NULL
);
INSERT INTO lantern_instance (id, instance_id) VALUES (1, gen_random_uuid()::text);
