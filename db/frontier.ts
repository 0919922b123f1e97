import type { Database } from 'better-sqlite3';

/** A seed's crawl as the refresh rule sees it. */
export interface SeedCrawl {
  seedId: number;
  /** When the seed's own page was last fetched (or given up on); null if never. */
  lastFetchedAt: number | null;
  /** Whether URLs of this seed are still queued or in flight (its crawl is not over). */
  pending: boolean;
}

/** A URL waiting to be fetched (or leased to a worker), as the crawler primary loads it. */
export interface FrontierRow {
  id: number;
  url: string;
  origin: string;
  seedId: number;
  depth: number;
  attempts: number;
  nextAttemptAt: number;
  redirects: number;
  /** 1 if the URL was finished before (fetched, failed or skipped) and is queued again: only then can a page of it be stored. */
  finishedBefore: number;
}

const ROW = `id, url, origin, seed_id AS seedId, depth, attempts, next_attempt_at AS nextAttemptAt, redirects,
  finished_at IS NOT NULL AS finishedBefore`;

/** Prepared statements for the URL frontier, created once per connection (the crawler primary's). */
export function frontierQueries(db: Database) {
  const insert = db.prepare(
    `INSERT INTO frontier (url, origin, seed_id, depth, redirects, discovered_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (url) DO NOTHING RETURNING ${ROW}`,
  );
  const seenAgain = db.prepare(`UPDATE frontier SET inlinks = inlinks + 1 WHERE url = ?`);
  const pending = db.prepare(`SELECT ${ROW} FROM frontier WHERE state IN ('queued', 'leased') ORDER BY id`);
  const returnLeases = db.prepare(`UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL WHERE state = 'leased'`);
  const lease = db.prepare(`UPDATE frontier SET state = 'leased', lease_owner = ?, leased_at = ? WHERE id = ?`);
  const unlease = db.prepare(`UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL WHERE id = ? AND state = 'leased'`);
  const finish = db.prepare(
    `UPDATE frontier SET state = ?, last_error = ?, attempts = attempts + ?, finished_at = ?, lease_owner = NULL, redirect_to = ?
     WHERE id = ?`,
  );
  const redirectOf = db.prepare(`SELECT redirect_to AS target FROM frontier WHERE url = ? AND redirect_to IS NOT NULL`);
  const failLoop = db.prepare(
    `UPDATE frontier SET state = 'failed', last_error = ? WHERE url = ? AND state = 'done' AND redirect_to IS NOT NULL`,
  );
  const originCounts = db.prepare(`SELECT origin, COUNT(*) AS n FROM frontier GROUP BY origin`);
  // A covering scan of frontier_seed_origin (migration 0012).
  const seedOriginCounts = db.prepare(`SELECT seed_id AS seedId, origin, COUNT(*) AS n FROM frontier GROUP BY seed_id, origin`);
  const retry = db.prepare(
    `UPDATE frontier SET state = 'queued', attempts = ?, next_attempt_at = ?, last_error = ?, lease_owner = NULL WHERE id = ?`,
  );
  // A finished URL queued again starts afresh: no attempts spent, due at once, no old error or redirect.
  const queuedAgain = `state = 'queued', attempts = 0, next_attempt_at = 0, last_error = NULL, redirect_to = NULL`;
  const finished = `state IN ('done', 'failed', 'skipped')`;
  const requeue = db.prepare(
    `UPDATE frontier SET ${queuedAgain}, depth = ?, seed_id = ? WHERE url = ? AND ${finished} RETURNING ${ROW}`,
  );
  const requeueOfSeed = db.prepare(
    `UPDATE frontier SET ${queuedAgain} WHERE seed_id = ? AND depth <= ? AND ${finished} RETURNING ${ROW}`,
  );
  const requeueById = db.prepare(`UPDATE frontier SET ${queuedAgain} WHERE id = ? AND ${finished} RETURNING ${ROW}`);
  const byUrl = db.prepare(`SELECT ${ROW}, state FROM frontier WHERE url = ?`);
  const seedCrawls = db.prepare(
    `SELECT s.id AS seedId, f.finished_at AS lastFetchedAt,
       EXISTS (SELECT 1 FROM frontier p WHERE p.seed_id = s.id AND p.state IN ('queued', 'leased')) AS pending
     FROM seeds s LEFT JOIN frontier f ON f.url = s.url`,
  );
  const counts = db.prepare(`SELECT origin, state, COUNT(*) AS n FROM frontier GROUP BY origin, state`);
  const seedOrigins = db.prepare(`SELECT origin, COUNT(*) AS n FROM frontier WHERE seed_id = ? GROUP BY origin`);
  const dropOfSeed = db.prepare(`DELETE FROM frontier WHERE seed_id = ?`);

  return {
    /** Adds a URL if it is new (returning its row); a known URL just gains an inlink. */
    addUrl(u: { url: string; origin: string; seedId: number; depth: number; redirects: number }, now: number): FrontierRow | undefined {
      const row = insert.get(u.url, u.origin, u.seedId, u.depth, u.redirects, now) as FrontierRow | undefined;
      if (!row) seenAgain.run(u.url);
      return row;
    },
    /** A link to a URL the frontier may already hold: if known, it gains an inlink (true); else nothing happens (false). */
    touchUrl(url: string): boolean {
      return seenAgain.run(url).changes > 0;
    },
    /** Every URL still to do, including those leased by a crawler run that died. */
    pendingUrls(): FrontierRow[] {
      return pending.all() as FrontierRow[];
    },
    /** Puts every leased URL back in the queue (at start: their worker or primary is gone). */
    returnAllLeases(): number {
      return returnLeases.run().changes;
    },
    /** Marks a URL as handed to a worker by crawler run `owner`. */
    leaseUrl(id: number, owner: string, now: number): void {
      lease.run(owner, now, id);
    },
    /** Returns one leased URL to the queue (its worker died, or the crawl is stopping). */
    returnLease(id: number): void {
      unlease.run(id);
    },
    /** Ends a URL's life: done (stored or recorded), failed (gave up) or skipped (refused by policy). */
    finishUrl(id: number, state: 'done' | 'failed' | 'skipped', error: string | null, now: number, countAttempt = true): void {
      finish.run(state, error, countAttempt ? 1 : 0, now, null, id);
    },
    /**
     * Ends a URL that answered with a redirect to `target`, remembering the target: done (the target is a
     * URL of its own), or failed (a redirect loop).
     */
    finishRedirect(id: number, target: string, note: string, now: number, state: 'done' | 'failed' = 'done'): void {
      finish.run(state, note, 1, now, target, id);
    },
    /** Where a URL redirected to the last time it was fetched, if it did. */
    redirectTarget(url: string): string | undefined {
      return (redirectOf.get(url) as { target: string } | undefined)?.target;
    },
    /** Marks a URL that redirected as part of a redirect loop: failed, with `message`. */
    failRedirectLoop(url: string, message: string): void {
      failLoop.run(message, url);
    },
    /** Schedules another attempt of a URL at `nextAttemptAt`. */
    retryUrl(id: number, attempts: number, nextAttemptAt: number, error: string): void {
      retry.run(attempts, nextAttemptAt, error, id);
    },
    /** Queues a finished URL again (a re-submitted seed), returning its row if it was finished. */
    requeueUrl(url: string, depth: number, seedId: number): FrontierRow | undefined {
      return requeue.get(depth, seedId, url) as FrontierRow | undefined;
    },
    /**
     * Queues again every finished URL that `seedId` found at most `maxDepth` links from it (a re-submitted
     * seed is a request to refresh what it found), returning their rows. Failed URLs get fresh attempts.
     */
    requeueSeed(seedId: number, maxDepth: number): FrontierRow[] {
      return requeueOfSeed.all(seedId, maxDepth) as FrontierRow[];
    },
    /** Queues one finished URL again, keeping its seed and depth (a page due for its revisit); its row if it was finished. */
    requeueFinished(id: number): FrontierRow | undefined {
      return requeueById.get(id) as FrontierRow | undefined;
    },
    /** Per seed: when its own URL was last finished, and whether URLs it found are still to do (crawler/frontier/refresh.ts). */
    seedCrawls(): SeedCrawl[] {
      return (seedCrawls.all() as Array<{ seedId: number; lastFetchedAt: number | null; pending: number }>)
        .map((r) => ({ seedId: r.seedId, lastFetchedAt: r.lastFetchedAt, pending: r.pending === 1 }));
    },
    /** Deletes every URL of a removed seed (leased ones too: their results are dropped); returns how many per host. */
    dropSeed(seedId: number): Array<{ origin: string; n: number }> {
      const dropped = seedOrigins.all(seedId) as Array<{ origin: string; n: number }>;
      dropOfSeed.run(seedId);
      return dropped;
    },
    /** One URL's row and state, if known. */
    urlByUrl(url: string): (FrontierRow & { state: string }) | undefined {
      return byUrl.get(url) as (FrontierRow & { state: string }) | undefined;
    },
    /** How many URLs (in any state) each host has, for the per-host URL budget. */
    urlCountsByOrigin(): Array<{ origin: string; n: number }> {
      return originCounts.all() as Array<{ origin: string; n: number }>;
    },
    /**
     * How many URLs each seed owns on each host: summed per host, the per-host URL budget; per seed, the
     * hosts it reached (the per-seed host budget). One scan for both, at start.
     */
    urlCountsBySeedAndOrigin(): Array<{ seedId: number; origin: string; n: number }> {
      return seedOriginCounts.all() as Array<{ seedId: number; origin: string; n: number }>;
    },
    /** URL counts by host and state (for /api/domains after a restart). */
    countsByOrigin(): Array<{ origin: string; state: string; n: number }> {
      return counts.all() as Array<{ origin: string; state: string; n: number }>;
    },
  };
}
