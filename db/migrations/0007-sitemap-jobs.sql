-- Sitemap jobs waiting or in flight, so that a restart (or a killed primary) reads the sitemaps it had
-- not read yet instead of forgetting them until the host's next robots.txt. A row is written when its
-- job is queued (in the same write batch as the robots.txt or sitemap index that listed it) and deleted
-- when the job is over (read, failed, or dropped); jobs in flight at a clean stop keep their rows.
-- A removed seed's jobs go with its row.
CREATE TABLE sitemap_jobs (
  id        INTEGER PRIMARY KEY,  -- queue order
  url       TEXT NOT NULL UNIQUE,
  origin    TEXT NOT NULL,
  seed_id   INTEGER NOT NULL REFERENCES seeds (id) ON DELETE CASCADE,
  hops      INTEGER NOT NULL,  -- 0: listed by robots.txt; 1: listed by a sitemap index
  redirects INTEGER NOT NULL   -- redirects that led to this URL
);
CREATE INDEX sitemap_jobs_seed ON sitemap_jobs (seed_id);
