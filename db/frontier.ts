import type { Database } from 'better-sqlite3';

/** A seed's crawl as the refresh rule sees it. */
export interface SeedCrawl {
  seedId: number;
  /** The seed's origin (scheme://host[:port]): its site, whose refresh offset it shares. */
  origin: string;
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
  /**
   * For a URL finished before: the ETag and Last-Modified its stored page (a 2xx) was served with, for a
   * conditional re-fetch (null if none); the row brings them so that dispatch reads nothing. Null for a new URL.
   */
  etag: string | null;
  lastModified: string | null;
}

/** A stored 2xx page's column `col` for the frontier row's URL, looked up only for a URL finished before. */
const validator = (col: string) =>
  `CASE WHEN finished_at IS NOT NULL THEN
     (SELECT p.${col} FROM pages p WHERE p.url = frontier.url AND p.status BETWEEN 200 AND 299) END`;

const ROW = `id, url, origin, seed_id AS seedId, depth, attempts, next_attempt_at AS nextAttemptAt, redirects,
  finished_at IS NOT NULL AS finishedBefore, ${validator('etag')} AS etag, ${validator('last_modified')} AS lastModified`;

/**
 * One host's read of its queue (queuedAfterMany): its queued rows after (`nextAttemptAt`, `id`) in its queue
 * order, at most `limit`.
 */
export interface QueueRead {
  origin: string;
  nextAttemptAt: number;
  id: number;
  limit: number;
}

/** A URL deleted with its removed seed, as the crawler primary's window accounts for it. */
export interface DroppedUrl {
  id: number;
  origin: string;
  state: string;
  nextAttemptAt: number;
}

/** The states a finished URL can be in; a seed crawled again queues its URLs in these, one state after another. */
export const FINISHED_STATES = ['done', 'failed', 'skipped'] as const;
export type FinishedState = (typeof FINISHED_STATES)[number];

