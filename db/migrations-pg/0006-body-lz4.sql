-- A page's text is compressed with lz4 rather than PostgreSQL's default pglz: storing a page's body (tens of KB)
-- was about two thirds of the server's CPU per stored page (1.4-1.7 ms; 0.6 ms with no compression at all, at
-- 3.3x the table's size: docs/benchmarks.md, part 2b), and lz4 compresses several times faster at a similar
-- ratio for text. It applies to values written from now on; older ones are read as they were written.
-- A server built without lz4 (configure --without-lz4) answers feature_not_supported: its pages keep pglz,
-- which is only slower, so the migration goes on rather than refusing the database.
DO $$
BEGIN
  ALTER TABLE pages ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'lantern 0006: this PostgreSQL has no lz4; page bodies stay compressed with pglz';
END
$$;
