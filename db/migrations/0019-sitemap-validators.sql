-- What a sitemap last answered, so that the next read of it is conditional: its ETag and Last-Modified
-- (sent back as If-None-Match / If-Modified-Since, so an unchanged sitemap costs its site a 304), and, for
-- a sitemap index, the sitemaps it listed (JSON array), which a 304 does not repeat but the refresh still
-- reads (each conditionally too). A urlset's entries need no copy here: its pages are in the frontier and
-- their <lastmod>s in revisits. Written by the crawler primary in its batches; one row per sitemap URL.
CREATE TABLE sitemap_validators (
  url            TEXT PRIMARY KEY,
  etag           TEXT,
  last_modified  TEXT,
  children       TEXT
) WITHOUT ROWID;
