/**
 * The change feed on PostgreSQL (migrations-pg 0003, 0004): the pages written and deleted and the link targets
 * written past a cursor, in (change_xid, change_seq) order (one clock for all three), never past a transaction
 * still in flight. A search copy (db/search-copy.ts) applies what it answers and keeps the cursor of the last
 * change applied.
 */
import type { FileType } from '../../shared/enumerations.ts';
import type { PageRecord } from '../pages.ts';
import { type Queryable, row, rows, statement } from './pool.ts';

/**
 * Where a reader stands in the feed: the (transaction id, sequence) of the last change it applied. `xid` is
 * xid8 as text (a 64-bit number; compared by PostgreSQL, never by JavaScript).
 */
export interface FeedCursor {
  xid: string;
  seq: number;
}

/**
 * What PostgreSQL holds for the feed alone, beyond SQLite's schema (migrations-pg 0003): tables a copy from SQLite
 * leaves to their migration, and the column of pages the trigger writes.
 */
export const FEED_ONLY_TABLES: readonly string[] = ['page_deletions', 'lantern_instance'];
/** The feed's columns in tables SQLite has too (by table). */
export const FEED_ONLY_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  pages: ['change_xid'],
  link_targets: ['change_seq', 'change_xid'],
};

/** The cursor before every change: a copy starts (or rebuilds) from here. */
export const FEED_START: FeedCursor = { xid: '0', seq: 0 };

/** A page written (inserted, fetched again, gone, retired): its row as it stands now. */
export interface PageWritten {
  kind: 'page';
  /** The row's id in PostgreSQL (a search copy numbers its own rows). */
  pgId: number;
  page: PageRecord;
  /** Retired with a removed seed (a tombstone row): out of search like an unindexed page. */
  removed: boolean;
  at: FeedCursor;
}

/** A pages row deleted: its id and url, from page_deletions. */
export interface PageDeleted {
  kind: 'deleted';
  pgId: number;
  url: string;
  at: FeedCursor;
}

/** A link target written (inserted, or its inlinks or anchors changed): its row as it stands now. */
export interface LinkTargetWritten {
  kind: 'link-target';
  /** The row's id in PostgreSQL, kept as its id in the copy (anchors_fts's rowid). */
  pgId: number;
  url: string;
  inlinks: number;
  sources: Buffer;
  anchors: string;
  anchorCounts: string;
  at: FeedCursor;
}

/** One change of the feed. */
export type PageChangeEvent = PageWritten | PageDeleted | LinkTargetWritten;

/** The identity of a PostgreSQL database, kept in each copy made from it. */
export interface PgIdentity {
  /** The cluster's system identifier (pg_control_system), or '' where the role may not read it. */
  systemId: string;
  /** The database's lantern_instance id (migrations-pg 0003), drawn once when it was created. */
  instanceId: string;
}

interface ChangeRow {
  kind: 'page' | 'deleted' | 'link-target';
  id: number;
  url: string;
  change_xid: string;
  change_seq: number;
  final_url: string | null;
  origin: string | null;
  host: string | null;
  seed_id: number | null;
  status: number | null;
  content_type: string | null;
  title: string | null;
  description: string | null;
  headings: string | null;
  body: string | null;
  lang: string | null;
  canonical: string | null;
  fetched_at: number | null;
  etag: string | null;
  last_modified: string | null;
  content_hash: string | null;
  noindex: number | null;
  nofollow: number | null;
  noarchive: number | null;
  nosnippet: number | null;
  indexed: number | null;
  removed: number | null;
  file_type: string | null;
  page_starts: string | null;
  link_density: number | null;
  inlinks: number | null;
  sources: Buffer | null;
  anchors: string | null;
  anchor_counts: string | null;
}

// The three sides are cut at the horizon (every transaction below it has finished) and limited, then merged: the
// first `limit` changes of the union are the first `limit` of the three sides' first `limit` each.
const CHANGES = statement(
  'feed.changes',
  `WITH horizon AS (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin)
   SELECT * FROM (
     (SELECT 'page' AS kind, p.id, p.url, p.change_xid::text AS change_xid, p.change_seq, p.final_url, p.origin,
        p.host, p.seed_id, p.status, p.content_type, p.title, p.description, p.headings, p.body, p.lang,
        p.canonical, p.fetched_at, p.etag, p.last_modified, p.content_hash, p.noindex, p.nofollow, p.noarchive,
        p.nosnippet, p.indexed, p.removed, p.file_type, p.page_starts, p.link_density, NULL::int AS inlinks,
        NULL::bytea AS sources, NULL AS anchors, NULL AS anchor_counts
      FROM pages p, horizon h
      WHERE (p.change_xid, p.change_seq) > ($1::xid8, $2::bigint) AND p.change_xid < h.xmin
      ORDER BY p.change_xid, p.change_seq LIMIT $3)
     UNION ALL
     (SELECT 'deleted', d.page_id, d.url, d.change_xid::text, d.change_seq, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL
      FROM page_deletions d, horizon h
      WHERE (d.change_xid, d.change_seq) > ($1::xid8, $2::bigint) AND d.change_xid < h.xmin
      ORDER BY d.change_xid, d.change_seq LIMIT $3)
     UNION ALL
     (SELECT 'link-target', t.id, t.url, t.change_xid::text, t.change_seq, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
        NULL, NULL, t.inlinks, t.sources, t.anchors, t.anchor_counts
      FROM link_targets t, horizon h
      WHERE (t.change_xid, t.change_seq) > ($1::xid8, $2::bigint) AND t.change_xid < h.xmin
      ORDER BY t.change_xid, t.change_seq LIMIT $3)
   ) AS changes
   ORDER BY change_xid::xid8, change_seq LIMIT $3`,
);
const IDENTITY = statement('feed.identity', 'SELECT instance_id FROM lantern_instance WHERE id = 1');
const SYSTEM_ID = statement('feed.system-id', 'SELECT system_identifier::text AS id FROM pg_control_system()');
const CURSOR_VALID = statement(
  'feed.cursor-valid',
  'SELECT $1::xid8 < pg_snapshot_xmax(pg_current_snapshot()) AS valid',
);
const ROW_COUNT = statement(
  'feed.row-count',
  'SELECT (SELECT count(*) FROM pages) + (SELECT count(*) FROM link_targets) AS n',
);

