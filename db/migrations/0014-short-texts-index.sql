-- Suggestions read the titles and headings of a few dozen pages per keystroke (server/search/completions.ts):
-- from this covering index (a few MB per 100k pages, dense) rather than from the wide rows with their bodies.
CREATE INDEX pages_short_texts ON pages (id, indexed, url, host, title, headings, link_density);
