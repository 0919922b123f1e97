-- What a page's robots directives (meta robots, X-Robots-Tag) allow Lantern to show of it, beyond
-- indexing: noarchive (or nocache) = searchable, but its stored text is not shown; nosnippet =
-- searchable, but no text of it appears in results (title and address only).
ALTER TABLE pages ADD COLUMN noarchive INTEGER NOT NULL DEFAULT 0;
ALTER TABLE pages ADD COLUMN nosnippet INTEGER NOT NULL DEFAULT 0;
