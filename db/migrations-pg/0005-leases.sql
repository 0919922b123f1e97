-- Many crawler nodes on one PostgreSQL (issue 29, docs/scaling.md "Many crawler nodes"): every politeness group
-- (crawler/politeness/politeness-group.ts) has exactly one arbiter at a time, by a lease row per group.
--
-- * Every time here is the database's (timestamptz, now()): nodes never compare their own clocks with each other's
--   or with the database's. A node hands in a time as milliseconds from the statement (now() + interval) and reads
--   one as milliseconds from the statement's now() (db/pg/pg-leases.ts), and converts on its monotonic clock
--   (crawler/cluster/lease-clock.ts), always in the direction that waits longer.
-- * crawl_nodes: one row per crawler node: when it started, its last heartbeat, what it is doing, and when it left
--   cleanly (a node that died keeps its row; its heartbeat ages, and its leases expire). Rows are never deleted,
--   so a lease's owner always names one.
-- * group_leases: one row per politeness group. owner and expires_at: who arbitrates the group and until when (the
--   database's clock); a free group has no owner. epoch: raised at every take, the fencing token every write of a
--   result is checked against (assertLeaseHeld). taken_at: since when the owner holds it (Domains shows it).
-- * The group's clock, so that a new owner continues it without a burst: next_start_at (no request of the group
--   starts before it; a new group is due at once), gap_ms (the delay its owner kept after each request: max of the default delay, its hosts'
--   Crawl-delay and pacing; a takeover after an expiry waits that long past the old lease's end, since a request of
--   the old owner may have run until then), crawl_delay_ms (the longest robots.txt Crawl-delay of its hosts),
--   backoff_until / backoff_ms / backoff_reason (the group's backoff after a 429 or 503, crawler/politeness/
--   backoff.ts; null: none), and pacing (crawler/politeness/pacing.ts Pace: pace_response_ms, pace_slowdown, pace_strained).
-- * has_work: whether the group has queued URLs, as its owner (or the node that queued them) last wrote it. Takes
--   consider only groups with work, so an idle group costs nothing; the frontier itself does not know groups (they
--   depend on CRAWL_POLITENESS_GROUP), so this flag is the cheap way to find them.
-- * Indexes for a take: free groups with work, soonest due first (group_leases_free), and held groups by expiry
--   (group_leases_expiry), so that a take reads the head of one index and the expired range of the other, never
--   every held group.
CREATE TABLE crawl_nodes (
  node_id       TEXT        PRIMARY KEY,
  started_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
  heartbeat_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
  doing         TEXT        NOT NULL DEFAULT '',
  left_at       TIMESTAMPTZ
);
CREATE INDEX crawl_nodes_live ON crawl_nodes (heartbeat_at) WHERE left_at IS NULL;

CREATE TABLE group_leases (
  group_key         TEXT        PRIMARY KEY,
  owner             TEXT        REFERENCES crawl_nodes (node_id),
  expires_at        TIMESTAMPTZ,
  taken_at          TIMESTAMPTZ,
  epoch             BIGINT      NOT NULL DEFAULT 0,
  has_work          BOOLEAN     NOT NULL DEFAULT true,
  next_start_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  gap_ms            BIGINT      NOT NULL DEFAULT 0 CHECK (gap_ms >= 0),
  crawl_delay_ms    BIGINT      CHECK (crawl_delay_ms >= 0),
  backoff_until     TIMESTAMPTZ,
  backoff_ms        BIGINT      NOT NULL DEFAULT 0 CHECK (backoff_ms >= 0),
  backoff_reason    TEXT        CHECK (backoff_reason IN ('backoff', 'retry-after')),
  pace_response_ms  DOUBLE PRECISION,
  pace_slowdown     INTEGER     NOT NULL DEFAULT 1 CHECK (pace_slowdown >= 1),
  pace_strained     INTEGER     NOT NULL DEFAULT 0 CHECK (pace_strained >= 0),
  CHECK ((owner IS NULL) = (expires_at IS NULL))
);
CREATE INDEX group_leases_free ON group_leases (next_start_at, group_key) WHERE owner IS NULL AND has_work;
CREATE INDEX group_leases_expiry ON group_leases (expires_at) WHERE owner IS NOT NULL;
CREATE INDEX group_leases_owner ON group_leases (owner) WHERE owner IS NOT NULL;
