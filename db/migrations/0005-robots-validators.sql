-- The ETag and Last-Modified a host's robots.txt came with, so that its daily refresh is a
-- conditional request: an unchanged robots.txt costs the site a 304, and the stored rules stay.
ALTER TABLE hosts ADD COLUMN robots_etag TEXT;
ALTER TABLE hosts ADD COLUMN robots_last_modified TEXT;