/** PostgreSQL answered a row the feed cannot read (a database without Lantern's migrations, say). */
export class FeedError extends Error {
  override name = 'FeedError';
}

/** A change row as the event it is. */
function eventOf(r: ChangeRow): PageChangeEvent {
  const at = { xid: r.change_xid, seq: r.change_seq };
  if (r.kind === 'deleted') return { kind: 'deleted', pgId: r.id, url: r.url, at };
  if (r.kind === 'link-target') {
    return {
      kind: 'link-target',
      pgId: r.id,
      url: r.url,
      inlinks: r.inlinks ?? 0,
      sources: r.sources ?? Buffer.alloc(0),
      anchors: r.anchors ?? '',
      anchorCounts: r.anchor_counts ?? '',
      at,
    };
  }
  return {
    kind: 'page',
    pgId: r.id,
    removed: r.removed === 1,
    at,
    page: {
      url: r.url,
      finalUrl: r.final_url ?? r.url,
      origin: r.origin ?? '',
      host: r.host ?? '',
      seedId: r.seed_id,
      status: r.status ?? 0,
      contentType: r.content_type,
      title: r.title ?? '',
      description: r.description ?? '',
      headings: r.headings === null || r.headings === '' ? [] : r.headings.split('\n'),
      body: r.body ?? '',
      lang: r.lang,
      canonical: r.canonical,
      fetchedAt: r.fetched_at ?? 0,
      etag: r.etag,
      lastModified: r.last_modified,
      contentHash: r.content_hash,
      noindex: r.noindex === 1,
      nofollow: r.nofollow === 1,
      noarchive: r.noarchive === 1,
      nosnippet: r.nosnippet === 1,
      indexed: r.indexed === 1 && r.removed !== 1,
      linkDensity: r.link_density,
      fileType: (r.file_type ?? 'html') as FileType,
      pageStarts: r.page_starts === null ? null : (JSON.parse(r.page_starts) as number[]),
    },
  };
}

/**
 * Up to `limit` changes past `cursor`, oldest first, all of transactions that have finished (see the file
 * comment of migrations-pg 0003 for why that is the rule): a change still in flight, and every change after it
 * in the order, waits for a later call.
 */
export async function readPageChanges(db: Queryable, cursor: FeedCursor, limit: number): Promise<PageChangeEvent[]> {
  const found = await rows<ChangeRow>(db, CHANGES, [cursor.xid, cursor.seq, limit]);
  return found.map(eventOf);
}

/** The identity of the database behind `db` (see PgIdentity); throws FeedError when it has no lantern_instance row. */
export async function readPgIdentity(db: Queryable): Promise<PgIdentity> {
  const instance = await row<{ instance_id: string }>(db, IDENTITY);
  if (instance === undefined) {
    throw new FeedError('pg-change-feed: the database has no lantern_instance row; let Lantern migrate it (start it)');
  }
  let systemId = '';
  try {
    systemId = (await row<{ id: string }>(db, SYSTEM_ID))?.id ?? '';
  } catch (err) {
    // A role without pg_monitor may not read pg_control_system; the instance id alone still tells databases apart.
    if (!/permission denied/.test((err as Error).message)) throw err;
  }
  return { systemId, instanceId: instance.instance_id };
}

/**
 * Whether `cursor` can belong to the database behind `db`: its transaction id must already have been handed out.
 * A database restored from a backup older than a copy keeps its identity but goes back in transaction ids; a copy
 * ahead of it would wait for ids the database hands out again to changes the copy never sees.
 */
export async function cursorPossible(db: Queryable, cursor: FeedCursor): Promise<boolean> {
  return (await row<{ valid: boolean }>(db, CURSOR_VALID, [cursor.xid]))?.valid === true;
}

/** How many pages and link_targets rows the database holds: the total a rebuild's progress counts towards. */
export async function countFeedRows(db: Queryable): Promise<number> {
  return (await row<{ n: number }>(db, ROW_COUNT))?.n ?? 0;
}
