-- How the last crawler primary stopped. A primary keeps each request's start and lease in memory and
-- writes them with its next batch (not in a transaction of their own before the request goes out), so
-- a primary killed between two batches may leave requests it sent unrecorded. `clean` is 1 once a
-- primary stopped after storing everything (its last batch sets it); a starting primary reads it and
-- sets it to 0. After an unclean stop the new primary counts every host due by then as contacted at its
-- restart (`contacted_by`, kept until a later unclean restart replaces it), so no host is asked again
-- sooner than its delay after a request the lost batch forgot (crawler/politeness/host-book.ts restore).
-- One row. A new database, or one written by a primary that wrote every start at once, starts clean.
CREATE TABLE crawler_stop (
  id            INTEGER PRIMARY KEY CHECK (id = 1),
  clean         INTEGER NOT NULL CHECK (clean IN (0, 1)),
  contacted_by  INTEGER
);
INSERT INTO crawler_stop (id, clean, contacted_by) VALUES (1, 1, NULL);
