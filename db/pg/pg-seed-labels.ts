/**
 * Labels and bookmark imports on PostgreSQL, doing what db/seed-labels.ts does on SQLite (see there for what
 * each keeps and changes; the import's steps are in db/pg/pg-seed-import.ts). Each write is one transaction;
 * a seed whose labels change is locked first (SELECT ... FOR UPDATE), so two requests labelling one seed at
 * once cannot take it past MAX_LABELS_PER_SEED, as SQLite's one writer at a time cannot either.
 */
import type pg from 'pg';
import { MAX_LABELS_PER_SEED } from '../seed-labels.ts';
import type { SeedLabelStore } from '../server-store.ts';
import { changed, inTransaction, row, rows, statement } from './pool.ts';
import { importSeedsInChunks } from './pg-seed-import.ts';

const CLEAR = statement('labels.clear', 'DELETE FROM seed_labels WHERE seed_id = $1');
const ADD = statement(
  'labels.add',
  'INSERT INTO seed_labels (seed_id, label) VALUES ($1, $2) ON CONFLICT (seed_id, label) DO NOTHING',
);
const COUNT = statement('labels.count', 'SELECT count(*) AS n FROM seed_labels WHERE seed_id = $1');
const LOCK_LIVE = statement('labels.lock-live', 'SELECT id FROM seeds WHERE id = $1 AND removed_at IS NULL FOR UPDATE');
const LOCK_ANY = statement('labels.lock-any', 'SELECT id FROM seeds WHERE id = $1 FOR UPDATE');
const COUNTS = statement(
  'labels.counts',
  `SELECT l.label, count(*) AS seeds FROM seed_labels l JOIN seeds s ON s.id = l.seed_id
   WHERE s.removed_at IS NULL GROUP BY l.label ORDER BY l.label COLLATE "C" LIMIT $1`,
);

/**
 * Adds labels to a seed (locked by the caller) up to MAX_LABELS_PER_SEED; a label it has already is no change.
 * Exported for the bulk actions (db/pg/pg-seed-bulk.ts), which add labels the same way.
 */
export async function addLabelsLocked(client: pg.PoolClient, seedId: number, labels: readonly string[]): Promise<void> {
  let n = (await row<{ n: number }>(client, COUNT, [seedId]))?.n ?? 0;
  for (const label of labels) {
    if (n >= MAX_LABELS_PER_SEED) break;
    n += await changed(client, ADD, [seedId, label]);
  }
}

/** The label and import port on PostgreSQL (see SeedLabelStore). */
export function pgSeedLabelStore(pool: pg.Pool): SeedLabelStore {
  return {
    importSeeds(list, opts, now) {
      return inTransaction(pool, (client) => importSeedsInChunks(client, list, opts, now));
    },
    setLabels(seedId, labels) {
      return inTransaction(pool, async (client) => {
        if ((await row(client, LOCK_LIVE, [seedId])) === undefined) return false;
        await changed(client, CLEAR, [seedId]);
        await addLabelsLocked(client, seedId, labels);
        return true;
      });
    },
    addLabels(seedId, labels) {
      return inTransaction(pool, async (client) => {
        await row(client, LOCK_ANY, [seedId]);
        await addLabelsLocked(client, seedId, labels);
      });
    },
    listLabels: (limit = 1000) => rows<{ label: string; seeds: number }>(pool, COUNTS, [limit]),
  };
}
