/**
 * One action on many seeds on PostgreSQL, as db/seed-bulk.ts does it on SQLite: one transaction for the whole
 * selection, each live seed locked as it is changed, removed or unknown ids passed over.
 */
import type pg from 'pg';
import type { SeedBulkStore } from '../server-store.ts';
import { changed, inTransaction, row, statement } from './pool.ts';
import { addLabelsLocked } from './pg-seed-labels.ts';

const LIVE = statement('bulk.live', 'SELECT id FROM seeds WHERE id = $1 AND removed_at IS NULL FOR UPDATE');
const REMOVE = statement(
  'bulk.remove',
  'UPDATE seeds SET removed_at = $1, updated_at = $1 WHERE id = $2 AND removed_at IS NULL',
);
// updated_at moves past any cursor (at least one past its old value), as POST /api/seeds of the same URL does.
const TOUCH = statement(
  'bulk.touch',
  'UPDATE seeds SET updated_at = greatest($1, updated_at + 1) WHERE id = $2 AND removed_at IS NULL',
);
const DROP = statement('bulk.drop-label', 'DELETE FROM seed_labels WHERE seed_id = $1 AND label = $2');

/** The bulk action port on PostgreSQL (see SeedBulkStore). */
export function pgSeedBulkStore(pool: pg.Pool): SeedBulkStore {
  return {
    applyToSeeds(action, ids, labels, now) {
      return inTransaction(pool, async (client) => {
        let count = 0;
        for (const id of new Set(ids)) {
          if ((await row(client, LIVE, [id])) === undefined) continue;
          count++;
          if (action === 'remove') await changed(client, REMOVE, [now, id]);
          else if (action === 'crawl') await changed(client, TOUCH, [now, id]);
          else if (action === 'unlabel') for (const label of labels) await changed(client, DROP, [id, label]);
          else await addLabelsLocked(client, id, labels);
        }
        return count;
      });
    },
  };
}
