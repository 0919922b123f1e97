/**
 * The URL frontier on PostgreSQL: db/frontier.ts's methods with the same names, arguments and rows, each
 * answering a Promise, on a PgRunner (the pool, or one transaction's connection), plus the set-based batch
 * methods a network engine needs (addUrls, knownUrls, touchUrls: one statement for many URLs). Row ids are
 * drawn from an identity, so an INSERT that meets a known URL spends one: ids keep their order, not SQLite's
 * gapless values. Camel-case aliases are quoted (PostgreSQL folds unquoted names to lower case).
 */
import type { DroppedUrl, FinishedState, FrontierRow, QueueRead, SeedCrawl } from '../frontier.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

/** A URL to add, as addUrl takes it. */
export interface NewUrl {
  url: string;
  origin: string;
  seedId: number;
  depth: number;
  redirects: number;
}

/** A stored 2xx page's column `col` for the frontier row's URL, looked up only for a URL finished before (as SQLite's). */
const validator = (col: string) =>
  `CASE WHEN frontier.finished_at IS NOT NULL THEN
     (SELECT p.${col} FROM pages p WHERE p.url = frontier.url AND p.status BETWEEN 200 AND 299) END`;

const ROW = `id, url, origin, seed_id AS "seedId", depth, attempts, next_attempt_at AS "nextAttemptAt", redirects,
  (finished_at IS NOT NULL)::int AS "finishedBefore", ${validator('etag')} AS etag,
  ${validator('last_modified')} AS "lastModified"`;

