/**
 * How the title index (title-index.ts) gets its contents at start: restored from its snapshot file,
 * or built from the pages table. Both run in steps, giving the event loop a turn between them, and
 * stop (returning undefined) as soon as `closed()` says the index was closed.
 */
import type { PageQueries } from '../../db/pages.ts';
import { OPTIONS, indexFingerprint, processTerm, toDoc, tokenize } from './title-doc.ts';
import { TermSearch } from './term-search.ts';
import type { TermSearchState } from './term-search.ts';
import { TermStateBuilder } from './term-state-builder.ts';
import { checksumSteps, decodeSnapshot, encodeSnapshot, readSnapshotFile, SnapshotError } from './title-snapshot.ts';
import type { SnapshotCursor } from './title-snapshot.ts';

/** A loaded index and the last page change (seq, and the page's id) it holds. */
export interface LoadedIndex {
  ms: TermSearch;
  cursor: number;
  cursorId: number;
  /** Page changes read to build it (0 for a restore). */
  changes: number;
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Runs `steps` to the end, giving the event loop a turn after each; undefined if closed meanwhile. */
export async function drive<T>(steps: Generator<void, T, void>, closed: () => boolean): Promise<T | undefined> {
  let step = steps.next();
  while (!step.done) {
    await turn();
    if (closed()) return undefined;
    step = steps.next();
  }
  return step.value;
}

/**
 * The build at start: reads, `chunkRows` at a time, every page whose change comes after `from` and
 * is no later than the last one at the start (seq ≤ S), feeding TermStateBuilder (about 4x faster
 * than adding pages to MiniSearch one by one), then builds the index in one go. Each page has one
 * row and one seq, so no page is read twice; a page stored, re-stored or made unsearchable meanwhile
 * gets a seq above S, for the caller's catch-up to apply. Undefined when there was nothing to build.
 */
export async function buildFromPages(
  pages: PageQueries,
  from: { cursor: number; cursorId: number },
  chunkRows: number,
  closed: () => boolean,
): Promise<LoadedIndex | undefined> {
  const upTo = pages.seqCheck(0).maxSeq;
  const builder = new TermStateBuilder({ tokenize, processTerm });
  let { cursor, cursorId } = from;
  let changes = 0;
  while (cursor < upTo) {
    const rows = pages.pagesAfterSeq(cursor, chunkRows);
    let last = -1;
    for (const row of rows) {
      if (row.seq > upTo) break;
      if (row.indexed) builder.add(toDoc(row));
      last = row.seq;
      cursorId = row.id;
      changes++;
    }
    if (last === -1) break; // nothing left at or below S
    cursor = last;
    await turn();
    if (closed()) return undefined;
  }
  if (builder.size === 0) return undefined;
  const state = await drive(builder.finishSteps(), closed);
  if (state === undefined) return undefined;
  const ms = await drive(TermSearch.restoreSteps(state, OPTIONS), closed);
  return ms === undefined ? undefined : { ms, cursor, cursorId, changes };
}

/**
 * The index in snapshot file `file`, checked against the pages table; undefined when there is no
 * such file (or the index was closed). Throws (SnapshotError and the like) when the file cannot be
 * used.
 */
export async function restoreFromSnapshot(
  pages: PageQueries,
  file: string,
  closed: () => boolean,
): Promise<{ loaded: LoadedIndex; at: SnapshotCursor } | undefined> {
  const buf = await readSnapshotFile(file);
  if (buf === undefined || closed()) return undefined;
  const { state, at } = decodeSnapshot(buf, indexFingerprint(), { checksum: false });
  await drive(checksumSteps(buf), closed);
  if (closed()) return undefined;
  verifySnapshot(pages, at);
  const ms = await drive(TermSearch.restoreSteps(state, OPTIONS), closed);
  return ms === undefined ? undefined : { loaded: { ms, cursor: at.cursor, cursorId: at.cursorId, changes: 0 }, at };
}

/**
 * Throws SnapshotError unless the snapshot fits the pages table: its cursor is not past the last
 * write and names the page written there (if that page was not rewritten since), and its sample
 * pages have the same urls and, if not rewritten since, are searchable. Catches a snapshot of
 * another database.
 */
export function verifySnapshot(pages: PageQueries, at: SnapshotCursor): void {
  const { maxSeq, idAtSeq } = pages.seqCheck(at.cursor);
  if (at.cursor > maxSeq)
    throw new SnapshotError(`title-index: snapshot cursor ${at.cursor} is past the last page write (${maxSeq})`);
  if (idAtSeq !== undefined && idAtSeq !== at.cursorId)
    throw new SnapshotError('title-index: snapshot cursor names another page');
  for (const check of at.checks) {
    const page = pages.pageSeq(check.id);
    if (page === undefined || page.url !== check.url || (page.seq <= at.cursor && !page.indexed)) {
      throw new SnapshotError(`title-index: snapshot page ${check.id} does not match the pages table`);
    }
  }
}

/** Pages of a snapshot looked up in the pages table before it is used (see restoreFromSnapshot). */
const SPOT_CHECKS = 32;

/**
 * A snapshot of the index state `state` whose last page change is `cursor` (page `cursorId`), with
 * SPOT_CHECKS pages spread over it recorded by id and url, for restoreFromSnapshot to look up.
 */
export function encodeIndexSnapshot(
  pages: PageQueries,
  state: TermSearchState,
  cursor: number,
  cursorId: number,
): Buffer[] {
  const checks: SnapshotCursor['checks'] = [];
  const n = state.ids.length;
  const picks = Math.min(n, SPOT_CHECKS);
  for (let k = 0; k < picks; k++) {
    const id = state.ids[Math.floor((k * n) / picks)];
    const page = pages.pageSeq(id);
    if (page !== undefined) checks.push({ id, url: page.url });
  }
  return encodeSnapshot(state, { cursor, cursorId, checks }, indexFingerprint());
}
