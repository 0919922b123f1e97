/**
 * Labels of seeds, and bookmark imports: what a person filed, written by the server (the crawler never
 * writes these). A label edit or an import merged into a live seed leaves `seeds.updated_at` alone, so
 * the crawler's cursor over seeds does not take it for a resubmission (no re-crawl for a new label).
 * Callers pass labels already checked (server/capture/label.ts); multi-statement writes run in one
 * transaction here.
 */
import type { Database } from 'better-sqlite3';
import type { Scope } from '../shared/enumerations.ts';

/** Most labels one seed carries; extra ones are left off. */
export const MAX_LABELS_PER_SEED = 20;

/** One bookmark to store as a seed (its URL already normalized and judged). */
export interface ImportedSeed {
  url: string;
  origin: string;
  title: string | null;
  folder: string | null;
  labels: string[];
}

/** What an import did: ids of seeds it created, and of seeds that existed and took the bookmark's labels. */
export interface ImportOutcome {
  created: number[];
  merged: number[];
}

/** A label and how many live seeds carry it. */
export interface LabelCount {
  label: string;
  seeds: number;
}

/** Prepared statements for labels and imports, created once per connection. */
export function seedLabelQueries(db: Database) {
  const find = db.prepare<[string], { id: number; removedAt: number | null }>(
    'SELECT id, removed_at AS removedAt FROM seeds WHERE url = ?',
  );
  const insert = db
    .prepare<[string, string, number, string, number, number, number, string | null, string | null], number>(
      `INSERT INTO seeds (url, origin, depth, scope, path_only, created_at, updated_at, title, folder)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    )
    .pluck();
  // A seed removed but not yet deleted by the crawler comes back as new, as POST /api/seeds does it.
  const revive = db.prepare<[number, string, number, number, number, string | null, string | null, number]>(
    `UPDATE seeds SET depth = ?, scope = ?, path_only = ?, created_at = ?, updated_at = ?, removed_at = NULL,
       title = ?, folder = ? WHERE id = ?`,
  );
  const fill = db.prepare<[string | null, string | null, number]>(
    'UPDATE seeds SET title = coalesce(title, ?), folder = coalesce(folder, ?) WHERE id = ?',
  );
  const clear = db.prepare<[number]>('DELETE FROM seed_labels WHERE seed_id = ?');
  const add = db.prepare<[number, string]>('INSERT OR IGNORE INTO seed_labels (seed_id, label) VALUES (?, ?)');
  const has = db.prepare<[number, string], number>('SELECT 1 FROM seed_labels WHERE seed_id = ? AND label = ?').pluck();
  const count = db.prepare<[number], number>('SELECT count(*) FROM seed_labels WHERE seed_id = ?').pluck();
  const live = db.prepare<[number], number>('SELECT 1 FROM seeds WHERE id = ? AND removed_at IS NULL').pluck();
  const counts = db.prepare<[number], LabelCount>(
    `SELECT l.label, count(*) AS seeds FROM seed_labels l JOIN seeds s ON s.id = l.seed_id
     WHERE s.removed_at IS NULL GROUP BY l.label ORDER BY l.label LIMIT ?`,
  );

  /** Adds labels to a seed up to MAX_LABELS_PER_SEED (a label it has already is no change). */
  function addLabels(seedId: number, labels: readonly string[]): void {
    let n = count.get(seedId) ?? 0;
    for (const label of labels) {
      if (has.get(seedId, label) !== undefined) continue;
      if (n >= MAX_LABELS_PER_SEED) break;
      add.run(seedId, label);
      n++;
    }
  }

  const importAll = db.transaction(
    (list: readonly ImportedSeed[], opts: { depth: number; scope: Scope }, now: number): ImportOutcome => {
      const out: ImportOutcome = { created: [], merged: [] };
      const scope = opts.scope === 'path' ? 'host' : opts.scope;
      const pathOnly = opts.scope === 'path' ? 1 : 0;
      for (const s of list) {
        const found = find.get(s.url);
        if (found === undefined) {
          const id = insert.get(s.url, s.origin, opts.depth, scope, pathOnly, now, now, s.title, s.folder)!;
          addLabels(id, s.labels);
          out.created.push(id);
        } else if (found.removedAt !== null) {
          revive.run(opts.depth, scope, pathOnly, now, now, s.title, s.folder, found.id);
          clear.run(found.id);
          addLabels(found.id, s.labels);
          out.created.push(found.id);
        } else {
          // A seed already: it keeps its depth, scope and crawl; it gains the bookmark's labels (and title, if it had none).
          fill.run(s.title, s.folder, found.id);
          addLabels(found.id, s.labels);
          out.merged.push(found.id);
        }
      }
      return out;
    },
  );

  const replace = db.transaction((seedId: number, labels: readonly string[]): boolean => {
    if (live.get(seedId) === undefined) return false;
    clear.run(seedId);
    addLabels(seedId, labels);
    return true;
  });

  const merge = db.transaction((seedId: number, labels: readonly string[]): void => addLabels(seedId, labels));

  return {
    /**
     * Stores bookmarks as seeds in one transaction: a new URL becomes a seed of the import's depth and
     * scope with its title, folder and labels; a URL that is a seed already keeps its settings and crawl
     * and gains the labels (no re-crawl).
     */
    importSeeds(list: readonly ImportedSeed[], opts: { depth: number; scope: Scope }, now: number): ImportOutcome {
      return importAll.immediate(list, opts, now);
    },
    /** Sets a live seed's labels to exactly `labels` (the first MAX_LABELS_PER_SEED); false if there is no such live seed. */
    setLabels(seedId: number, labels: readonly string[]): boolean {
      return replace.immediate(seedId, labels);
    },
    /** Adds labels to a seed, keeping those it has (up to MAX_LABELS_PER_SEED in all). */
    addLabels(seedId: number, labels: readonly string[]): void {
      merge.immediate(seedId, labels);
    },
    /** Every label in use by a live seed, with how many seeds carry it, by name (at most `limit`). */
    listLabels(limit = 1000): LabelCount[] {
      return counts.all(limit);
    },
  };
}
