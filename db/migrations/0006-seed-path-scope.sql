-- The 'path' scope: a seed whose crawl keeps to its own folder of its host (docs/ of a site, say).
-- seeds.scope keeps its CHECK (changing a CHECK means rebuilding the table, which its foreign keys
-- make unsafe), so a 'path' seed is stored as scope 'host' with path_only = 1; db/seeds.ts reads and
-- writes it as scope 'path', and nothing else sees the difference.
ALTER TABLE seeds ADD COLUMN path_only INTEGER NOT NULL DEFAULT 0;
