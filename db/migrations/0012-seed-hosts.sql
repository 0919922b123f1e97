-- Hosts per seed (CRAWL_MAX_HOSTS_PER_SEED): a site that mints host names without end (wildcard DNS:
-- a1.example.org, a2.example.org, ...) must not take a seed's crawl to endless hosts.
--
-- The hosts a seed reached are the distinct origins of the frontier URLs it owns; at start the crawler
-- primary reads them through this index (one covering scan, about 0.5 s per million URLs, instead of a
-- sort of the whole frontier, about 6 s), together with each host's URL count for the per-host budget.
CREATE INDEX frontier_seed_origin ON frontier (seed_id, origin);

-- What the Seeds view says of each seed's hosts, written by the crawler primary in its write batches: how
-- many hosts the seed's URLs are on, and the links to further hosts it did not follow once it had reached
-- the limit (how many, the last such host, and when). A removed seed's row goes with it.
CREATE TABLE seed_hosts (
  seed_id          INTEGER PRIMARY KEY REFERENCES seeds (id) ON DELETE CASCADE,
  hosts            INTEGER NOT NULL DEFAULT 0,
  refused          INTEGER NOT NULL DEFAULT 0,
  refused_example  TEXT,
  refused_at       INTEGER
);