// A known URL gains an inlink in the same statement: the UPDATE reads the table as it was before the INSERT.
const ADD = statement(
  'crawl.frontier.add',
  `WITH seen AS (UPDATE frontier SET inlinks = inlinks + 1 WHERE url = $1)
   INSERT INTO frontier (url, origin, seed_id, depth, redirects, discovered_at) VALUES ($1, $2, $3, $4, $5, $6)
   ON CONFLICT (url) DO NOTHING RETURNING ${ROW}`,
);
// Each distinct URL once (the first of its occurrences; `extra` counts the others): a known URL gains an
// inlink per occurrence, a new one is inserted with an inlink per occurrence after the first, as addUrl
// called once per occurrence in order leaves them. New rows get their ids in the order given.
const ADD_MANY = statement(
  'crawl.frontier.add-many',
  `WITH given AS (
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[], $5::int[], $6::int[])
       WITH ORDINALITY AS g (url, origin, seed_id, depth, redirects, extra, ord)),
   seen AS (UPDATE frontier f SET inlinks = f.inlinks + g.extra + 1 FROM given g WHERE f.url = g.url),
   added AS (
     INSERT INTO frontier (url, origin, seed_id, depth, redirects, discovered_at, inlinks)
     SELECT url, origin, seed_id, depth, redirects, $7, extra FROM given ORDER BY ord
     ON CONFLICT (url) DO NOTHING RETURNING ${ROW})
   SELECT * FROM added ORDER BY id`,
);
const KNOWN = statement('crawl.frontier.known', 'SELECT url FROM frontier WHERE url = ANY ($1::text[])');
const TOUCH = statement('crawl.frontier.touch', 'UPDATE frontier SET inlinks = inlinks + 1 WHERE url = $1');
const TOUCH_MANY = statement(
  'crawl.frontier.touch-many',
  `UPDATE frontier f SET inlinks = f.inlinks + t.n
   FROM (SELECT url, count(*)::int AS n FROM unnest($1::text[]) AS u (url) GROUP BY url) AS t WHERE f.url = t.url`,
);
// queuedAfter's two seeks (see db/frontier.ts) in one statement: the rest of the position's next_attempt_at
// (none when reading from the start, $2 < 0), then what comes after it.
const QUEUED_AFTER = statement(
  'crawl.frontier.queued-after',
  `SELECT * FROM (
     (SELECT ${ROW} FROM frontier WHERE origin = $1 AND state = 'queued' AND $2::bigint >= 0 AND next_attempt_at = $2::bigint AND id > $3
      ORDER BY id LIMIT $4)
     UNION ALL
     (SELECT ${ROW} FROM frontier WHERE origin = $1 AND state = 'queued' AND next_attempt_at > $2::bigint
      ORDER BY next_attempt_at, id LIMIT $4)) AS q
   ORDER BY "nextAttemptAt", id LIMIT $4`,
);
// QUEUED_AFTER for many hosts in one statement: each read's two seeks (over frontier_queue) in a LATERAL
// subquery of its own, the rows answered by read (its position in the arrays) and in each host's queue order.
const QUEUED_AFTER_MANY = statement(
  'crawl.frontier.queued-after-many',
  `SELECT r.ord::int AS "read", q.* FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::int[])
     WITH ORDINALITY AS r (read_origin, read_at, read_id, read_limit, ord)
   CROSS JOIN LATERAL (
     SELECT * FROM (
       (SELECT ${ROW} FROM frontier WHERE origin = r.read_origin AND state = 'queued' AND r.read_at >= 0
          AND next_attempt_at = r.read_at AND id > r.read_id ORDER BY id LIMIT r.read_limit)
       UNION ALL
       (SELECT ${ROW} FROM frontier WHERE origin = r.read_origin AND state = 'queued' AND next_attempt_at > r.read_at
        ORDER BY next_attempt_at, id LIMIT r.read_limit)) AS s
     ORDER BY "nextAttemptAt", id LIMIT r.read_limit) AS q
   ORDER BY r.ord, q."nextAttemptAt", q.id`,
);
const QUEUED_COUNT = statement(
  'crawl.frontier.queued-count',
  `SELECT count(*) AS n FROM frontier WHERE origin = $1 AND state = 'queued'`,
);
const RETURN_LEASES = statement(
  'crawl.frontier.return-leases',
  `UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL WHERE state = 'leased'`,
);
const LEASE = statement(
  'crawl.frontier.lease',
  `UPDATE frontier SET state = 'leased', lease_owner = $1, leased_at = $2 WHERE id = $3`,
);
const UNLEASE = statement(
  'crawl.frontier.unlease',
  `UPDATE frontier SET state = 'queued', lease_owner = NULL, leased_at = NULL WHERE id = $1 AND state = 'leased'`,
);
const FINISH = statement(
  'crawl.frontier.finish',
  `UPDATE frontier SET state = $1, last_error = $2, attempts = attempts + $3, finished_at = $4, lease_owner = NULL,
     redirect_to = $5 WHERE id = $6`,
);
const REDIRECT_OF = statement(
  'crawl.frontier.redirect-of',
  'SELECT redirect_to AS target FROM frontier WHERE url = $1 AND redirect_to IS NOT NULL',
);
const FAIL_LOOP = statement(
  'crawl.frontier.fail-loop',
  `UPDATE frontier SET state = 'failed', last_error = $1 WHERE url = $2 AND state = 'done' AND redirect_to IS NOT NULL`,
);
const RETRY = statement(
  'crawl.frontier.retry',
  `UPDATE frontier SET state = 'queued', attempts = $1, next_attempt_at = $2, last_error = $3, lease_owner = NULL
   WHERE id = $4`,
);
const QUEUED_AGAIN = `state = 'queued', attempts = 0, next_attempt_at = 0, last_error = NULL, redirect_to = NULL`;
const FINISHED = `state IN ('done', 'failed', 'skipped')`;
const REQUEUE = statement(
  'crawl.frontier.requeue',
  `UPDATE frontier SET ${QUEUED_AGAIN}, depth = $1, seed_id = $2 WHERE url = $3 AND ${FINISHED} RETURNING ${ROW}`,
);
const REQUEUE_CHUNK = statement(
  'crawl.frontier.requeue-chunk',
  `WITH queued AS (
     UPDATE frontier SET ${QUEUED_AGAIN} WHERE id IN (
       SELECT id FROM frontier WHERE seed_id = $1 AND state = $2 AND id > $3 AND depth <= $4 ORDER BY id LIMIT $5)
     RETURNING ${ROW})
   SELECT * FROM queued ORDER BY id`,
);
const REQUEUE_BY_ID = statement(
  'crawl.frontier.requeue-by-id',
  `UPDATE frontier SET ${QUEUED_AGAIN} WHERE id = $1 AND ${FINISHED} RETURNING ${ROW}`,
);
const REQUEUE_BY_ID_AT = statement(
  'crawl.frontier.requeue-by-id-at',
  `UPDATE frontier SET state = 'queued', attempts = 0, next_attempt_at = $1, last_error = NULL, redirect_to = NULL
   WHERE id = $2 AND ${FINISHED} RETURNING ${ROW}`,
);
const FINISHED_OF_SEED = statement(
  'crawl.frontier.finished-of-seed',
  `SELECT 1 AS found FROM frontier WHERE seed_id = $1 AND ${FINISHED} AND depth <= $2 LIMIT 1`,
);
const BY_URL = statement('crawl.frontier.by-url', `SELECT ${ROW}, state FROM frontier WHERE url = $1`);
const SEED_CRAWLS = statement(
  'crawl.frontier.seed-crawls',
  `SELECT s.id AS "seedId", s.origin, f.finished_at AS "lastFetchedAt",
     EXISTS (SELECT 1 FROM frontier p WHERE p.seed_id = s.id AND p.state IN ('queued', 'leased')) AS pending
   FROM seeds s LEFT JOIN frontier f ON f.url = s.url ORDER BY s.id`,
);
const ORIGIN_COUNTS = statement(
  'crawl.frontier.origin-counts',
  'SELECT origin, count(*) AS n FROM frontier GROUP BY origin',
);
const SEED_ORIGIN_COUNTS = statement(
  'crawl.frontier.seed-origin-counts',
  'SELECT seed_id AS "seedId", origin, count(*) AS n FROM frontier GROUP BY seed_id, origin',
);
const COUNTS = statement(
  'crawl.frontier.counts',
  'SELECT origin, state, count(*) AS n FROM frontier GROUP BY origin, state',
);
const DROP_CHUNK = statement(
  'crawl.frontier.drop-chunk',
  `DELETE FROM frontier WHERE id IN (SELECT id FROM frontier WHERE seed_id = $1 LIMIT $2)
   RETURNING id, origin, state, next_attempt_at AS "nextAttemptAt"`,
);

