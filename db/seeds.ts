import type { Database } from 'better-sqlite3';
import type { Scope } from '../shared/enumerations.ts';

/** A 'path' seed is stored as scope 'host' with path_only = 1 (migration 0006). */
const SCOPE_OUT = `CASE WHEN s.path_only = 1 THEN 'path' ELSE s.scope END`;

/** A seed as stored, with live counts of what the crawler did with it. */
export interface SeedRow {
  id: number;
  url: string;
  origin: string;
  depth: number;
  scope: Scope;
  createdAt: number;
  updatedAt: number;
  found: number;
  fetched: number;
  queued: number;
  failed: number;
  /** When the seed's own page was last fetched (or given up on), or null. */
  lastCrawledAt: number | null;
  /** Hosts its URLs are on, and the links to further hosts not followed (CRAWL_MAX_HOSTS_PER_SEED), with the last such host. */
  hosts: number;
  hostsRefused: number;
  lastRefusedHost: string | null;
  /** When the last of its URLs was finished (fetched, failed or skipped), or null. */
  lastFinishedAt: number | null;
  /** An imported bookmark's title (or one given with the seed), else null. */
  title: string | null;
  /** An imported bookmark's folder path ("Bookmarks bar / Dev"), else null. */
  folder: string | null;
  /** The seed's labels, sorted (db/seed-labels.ts). */
  labels: string[];
  /** Where it stands: crawling (or about to start), done, failed (its own page was not stored), removed. */
  state: SeedState;
  /** Why it failed (its own URL's last error, as the crawler wrote it), else null. */
  failure: string | null;
}

/** The states a seed is listed in (GET /api/seeds `state`). */
export const SEED_STATES = ['crawling', 'done', 'failed', 'removed'] as const;
/** One of SEED_STATES. */
export type SeedState = (typeof SEED_STATES)[number];

/**
 * Every column of a seed row but its state, which SEED_STATE derives from these (wrap them in a subquery).
 * `ownState` and `ownError`: the frontier row of the seed's own URL.
 */
export const SEED_COLUMNS = `s.id, s.url, s.origin, s.depth, ${SCOPE_OUT} AS scope, s.created_at AS createdAt, s.updated_at AS updatedAt,
  (SELECT COUNT(*) FROM frontier f WHERE f.seed_id = s.id) AS found,
  (SELECT COUNT(*) FROM frontier f WHERE f.seed_id = s.id AND f.state = 'done') AS fetched,
  (SELECT COUNT(*) FROM frontier f WHERE f.seed_id = s.id AND f.state IN ('queued', 'leased')) AS queued,
  (SELECT COUNT(*) FROM frontier f WHERE f.seed_id = s.id AND f.state = 'failed') AS failed,
  (SELECT f.finished_at FROM frontier f WHERE f.url = s.url) AS lastCrawledAt,
  (SELECT MAX(f.finished_at) FROM frontier f WHERE f.seed_id = s.id) AS lastFinishedAt, s.title, s.folder,
  (SELECT group_concat(label, char(10)) FROM (SELECT l.label FROM seed_labels l WHERE l.seed_id = s.id ORDER BY l.label)) AS labelText,
  COALESCE((SELECT h.hosts FROM seed_hosts h WHERE h.seed_id = s.id), 0) AS hosts,
  COALESCE((SELECT h.refused FROM seed_hosts h WHERE h.seed_id = s.id), 0) AS hostsRefused,
  (SELECT h.refused_example FROM seed_hosts h WHERE h.seed_id = s.id) AS lastRefusedHost,
  s.removed_at AS removedAt,
  (SELECT f.state FROM frontier f WHERE f.url = s.url) AS ownState,
  (SELECT f.last_error FROM frontier f WHERE f.url = s.url) AS ownError`;

/**
 * A seed's state from SEED_COLUMNS (in an outer query): removed once marked so; failed when its own URL
 * was given up on, skipped, or answered an HTTP error; done once something was found and nothing is
 * left queued; crawling until then.
 */
export const SEED_STATE = `CASE WHEN removedAt IS NOT NULL THEN 'removed'
  WHEN ownState IN ('failed', 'skipped') OR (ownState = 'done' AND ownError LIKE 'HTTP %') THEN 'failed'
  WHEN queued = 0 AND found > 0 THEN 'done' ELSE 'crawling' END`;

/** A seed row as SQL answers it (SEED_COLUMNS and SEED_STATE as `state`). */
export type SeedSqlRow = Omit<SeedRow, 'labels' | 'failure'> & {
  labelText: string | null;
  removedAt: number | null;
  ownState: string | null;
  ownError: string | null;
};

/**
 * Seed rows with their state: SEED_COLUMNS of the seeds `inner` selects (a WHERE, ORDER BY and LIMIT on
 * `seeds s`), then `outer` on those rows (a filter on `state`, the order again).
 */
export function seedSelect(inner: string, outer = ''): string {
  return `SELECT *, ${SEED_STATE} AS state FROM (SELECT ${SEED_COLUMNS} FROM seeds s ${inner}) ${outer}`;
}

/** A seed row as SQL answers it, as the module's callers see it. */
export function fromSql(row: SeedSqlRow): SeedRow {
  const { labelText, removedAt: _removed, ownState: _own, ownError, ...rest } = row;
  return {
    ...rest,
    labels: labelText === null ? [] : labelText.split('\n'),
    failure: row.state === 'failed' ? (ownError ?? 'its page could not be fetched') : null,
  };
}

