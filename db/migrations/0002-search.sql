-- Search: full-text indexes over the pages table, kept in sync by triggers so that whoever writes
-- pages (the crawler primary, in its own transaction) updates the index in that same transaction.
--
-- pages_fts: the main index. External content (content='pages'), so page text is stored once (in
-- pages) and snippet()/highlight() read it from there. Tokenizer: porter stemming over unicode61 with
-- diacritics removed, so "running" finds "runs" and "cafe" finds "café". unicode61 splits on "_" and
-- "-", so `capture_output` is indexed as the adjacent pair capture, output: a quoted query finds it as
-- a phrase (and also finds prose saying "capture output").
--
-- pages_idents: the exact-identifier index. upsertPage (db/pages.ts) stores in pages.idents the
-- distinct words of the page that contain "_" or "-" (capture_output, git-rebase, __init__,
-- well-known), and this table indexes them unstemmed with "_" and "-" as token characters, so an
-- identifier typed by a person can be matched exactly and ranked above prose that merely contains
-- its parts. It holds only those words, so it is a small fraction of pages_fts (a second full
-- unstemmed copy of every body would double the index for the sake of a few tokens).
--
-- No prefix index (prefix = '...'): the search API asks FTS5 for a prefix only from 4 letters on,
-- and only when pages_fts_vocab shows it starts few words (server/search/search-service.ts); a
-- 3-letter prefix index measured +44 % database size, and its posting lists were still too long
-- for per-row lookups (50 ms each at 100k pages). Short prefixes are the title index's job.
--
-- Only rows with indexed = 1 are in either index. An UPDATE re-indexes a row only when its text or
-- its indexed flag changed (a re-crawl with identical text costs nothing), and removes the old
-- entry before adding the new one (external-content deletes need the old values, which the trigger
-- has). An UPDATE that sets indexed = 0 (noindex, 404, 410) removes the row from the index.

ALTER TABLE pages ADD COLUMN idents TEXT NOT NULL DEFAULT '';

-- countPages() counts pages and indexed pages from this small index instead of the wide rows.
CREATE INDEX pages_indexed ON pages (indexed);

CREATE VIRTUAL TABLE pages_fts USING fts5(
  title, headings, description, body,
  content = 'pages', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
-- The indexed words (stems) and how many pages hold each: lets search see what a prefix expands to.
CREATE VIRTUAL TABLE pages_fts_vocab USING fts5vocab(pages_fts, 'row');
-- ORDER BY rank = bm25 with column weights: title 10, headings 5, description 3, body 1.
INSERT INTO pages_fts (pages_fts, rank) VALUES ('rank', 'bm25(10.0, 5.0, 3.0, 1.0)');

CREATE VIRTUAL TABLE pages_idents USING fts5(
  idents,
  content = 'pages', content_rowid = 'id',
  tokenize = "unicode61 remove_diacritics 2 tokenchars '_-'"
);

CREATE TRIGGER pages_search_insert AFTER INSERT ON pages WHEN new.indexed = 1 BEGIN
  INSERT INTO pages_fts (rowid, title, headings, description, body)
    VALUES (new.id, new.title, new.headings, new.description, new.body);
  INSERT INTO pages_idents (rowid, idents) VALUES (new.id, new.idents);
END;

CREATE TRIGGER pages_search_delete AFTER DELETE ON pages WHEN old.indexed = 1 BEGIN
  INSERT INTO pages_fts (pages_fts, rowid, title, headings, description, body)
    VALUES ('delete', old.id, old.title, old.headings, old.description, old.body);
  INSERT INTO pages_idents (pages_idents, rowid, idents) VALUES ('delete', old.id, old.idents);
END;

-- One trigger, so the delete of the old entry always runs before the insert of the new one.
CREATE TRIGGER pages_search_update
AFTER UPDATE OF id, title, headings, description, body, idents, indexed ON pages
WHEN old.indexed = 1 OR new.indexed = 1
BEGIN
  INSERT INTO pages_fts (pages_fts, rowid, title, headings, description, body)
    SELECT 'delete', old.id, old.title, old.headings, old.description, old.body
    WHERE old.indexed = 1 AND NOT (new.indexed = 1 AND new.id = old.id AND new.title IS old.title
      AND new.headings IS old.headings AND new.description IS old.description AND new.body IS old.body);
  INSERT INTO pages_fts (rowid, title, headings, description, body)
    SELECT new.id, new.title, new.headings, new.description, new.body
    WHERE new.indexed = 1 AND NOT (old.indexed = 1 AND new.id = old.id AND new.title IS old.title
      AND new.headings IS old.headings AND new.description IS old.description AND new.body IS old.body);
  INSERT INTO pages_idents (pages_idents, rowid, idents)
    SELECT 'delete', old.id, old.idents
    WHERE old.indexed = 1 AND NOT (new.indexed = 1 AND new.id = old.id AND new.idents IS old.idents);
  INSERT INTO pages_idents (rowid, idents)
    SELECT new.id, new.idents
    WHERE new.indexed = 1 AND NOT (old.indexed = 1 AND new.id = old.id AND new.idents IS old.idents);
END;

-- Pages stored before this migration (indexed ones only; idents start empty until re-crawled).
INSERT INTO pages_fts (rowid, title, headings, description, body)
  SELECT id, title, headings, description, body FROM pages WHERE indexed = 1;