/** The frontier's queries on `db` (see the module comment; each method as db/frontier.ts documents it). */
export function pgFrontierQueries(db: PgRunner) {
  return {
    /** Adds a URL if it is new (returning its row); a known URL just gains an inlink. */
    async addUrl(u: NewUrl, now: number): Promise<FrontierRow | undefined> {
      return (await db.rows<FrontierRow>(ADD, [u.url, u.origin, u.seedId, u.depth, u.redirects, now]))[0];
    },
    /**
     * addUrl for many URLs in one statement: the rows of the URLs it inserted, in the order given; a known
     * URL (or one given twice) gains an inlink per occurrence, exactly as addUrl once per URL in order.
     */
    async addUrls(urls: readonly NewUrl[], now: number): Promise<FrontierRow[]> {
      if (urls.length === 0) return [];
      const first = new Map<string, { u: NewUrl; extra: number }>();
      for (const u of urls) {
        const seen = first.get(u.url);
        if (seen === undefined) first.set(u.url, { u, extra: 0 });
        else seen.extra++;
      }
      const given = [...first.values()];
      return db.rows<FrontierRow>(ADD_MANY, [
        given.map((g) => g.u.url),
        given.map((g) => g.u.origin),
        given.map((g) => g.u.seedId),
        given.map((g) => g.u.depth),
        given.map((g) => g.u.redirects),
        given.map((g) => g.extra),
        now,
      ]);
    },
    /** Which of `urls` the frontier holds. */
    async knownUrls(urls: readonly string[]): Promise<Set<string>> {
      if (urls.length === 0) return new Set();
      return new Set((await db.rows<{ url: string }>(KNOWN, [[...new Set(urls)]])).map((r) => r.url));
    },
    /** touchUrl for many URLs in one statement: each known URL gains an inlink per occurrence; unknown ones are ignored. */
    async touchUrls(urls: readonly string[]): Promise<void> {
      if (urls.length > 0) await db.write(TOUCH_MANY, [urls]);
    },
    /** A link to a URL the frontier may already hold: if known, it gains an inlink (true); else nothing happens (false). */
    async touchUrl(url: string): Promise<boolean> {
      return (await db.changed(TOUCH, [url])) > 0;
    },
    /** A host's queued URLs that come after (`nextAttemptAt`, `id`) in its queue order, at most `limit`. */
    queuedAfter(origin: string, nextAttemptAt: number, id: number, limit: number): Promise<FrontierRow[]> {
      return db.rows<FrontierRow>(QUEUED_AFTER, [origin, nextAttemptAt, id, limit]);
    },
    /**
     * queuedAfter for each of `reads` in one statement (one round trip for a refill of many hosts): one list
     * of rows per read, in the order given.
     */
    async queuedAfterMany(reads: readonly QueueRead[]): Promise<FrontierRow[][]> {
      if (reads.length === 0) return [];
      const rows = await db.rows<FrontierRow & { read: number }>(QUEUED_AFTER_MANY, [
        reads.map((r) => r.origin),
        reads.map((r) => r.nextAttemptAt),
        reads.map((r) => r.id),
        reads.map((r) => r.limit),
      ]);
      const out: FrontierRow[][] = reads.map(() => []);
      for (const { read, ...row } of rows) out[read - 1]!.push(row);
      return out;
    },
    /** How many queued URLs one host has. */
    async queuedCount(origin: string): Promise<number> {
      return (await db.rows<{ n: number }>(QUEUED_COUNT, [origin]))[0]?.n ?? 0;
    },
    /** Puts every leased URL back in the queue (at start: their worker or primary is gone). */
    returnAllLeases(): Promise<number> {
      return db.changed(RETURN_LEASES);
    },
    /** Marks a URL as handed to a worker by crawler run `owner`. */
    leaseUrl(id: number, owner: string, now: number): Promise<void> {
      return db.write(LEASE, [owner, now, id]);
    },
    /** Returns one leased URL to the queue (its worker died, or the crawl is stopping). */
    returnLease(id: number): Promise<void> {
      return db.write(UNLEASE, [id]);
    },
    /** Ends a URL's life: done (stored or recorded), failed (gave up) or skipped (refused by policy). */
    finishUrl(
      id: number,
      state: 'done' | 'failed' | 'skipped',
      error: string | null,
      now: number,
      countAttempt = true,
    ): Promise<void> {
      return db.write(FINISH, [state, error, countAttempt ? 1 : 0, now, null, id]);
    },
    /** Ends a URL that answered with a redirect to `target`: done, or failed (a redirect loop). */
    finishRedirect(
      id: number,
      target: string,
      note: string,
      now: number,
      state: 'done' | 'failed' = 'done',
    ): Promise<void> {
      return db.write(FINISH, [state, note, 1, now, target, id]);
    },
    /** Where a URL redirected to the last time it was fetched, if it did. */
    async redirectTarget(url: string): Promise<string | undefined> {
      return (await db.rows<{ target: string }>(REDIRECT_OF, [url]))[0]?.target;
    },
    /** Marks a URL that redirected as part of a redirect loop: failed, with `message`. */
    failRedirectLoop(url: string, message: string): Promise<void> {
      return db.write(FAIL_LOOP, [message, url]);
    },
    /** Schedules another attempt of a URL at `nextAttemptAt`. */
    retryUrl(id: number, attempts: number, nextAttemptAt: number, error: string): Promise<void> {
      return db.write(RETRY, [attempts, nextAttemptAt, error, id]);
    },
    /** Queues a finished URL again (a re-submitted seed), returning its row if it was finished. */
    async requeueUrl(url: string, depth: number, seedId: number): Promise<FrontierRow | undefined> {
      return (await db.rows<FrontierRow>(REQUEUE, [depth, seedId, url]))[0];
    },
    /** Queues again up to `limit` finished URLs of `seedId` in `state` within `maxDepth`, after `afterId`, in id order. */
    requeueSeedChunk(
      seedId: number,
      maxDepth: number,
      state: FinishedState,
      afterId: number,
      limit: number,
    ): Promise<FrontierRow[]> {
      return db.rows<FrontierRow>(REQUEUE_CHUNK, [seedId, state, afterId, maxDepth, limit]);
    },
    /** Whether `seedId` has finished URLs at most `maxDepth` links from it. */
    async hasFinishedUrls(seedId: number, maxDepth: number): Promise<boolean> {
      return (await db.rows(FINISHED_OF_SEED, [seedId, maxDepth])).length > 0;
    },
    /** Queues one finished URL again, keeping its seed and depth; its row if it was finished. */
    async requeueFinished(id: number): Promise<FrontierRow | undefined> {
      return (await db.rows<FrontierRow>(REQUEUE_BY_ID, [id]))[0];
    },
    /** As requeueFinished, to be asked for no sooner than `at`. */
    async requeueFinishedAt(id: number, at: number): Promise<FrontierRow | undefined> {
      return (await db.rows<FrontierRow>(REQUEUE_BY_ID_AT, [at, id]))[0];
    },
    /** Per seed: when its own URL was last finished, and whether URLs it found are still to do. */
    async seedCrawls(): Promise<SeedCrawl[]> {
      return db.rows<SeedCrawl>(SEED_CRAWLS);
    },
    /** Deletes up to `limit` URLs of a removed seed (leased ones too), returning them. */
    dropSeedChunk(seedId: number, limit: number): Promise<DroppedUrl[]> {
      return db.rows<DroppedUrl>(DROP_CHUNK, [seedId, limit]);
    },
    /** One URL's row and state, if known. */
    async urlByUrl(url: string): Promise<(FrontierRow & { state: string }) | undefined> {
      return (await db.rows<FrontierRow & { state: string }>(BY_URL, [url]))[0];
    },
    /** How many URLs (in any state) each host has. */
    urlCountsByOrigin(): Promise<Array<{ origin: string; n: number }>> {
      return db.rows(ORIGIN_COUNTS);
    },
    /** How many URLs each seed owns on each host. */
    urlCountsBySeedAndOrigin(): Promise<Array<{ seedId: number; origin: string; n: number }>> {
      return db.rows(SEED_ORIGIN_COUNTS);
    },
    /** URL counts by host and state, in one scan. */
    countsByOrigin(): Promise<Array<{ origin: string; state: string; n: number }>> {
      return db.rows(COUNTS);
    },
  };
}
