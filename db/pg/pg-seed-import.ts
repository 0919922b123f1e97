/**
 * A bookmark import on PostgreSQL, set by set rather than row by row: a statement per step for a chunk of
 * bookmarks (lock the seeds that exist, insert the new ones, bring back the removed ones, fill titles, add
 * labels) instead of four round trips per bookmark, which made 10,000 bookmarks take 11 s on this machine.
 * What it decides is what db/seed-labels.ts importSeeds decides on SQLite, bookmark by bookmark in list
 * order (a URL listed twice is new the first time, merged the second): `planImport` below, pure.
 */
import type pg from 'pg';
import type { Scope } from '../../shared/enumerations.ts';
import { type ImportedSeed, type ImportOutcome, MAX_LABELS_PER_SEED } from '../seed-labels.ts';
import { changed, rows, statement } from './pool.ts';

/** Bookmarks per chunk: each step's arrays stay a few hundred KB. */
const CHUNK = 2000;

const LOCK_FOUND = statement(
  'import.lock-found',
  'SELECT id, url, removed_at AS "removedAt" FROM seeds WHERE url = ANY($1::text[]) ORDER BY id FOR UPDATE',
);
const INSERT_NEW = statement(
  'import.insert-new',
  `INSERT INTO seeds (url, origin, depth, scope, path_only, created_at, updated_at, title, folder)
   SELECT v.url, v.origin, $5, $6, $7, $8, $8, v.title, v.folder
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS v (url, origin, title, folder, n)
   ORDER BY v.n
   RETURNING id, url`,
);
const REVIVE = statement(
  'import.revive',
  `UPDATE seeds s SET depth = $4, scope = $5, path_only = $6, created_at = $7, updated_at = $7, removed_at = NULL,
     title = v.title, folder = v.folder
   FROM unnest($1::bigint[], $2::text[], $3::text[]) AS v (id, title, folder) WHERE s.id = v.id`,
);
const CLEAR = statement('import.clear', 'DELETE FROM seed_labels WHERE seed_id = ANY($1::bigint[])');
const FILL = statement(
  'import.fill',
  `UPDATE seeds s SET title = coalesce(s.title, v.title), folder = coalesce(s.folder, v.folder)
   FROM unnest($1::bigint[], $2::text[], $3::text[]) AS v (id, title, folder) WHERE s.id = v.id`,
);
const LABELS_OF = statement(
  'import.labels-of',
  'SELECT seed_id AS "seedId", label FROM seed_labels WHERE seed_id = ANY($1::bigint[])',
);
const ADD_LABELS = statement(
  'import.add-labels',
  `INSERT INTO seed_labels (seed_id, label) SELECT * FROM unnest($1::bigint[], $2::text[])
   ON CONFLICT (seed_id, label) DO NOTHING`,
);

/** What one bookmark does, in list order: the seed is new, revived (was removed) or merged (is live). */
type Step = { kind: 'new' | 'revive' | 'merge'; bookmark: ImportedSeed };

/**
 * Decides each bookmark's step from the seeds that exist (`found`, by url), as SQLite's loop does: a URL seen
 * earlier in the list is live by then, so merged.
 */
export function planImport(
  list: readonly ImportedSeed[],
  found: ReadonlyMap<string, { removedAt: number | null }>,
): Step[] {
  const seen = new Set<string>();
  return list.map((bookmark) => {
    const before = found.get(bookmark.url);
    const kind = seen.has(bookmark.url)
      ? 'merge'
      : before === undefined
        ? 'new'
        : before.removedAt !== null
          ? 'revive'
          : 'merge';
    seen.add(bookmark.url);
    return { kind, bookmark };
  });
}

/**
 * The labels to insert, in order: each seed's labels after those it keeps, up to MAX_LABELS_PER_SEED, a label
 * it has already no change (as addLabels on SQLite). `kept` is what each seed has once cleared ones are gone.
 */
