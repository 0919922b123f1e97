-- Ranking signals from links (server/search): what a page's text is made of, and what other pages say
-- of it.
--
-- pages.link_density: the share of a page's text that is the text of links (0..1; NULL for a page
-- stored before this migration, until it is fetched again). Pages that are mostly links (tables of
-- contents, indexes, site maps) contain the words of every page they list; search ranks them below
-- the pages they link to.
--
-- link_targets: one row per URL that a stored page links to from its content (not from navigation,
-- header, footer or sidebars; see crawler/extract/extract.ts), whether or not that URL is crawled.
-- `inlinks` counts the distinct pages seen linking to it, `sources` holds their page ids (u32
-- little-endian, so a page fetched again is not counted twice), `anchors` the distinct words of
-- those links (anchor text), one per line. db/link-targets.ts keeps all three bounded, whatever a
-- hostile site links: MAX_SOURCES ids, MAX_ANCHORS texts of at most ANCHOR_MAX_WORDS words each.
-- anchors_fts indexes `anchors` as a field of the page whose url it is (search joins on pages.url).
ALTER TABLE pages ADD COLUMN link_density REAL;

CREATE TABLE link_targets (
  id       INTEGER PRIMARY KEY,
  url      TEXT    NOT NULL UNIQUE,
  inlinks  INTEGER NOT NULL DEFAULT 0,
  sources  BLOB    NOT NULL DEFAULT x'',
  anchors  TEXT    NOT NULL DEFAULT ''
);

CREATE VIRTUAL TABLE anchors_fts USING fts5(
  anchors,
  content = 'link_targets', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TRIGGER link_targets_insert AFTER INSERT ON link_targets WHEN new.anchors <> '' BEGIN
  INSERT INTO anchors_fts (rowid, anchors) VALUES (new.id, new.anchors);
END;

CREATE TRIGGER link_targets_update AFTER UPDATE OF anchors ON link_targets WHEN old.anchors IS NOT new.anchors BEGIN
  INSERT INTO anchors_fts (anchors_fts, rowid, anchors) SELECT 'delete', old.id, old.anchors WHERE old.anchors <> '';
  INSERT INTO anchors_fts (rowid, anchors) SELECT new.id, new.anchors WHERE new.anchors <> '';
END;

CREATE TRIGGER link_targets_delete AFTER DELETE ON link_targets WHEN old.anchors <> '' BEGIN
  INSERT INTO anchors_fts (anchors_fts, rowid, anchors) VALUES ('delete', old.id, old.anchors);
END;