/** A seed row as the crawler reads changes: `removedAt` is set once the person removed it. */
export type SeedChange = Pick<SeedRow, 'id' | 'url' | 'origin' | 'depth' | 'scope' | 'updatedAt'> & {
  removedAt: number | null;
};

/** Prepared statements for seeds, created once per connection. */
export function seedQueries(db: Database) {
  // A removed seed submitted again comes back as new: created now, and no longer removed.
  const insert = db.prepare(
    `INSERT INTO seeds (url, origin, depth, scope, path_only, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (url) DO UPDATE SET depth = excluded.depth, scope = excluded.scope, path_only = excluded.path_only,
       updated_at = excluded.updated_at,
       created_at = CASE WHEN seeds.removed_at IS NULL THEN seeds.created_at ELSE excluded.created_at END,
       removed_at = NULL
     RETURNING id, created_at = updated_at AS created`,
  );
  const byId = db.prepare(seedSelect('WHERE s.id = ?'));
  const all = db.prepare(
    seedSelect('WHERE s.removed_at IS NULL ORDER BY s.id DESC LIMIT ? OFFSET ?', 'ORDER BY id DESC'),
  );
  const allWithLabel = db.prepare(
    seedSelect(
      'WHERE s.removed_at IS NULL AND s.id IN (SELECT seed_id FROM seed_labels WHERE label = ?) ORDER BY s.id DESC LIMIT ? OFFSET ?',
      'ORDER BY id DESC',
    ),
  );
  const countAll = db.prepare<[], number>('SELECT COUNT(*) FROM seeds WHERE removed_at IS NULL').pluck();
  const countWithLabel = db
    .prepare<[string], number>(
      'SELECT COUNT(*) FROM seeds s WHERE s.removed_at IS NULL AND s.id IN (SELECT seed_id FROM seed_labels WHERE label = ?)',
    )
    .pluck();
  const setTitle = db.prepare(`UPDATE seeds SET title = ? WHERE id = ?`);
  const since = db.prepare(
    `SELECT id, url, origin, depth, ${SCOPE_OUT} AS scope, updated_at AS updatedAt, removed_at AS removedAt FROM seeds s
     WHERE updated_at >= ? ORDER BY updated_at, id`,
  );
  const markRemoved = db.prepare(
    `UPDATE seeds SET removed_at = ?, updated_at = ? WHERE id = ? AND removed_at IS NULL RETURNING id, url`,
  );
  // Only once its URLs and its pages are gone, each removed chunk by chunk: deleting the row sooner would
  // cascade the rest of its URLs away in one statement, and leave its pages without their seed.
  const deleteRemoved = db.prepare(
    `DELETE FROM seeds WHERE id = ? AND removed_at IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM frontier WHERE seed_id = seeds.id) AND NOT EXISTS (SELECT 1 FROM pages WHERE seed_id = seeds.id)`,
  );
  const stillRemoved = db.prepare(`SELECT 1 FROM seeds WHERE id = ? AND removed_at IS NOT NULL`).pluck();

  return {
    /** Stores a seed, or updates depth and scope of the same URL; says whether it is new (a removed one comes back new). */
    upsertSeed(
      seed: { url: string; origin: string; depth: number; scope: Scope; title?: string },
      now: number,
    ): { seed: SeedRow; created: boolean } {
      const stored = seed.scope === 'path' ? 'host' : seed.scope;
      const row = insert.get(seed.url, seed.origin, seed.depth, stored, seed.scope === 'path' ? 1 : 0, now, now) as {
        id: number;
        created: number;
      };
      if (seed.title !== undefined) setTitle.run(seed.title, row.id);
      return { seed: fromSql(byId.get(row.id) as SeedSqlRow), created: row.created === 1 };
    },
    /** One live or removed seed by id, with its crawl counts, or undefined. */
    getSeed(id: number): SeedRow | undefined {
      const row = byId.get(id) as SeedSqlRow | undefined;
      return row === undefined ? undefined : fromSql(row);
    },
    /**
     * One page of live seeds, newest first, with their crawl counts (`limit` from `offset`, 500 from the
     * newest by default); only those carrying `label` when it is given.
     */
    listSeeds(opts: { limit?: number; offset?: number; label?: string } = {}): SeedRow[] {
      const { limit = 500, offset = 0, label } = opts;
      const rows = (
        label === undefined ? all.all(limit, offset) : allWithLabel.all(label, limit, offset)
      ) as SeedSqlRow[];
      return rows.map(fromSql);
    },
    /** How many live seeds there are; only those carrying `label` when it is given. */
    countSeeds(label?: string): number {
      return label === undefined ? countAll.get()! : countWithLabel.get(label)!;
    },
    /** Seeds added, changed or removed at or after `updatedAt` (the crawler's cursor over what users submitted). */
    seedsChangedSince(updatedAt: number): SeedChange[] {
      return since.all(updatedAt) as SeedChange[];
    },
    /** The server's half of removing a seed: marks it removed (undefined if there is no such seed). */
    markSeedRemoved(id: number, now: number): { id: number; url: string } | undefined {
      return markRemoved.get(now, now, id) as { id: number; url: string } | undefined;
    },
    /** Whether a seed is marked removed (false once it is deleted, or submitted again). */
    isRemoved(id: number): boolean {
      return stillRemoved.get(id) !== undefined;
    },
    /**
     * The crawler's last step of removing a seed: deletes its row once none of its URLs and pages is left,
     * unless it was submitted again meanwhile.
     */
    deleteRemovedSeed(id: number): void {
      deleteRemoved.run(id);
    },
  };
}