export function labelsToAdd(
  additions: ReadonlyArray<{ seedId: number; labels: readonly string[] }>,
  kept: ReadonlyMap<number, ReadonlySet<string>>,
): { seedIds: number[]; labels: string[] } {
  const has = new Map<number, Set<string>>();
  const out = { seedIds: [] as number[], labels: [] as string[] };
  for (const { seedId, labels } of additions) {
    let set = has.get(seedId);
    if (set === undefined) has.set(seedId, (set = new Set(kept.get(seedId) ?? [])));
    for (const label of labels) {
      if (set.has(label)) continue;
      if (set.size >= MAX_LABELS_PER_SEED) break;
      set.add(label);
      out.seedIds.push(seedId);
      out.labels.push(label);
    }
  }
  return out;
}

/** Imports one chunk inside the caller's transaction, adding its ids to `out` in list order. */
async function importChunk(
  client: pg.PoolClient,
  list: readonly ImportedSeed[],
  opts: { depth: number; scope: Scope },
  now: number,
  out: ImportOutcome,
): Promise<void> {
  const scope = opts.scope === 'path' ? 'host' : opts.scope;
  const pathOnly = opts.scope === 'path' ? 1 : 0;
  const urls = [...new Set(list.map((b) => b.url))];
  const foundRows = await rows<{ id: number; url: string; removedAt: number | null }>(client, LOCK_FOUND, [urls]);
  const idOf = new Map(foundRows.map((r) => [r.url, r.id]));
  const steps = planImport(list, new Map(foundRows.map((r) => [r.url, r])));
  const fresh = steps.filter((s) => s.kind === 'new').map((s) => s.bookmark);
  if (fresh.length > 0) {
    const made = await rows<{ id: number; url: string }>(client, INSERT_NEW, [
      fresh.map((b) => b.url),
      fresh.map((b) => b.origin),
      fresh.map((b) => b.title),
      fresh.map((b) => b.folder),
      opts.depth,
      scope,
      pathOnly,
      now,
    ]);
    for (const r of made) idOf.set(r.url, r.id);
  }
  const revived = steps.filter((s) => s.kind === 'revive').map((s) => s.bookmark);
  const revivedIds = revived.map((b) => idOf.get(b.url)!);
  if (revived.length > 0) {
    await changed(client, REVIVE, [
      revivedIds,
      revived.map((b) => b.title),
      revived.map((b) => b.folder),
      opts.depth,
      scope,
      pathOnly,
      now,
    ]);
    await changed(client, CLEAR, [revivedIds]);
  }
  // A seed's title and folder are filled by its first merged bookmark (coalesce keeps the first one given).
  const filled = new Map<number, ImportedSeed>();
  for (const s of steps) {
    const id = idOf.get(s.bookmark.url)!;
    if (s.kind === 'merge' && !filled.has(id)) filled.set(id, s.bookmark);
  }
  if (filled.size > 0) {
    const entries = [...filled];
    await changed(client, FILL, [
      entries.map(([id]) => id),
      entries.map(([, b]) => b.title),
      entries.map(([, b]) => b.folder),
    ]);
  }
  const touched = [...new Set(steps.map((s) => idOf.get(s.bookmark.url)!))];
  const kept = new Map<number, Set<string>>();
  for (const r of await rows<{ seedId: number; label: string }>(client, LABELS_OF, [touched])) {
    let set = kept.get(r.seedId);
    if (set === undefined) kept.set(r.seedId, (set = new Set()));
    set.add(r.label);
  }
  const adds = labelsToAdd(
    steps.map((s) => ({ seedId: idOf.get(s.bookmark.url)!, labels: s.bookmark.labels })),
    kept,
  );
  if (adds.seedIds.length > 0) await changed(client, ADD_LABELS, [adds.seedIds, adds.labels]);
  for (const s of steps) (s.kind === 'merge' ? out.merged : out.created).push(idOf.get(s.bookmark.url)!);
}

/** Imports `list` in chunks, inside the caller's transaction (see the module comment). */
export async function importSeedsInChunks(
  client: pg.PoolClient,
  list: readonly ImportedSeed[],
  opts: { depth: number; scope: Scope },
  now: number,
): Promise<ImportOutcome> {
  const out: ImportOutcome = { created: [], merged: [] };
  for (let i = 0; i < list.length; i += CHUNK) await importChunk(client, list.slice(i, i + CHUNK), opts, now, out);
  return out;
}
