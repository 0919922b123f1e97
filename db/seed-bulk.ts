/**
 * One action on many seeds at once (the Seeds library's selection): remove them, crawl them again, add
 * or take off labels. Each runs in one transaction, so a selection is changed whole or not at all. Like
 * the single-seed routes, removing only marks a seed (the crawler undoes its work), crawling again
 * touches `updated_at` (the crawler's cursor takes it as a resubmission), and labels leave it alone.
 */
import type { Database } from 'better-sqlite3';
import { MAX_LABELS_PER_SEED } from './seed-labels.ts';

/** What one bulk action does to each seed. */
export type BulkAction = 'remove' | 'crawl' | 'label' | 'unlabel';

/** Prepared statements for bulk actions, created once per connection. */
export function seedBulkQueries(db: Database) {
  const live = db.prepare<[number], number>('SELECT 1 FROM seeds WHERE id = ? AND removed_at IS NULL').pluck();
  const remove = db.prepare<[number, number, number]>(
    'UPDATE seeds SET removed_at = ?, updated_at = ? WHERE id = ? AND removed_at IS NULL',
  );
  // updated_at moves past any cursor (at least one past its old value), as POST /api/seeds of the same URL does.
  const touch = db.prepare<[number, number]>(
    'UPDATE seeds SET updated_at = max(?, updated_at + 1) WHERE id = ? AND removed_at IS NULL',
  );
  const count = db.prepare<[number], number>('SELECT count(*) FROM seed_labels WHERE seed_id = ?').pluck();
  const add = db.prepare<[number, string]>('INSERT OR IGNORE INTO seed_labels (seed_id, label) VALUES (?, ?)');
  const drop = db.prepare<[number, string]>('DELETE FROM seed_labels WHERE seed_id = ? AND label = ?');

  const run = db.transaction(
    (action: BulkAction, ids: readonly number[], labels: readonly string[], now: number): number => {
      let changed = 0;
      for (const id of new Set(ids)) {
        if (live.get(id) === undefined) continue;
        changed++;
        if (action === 'remove') remove.run(now, now, id);
        else if (action === 'crawl') touch.run(now, id);
        else if (action === 'unlabel') for (const label of labels) drop.run(id, label);
        else {
          let n = count.get(id) ?? 0;
          for (const label of labels) {
            if (n >= MAX_LABELS_PER_SEED) break;
            n += add.run(id, label).changes;
          }
        }
      }
      return changed;
    },
  );

  return {
    /**
     * Applies `action` to every live seed among `ids` (with `labels` for label and unlabel) in one
     * transaction; answers how many live seeds it applied to (ids of removed or unknown seeds are passed over).
     */
    applyToSeeds(action: BulkAction, ids: readonly number[], labels: readonly string[], now: number): number {
      return run.immediate(action, ids, labels, now);
    },
  };
}