/** Prepared statements for the URL frontier, created once per connection (the crawler primary's). */
export function frontierQueries(db: Database) {
  const insert = db.prepare(
    `INSERT INTO frontier (url, origin, seed_id, depth, redirects, discovered_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (url) DO NOTHING RETURNING ${ROW}`,
  );
  const seenAgain = db.prepare(`UPDATE frontier SET inlinks = inlinks + 1 WHERE url = ?`);
  const known = db.prepare(`SELECT 1 FROM frontier WHERE url = ?`).pluck();
  // A host's queue order is (next_attempt_at, id) over its queued rows (index frontier_queue, migration 0016).
  // Reading on from a position takes two seeks: the rest of its next_attempt_at, then what comes after it
  // (a row value `(next_attempt_at, id) > (?, ?)` would seek on next_attempt_at alone and scan the rest).
  const queuedSameAt = db.prepare(
    `SELECT ${ROW} FROM frontier WHERE origin = ? AND state = 'queued' AND next_attempt_at = ? AND id > ? ORDER BY id LIMIT ?`,
  );
  const queuedLaterAt = db.prepare(
    `SELECT ${ROW} FROM frontier WHERE origin = ? AND state = 'queued' AND next_attempt_at > ? ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const queuedAfter = (origin: string, nextAttemptAt: number, id: number, limit: number): FrontierRow[] => {
    const rows = nextAttemptAt < 0 ? [] : (queuedSameAt.all(origin, nextAttemptAt, id, limit) as FrontierRow[]); // from the start: one seek
    if (rows.length < limit)
      for (const row of queuedLaterAt.all(origin, nextAttemptAt, limit - rows.length) as FrontierRow[]) rows.push(row);
    return rows;
  };
  const queuedOfOrigin = db.prepare(`SELECT COUNT(*) FROM frontier WHERE origin = ? AND state = 'queued'`).pluck();
  const returnLeases = db.prepare(
    `UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL WHERE state = 'leased'`,
  );
  const lease = db.prepare(`UPDATE frontier SET state = 'leased', lease_owner = ?, leased_at = ? WHERE id = ?`);
  const unlease = db.prepare(
    `UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL WHERE id = ? AND state = 'leased'`,
  );
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
  const seedOriginCounts = db.prepare(
    `SELECT seed_id AS seedId, origin, COUNT(*) AS n FROM frontier GROUP BY seed_id, origin`,
  );
  const retry = db.prepare(
    `UPDATE frontier SET state = 'queued', attempts = ?, next_attempt_at = ?, last_error = ?, lease_owner = NULL WHERE id = ?`,
  );
  // A finished URL queued again starts afresh: no attempts spent, due at once, no old error or redirect.
  const queuedAgain = `state = 'queued', attempts = 0, next_attempt_at = 0, last_error = NULL, redirect_to = NULL`;
  const finished = `state IN ('done', 'failed', 'skipped')`;
  const requeue = db.prepare(
    `UPDATE frontier SET ${queuedAgain}, depth = ?, seed_id = ? WHERE url = ? AND ${finished} RETURNING ${ROW}`,
  );
  // One chunk of a seed's finished URLs of one state, in id order from a cursor (index frontier_seed_state).
  const requeueChunkOfSeed = db.prepare(
    `UPDATE frontier SET ${queuedAgain} WHERE id IN (
       SELECT id FROM frontier WHERE seed_id = ? AND state = ? AND id > ? AND depth <= ? ORDER BY id LIMIT ?
     ) RETURNING ${ROW}`,
  );
  const requeueById = db.prepare(`UPDATE frontier SET ${queuedAgain} WHERE id = ? AND ${finished} RETURNING ${ROW}`);
  const requeueByIdAt = db.prepare(
    `UPDATE frontier SET state = 'queued', attempts = 0, next_attempt_at = ?, last_error = NULL, redirect_to = NULL
     WHERE id = ? AND ${finished} RETURNING ${ROW}`,
  );
  const finishedOfSeed = db
    .prepare(`SELECT 1 FROM frontier WHERE seed_id = ? AND ${finished} AND depth <= ? LIMIT 1`)
    .pluck();
  const byUrl = db.prepare(`SELECT ${ROW}, state FROM frontier WHERE url = ?`);
  const seedCrawls = db.prepare(
    `SELECT s.id AS seedId, s.origin, f.finished_at AS lastFetchedAt,
       EXISTS (SELECT 1 FROM frontier p WHERE p.seed_id = s.id AND p.state IN ('queued', 'leased')) AS pending
     FROM seeds s LEFT JOIN frontier f ON f.url = s.url`,
  );
  const counts = db.prepare(`SELECT origin, state, COUNT(*) AS n FROM frontier GROUP BY origin, state`);
  const dropChunkOfSeed = db.prepare(
    `DELETE FROM frontier WHERE id IN (SELECT id FROM frontier WHERE seed_id = ? LIMIT ?)
     RETURNING id, origin, state, next_attempt_at AS nextAttemptAt`,
  );

  return {
    /** Adds a URL if it is new (returning its row); a known URL just gains an inlink. */
    addUrl(
      u: { url: string; origin: string; seedId: number; depth: number; redirects: number },
      now: number,
    ): FrontierRow | undefined {
      const row = insert.get(u.url, u.origin, u.seedId, u.depth, u.redirects, now) as FrontierRow | undefined;
      if (!row) seenAgain.run(u.url);
      return row;
    },
    /** A link to a URL the frontier may already hold: if known, it gains an inlink (true); else nothing happens (false). */
    touchUrl(url: string): boolean {
      return seenAgain.run(url).changes > 0;
    },
    /** Which of `urls` the frontier holds (a page's links, before its budgets decide: crawler/frontier/link-intake.ts). */
    knownUrls(urls: readonly string[]): Set<string> {
      const held = new Set<string>();
      for (const url of urls) if (known.get(url) !== undefined) held.add(url);
      return held;
    },
    /** Each known URL of `urls` gains an inlink, once per time it is listed; unknown ones are left alone. */
    touchUrls(urls: readonly string[]): void {
      for (const url of urls) seenAgain.run(url);
    },
    /**
     * addUrl for each of `rows` at `now`, in order: the rows of the URLs inserted, in that order (a URL
     * known already gains an inlink instead).
     */
    addUrls(
      rows: ReadonlyArray<{ url: string; origin: string; seedId: number; depth: number; redirects: number }>,
      now: number,
    ): FrontierRow[] {
      const added: FrontierRow[] = [];
      for (const u of rows) {
        const row = insert.get(u.url, u.origin, u.seedId, u.depth, u.redirects, now) as FrontierRow | undefined;
        if (row) added.push(row);
        else seenAgain.run(u.url);
      }
      return added;
    },
    /**
     * A host's queued URLs that come after (`nextAttemptAt`, `id`) in its queue order (due at once first in
     * the order found, then retries by next_attempt_at), at most `limit`: the crawler primary's window reads on.
     */
    queuedAfter,
    /**
     * queuedAfter for each of `reads`: one list of rows per read, in the order given (the window's refill of
     * many hosts at once; in process, the same two seeks per host, which cost no round trip here).
     */
    queuedAfterMany(reads: readonly QueueRead[]): FrontierRow[][] {
      return reads.map((r) => queuedAfter(r.origin, r.nextAttemptAt, r.id, r.limit));
    },
    /** How many queued URLs one host has. */
    queuedCount(origin: string): number {
      return queuedOfOrigin.get(origin) as number;
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
    finishUrl(
      id: number,
      state: 'done' | 'failed' | 'skipped',
      error: string | null,
      now: number,
      countAttempt = true,
    ): void {
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
     * Queues again up to `limit` finished URLs in `state` that `seedId` found at most `maxDepth` links from
     * it (a re-submitted seed is a request to refresh what it found), those with an id after `afterId`, in
     * id order; returns their rows. Failed URLs get fresh attempts. A seed of 100,000 URLs is queued again
     * chunk by chunk (crawler/frontier/seed-writes.ts), never in one long statement.
     */
    requeueSeedChunk(
      seedId: number,
      maxDepth: number,
      state: FinishedState,
      afterId: number,
      limit: number,
    ): FrontierRow[] {
      return requeueChunkOfSeed.all(seedId, state, afterId, maxDepth, limit) as FrontierRow[];
    },
    /** Whether `seedId` has finished URLs at most `maxDepth` links from it (a crawl of it again has something to queue). */
    hasFinishedUrls(seedId: number, maxDepth: number): boolean {
      return finishedOfSeed.get(seedId, maxDepth) !== undefined;
    },
    /** Queues one finished URL again, keeping its seed and depth (a page due for its revisit); its row if it was finished. */
    requeueFinished(id: number): FrontierRow | undefined {
      return requeueById.get(id) as FrontierRow | undefined;
    },
    /** As requeueFinished, to be asked for no sooner than `at` (a periodic refresh's spread, revisit-spread.ts). */
    requeueFinishedAt(id: number, at: number): FrontierRow | undefined {
      return requeueByIdAt.get(at, id) as FrontierRow | undefined;
    },
    /** Per seed: when its own URL was last finished, and whether URLs it found are still to do (crawler/frontier/refresh.ts). */
    seedCrawls(): SeedCrawl[] {
      return (
        seedCrawls.all() as Array<{ seedId: number; origin: string; lastFetchedAt: number | null; pending: number }>
      ).map((r) => ({ seedId: r.seedId, origin: r.origin, lastFetchedAt: r.lastFetchedAt, pending: r.pending === 1 }));
    },
    /**
     * Deletes up to `limit` URLs of a removed seed (leased ones too: their results are dropped), returning
     * them; a seed of 100,000 URLs goes chunk by chunk (crawler/frontier/seed-writes.ts).
     */
    dropSeedChunk(seedId: number, limit: number): DroppedUrl[] {
      return dropChunkOfSeed.all(seedId, limit) as DroppedUrl[];
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
    /** URL counts by host and state, in one scan (at start: each host's queued URLs for its window). */
    countsByOrigin(): Array<{ origin: string; state: string; n: number }> {
      return counts.all() as Array<{ origin: string; state: string; n: number }>;
    },
  };
}
