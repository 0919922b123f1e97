/**
 * Seeds and their labels as a search copy needs them (the `label:` filter reads them beside pages): small tables
 * (a person's bookmarks), so a copy takes them whole whenever their fingerprint changes rather than through a
 * change feed of their own.
 */
import { type Queryable, row, rows, statement } from './pool.ts';

/** A seeds row as the copy stores it (the columns SQLite's seeds table has). */
export interface SeedCopyRow {
  id: number;
  url: string;
  origin: string;
  depth: number;
  scope: string;
  created_at: number;
  updated_at: number;
  removed_at: number | null;
  path_only: number;
  title: string | null;
  folder: string | null;
}

/** Every seed and every label, as read at one moment each. */
export interface SeedsForCopy {
  seeds: SeedCopyRow[];
  labels: Array<{ seed_id: number; label: string }>;
}

// Counts, the last update, the removals, and a sum over the labels' text: any add, removal, relabelling or
// restore changes one of them (a label renamed to one of equal hash aside).
const FINGERPRINT = statement(
  'seed-copy.fingerprint',
  `SELECT (SELECT count(*) FROM seeds)::text || ':' || (SELECT coalesce(max(updated_at), 0) FROM seeds)::text || ':' ||
     (SELECT coalesce(sum(coalesce(removed_at, 0) + id), 0) FROM seeds)::text || ':' ||
     (SELECT count(*) FROM seed_labels)::text || ':' ||
     (SELECT coalesce(sum(hashtext(label)::bigint + seed_id), 0) FROM seed_labels)::text AS print`,
);
const SEEDS = statement(
  'seed-copy.seeds',
  `SELECT id, url, origin, depth, scope, created_at, updated_at, removed_at, path_only, title, folder
   FROM seeds ORDER BY id`,
);
const LABELS = statement('seed-copy.labels', 'SELECT seed_id, label FROM seed_labels ORDER BY seed_id, label');

/** A short text that changes whenever seeds or labels change in a way the copy must follow. */
export async function readSeedFingerprint(db: Queryable): Promise<string> {
  return (await row<{ print: string }>(db, FINGERPRINT))?.print ?? '';
}

/** Every seed and label (see SeedsForCopy). */
export async function readSeedsForCopy(db: Queryable): Promise<SeedsForCopy> {
  return {
    seeds: await rows<SeedCopyRow>(db, SEEDS),
    labels: await rows<{ seed_id: number; label: string }>(db, LABELS),
  };
}
