/**
 * The title index: MiniSearch in the server's memory over the short fields of every searchable page
 * (title, the first headings, URL words), for prefix and typo-tolerant matching and suggestions.
 * Page bodies are not here (they are in FTS5). Descriptions are not either: measured at 10k
 * generated pages, a 20-word description took the index from 3.3 to 4.9 KB of heap per page and
 * doubled its build time, and its words are common ones; FTS5 searches descriptions (bm25 weight 3).
 * MiniSearch keeps a Map per term and field, so memory grows with every distinct word: headings
 * are capped per page for the same reason.
 *
 * It follows the pages table through `pages.seq`: `catchUp` reads rows past its cursor in chunks,
 * adding, replacing (a re-crawled page) or discarding (indexed = 0) entries; it yields to the event
 * loop with setImmediate between chunks. Later calls pick up new writes; a missed notification only
 * delays an update until the next call. The build at start reads every page the same way but
 * builds the index in one go (TermStateBuilder, about 4x faster than adding pages one by one),
 * still yielding between chunks and steps, so the server answers (from FTS5, saying it is
 * indexing) while it runs.
 *
 * With a snapshot file (title-snapshot.ts), the start first restores the index from it (in steps,
 * the event loop turning between them), checks it against the pages table, and then catches up
 * from its cursor as above; a snapshot is written after a catch-up that applied enough changes,
 * and at close. Any problem with the file is reported through `warn` and the index is built from
 * the pages table instead: the snapshot only ever saves time. While a snapshot is exported (in
 * steps, about 0.3-0.5 s at 100k pages, at most every SNAPSHOT_MIN_INTERVAL_MS) catch-ups wait,
 * so a page stored meanwhile reaches the title index that much later (FTS5 has it at once).
 */
import type { PageQueries } from '../../db/pages.ts';
import { OPTIONS, processTerm, toDoc, tokenize } from './title-doc.ts';
import { TermSearch } from './term-search.ts';
import type { TermSearchState, TitleDoc } from './term-search.ts';
import { buildFromPages, drive, encodeIndexSnapshot, restoreFromSnapshot } from './title-index-load.ts';
import type { LoadedIndex } from './title-index-load.ts';
import { removeStaleTemps, writeSnapshotFile, writeSnapshotFileSync } from './title-snapshot.ts';
import type { SnapshotCursor } from './title-snapshot.ts';

import { FUZZY_MIN_CHARS, POSTINGS_BUDGET, searchTerms } from './title-search.ts';
import { TitleCompletions } from './title-completions.ts';
import type { TitleHit, TitleSearchOptions } from './title-search.ts';

export { MAX_COMPLETION_SCAN, TITLE_BOOST } from './term-search.ts';
export { FUZZY_MIN_CHARS, MIN_PREFIX_CHARS, POSTINGS_BUDGET, RARE_POSTINGS } from './title-search.ts';
export type { TitleHit, TitleSearchOptions } from './title-search.ts';
export { urlWords } from './title-doc.ts';

/** Rows read per chunk during build and refresh. */
export const CHUNK_ROWS = 500;
/** The snapshot's file name in DATA_DIR (server/main.ts). */
export const TITLE_SNAPSHOT_FILE = 'title-index.snapshot';

/** Where the title index keeps its snapshot, and how often it rewrites it. */
export interface TitleSnapshotOptions {
  file: string;
  /** Told why a snapshot was not used or could not be written (the index works on without it). */
  warn: (message: string) => void;
  /** Page changes applied since the last snapshot before a catch-up writes another (default SNAPSHOT_MIN_CHANGES). */
  minChanges?: number;
  /** Least time between two snapshots written after catch-ups (default SNAPSHOT_MIN_INTERVAL_MS). */
  minIntervalMs?: number;
}

/** Defaults of TitleSnapshotOptions: a snapshot costs about 0.3 s of event loop at 100k pages. */
export const SNAPSHOT_MIN_CHANGES = 1000;
export const SNAPSHOT_MIN_INTERVAL_MS = 5 * 60_000;

/** The in-memory title index of one server (see the file comment). */
export class TitleIndex {
  readonly #pages: PageQueries;
  readonly #chunkRows: number;
  readonly #budget: number;
  readonly #snapshot: TitleSnapshotOptions | undefined;
  #ms: TermSearch;
  #cursor = 0;
  /** Id of the page whose change is at the cursor (a snapshot records it). */
  #cursorId = 0;
  #ready = false;
  #scheduled: NodeJS.Immediate | undefined;
  #closed = false;
  /** Bumped by every change of the index (a load, a chunk of page changes). */
  #version = 0;
  /** Completions of typed prefixes, with their table of 1-2 letter prefixes (title-completions.ts). */
  readonly #completions: TitleCompletions;
  #started = false;
  #loading = false;
  #exporting = false;
  /** Whether the start (restore or build) was begun. */
  #loadTried = false;
  #restored: SnapshotCursor | undefined;
  #changesSinceSnapshot = 0;
  #lastSnapshotAt = Number.NEGATIVE_INFINITY;
  #writeScheduled: NodeJS.Immediate | undefined;
  /** Snapshot writes run one after another, in this chain. */
  #writes: Promise<void> = Promise.resolve();
  #pendingWrites = 0;
  #restoreDone: Promise<void> = Promise.resolve();

  /**
   * An empty index reading from `pages`; nothing happens until `catchUp` is called. `chunkRows` and
   * `postingsBudget` default to CHUNK_ROWS and POSTINGS_BUDGET; without `snapshot`, no file is read
   * or written.
   */
  constructor(
    pages: PageQueries,
    opts: { chunkRows?: number; postingsBudget?: number; snapshot?: TitleSnapshotOptions } = {},
  ) {
    this.#pages = pages;
    this.#chunkRows = opts.chunkRows ?? CHUNK_ROWS;
    this.#budget = opts.postingsBudget ?? POSTINGS_BUDGET;
    this.#snapshot = opts.snapshot;
    this.#ms = new TermSearch(OPTIONS);
    const self = this;
    this.#completions = new TitleCompletions(
      {
        get ms() {
          return self.#ms;
        },
        get version() {
          return self.#version;
        },
        get cursor() {
          return self.#cursor;
        },
        get closed() {
          return self.#closed;
        },
      },
      (message) => this.#warn(message),
    );
  }

  /** Where the start began: the snapshot's cursor when the index was restored from one, else undefined. */
  get restoredFrom(): SnapshotCursor | undefined {
    return this.#restored;
  }

  /** True once the index has caught up with the pages table at least once. */
  get ready(): boolean {
    return this.#ready;
  }

  /** The seq of the last page change applied. */
  get cursor(): number {
    return this.#cursor;
  }

  /** Pages in the index. */
  get size(): number {
    return this.#ms.documentCount;
  }

  /**
   * Applies changes past the cursor: one chunk now, and if more are waiting, the rest in later
   * chunks via setImmediate (so a large backlog never blocks the event loop). While a chunked
   * catch-up is under way, further calls do nothing (it will get there).
   */
  catchUp(): void {
    this.#started = true;
    if (this.#closed || this.#scheduled !== undefined || this.#loading || this.#exporting) return;
    if (this.#step()) this.#schedule();
  }

  /**
   * Like catchUp, but the first chunk too runs on a later turn of the event loop (the build at
   * start). The first call with a snapshot file restores from it first (asynchronously).
   */
  catchUpLater(): void {
    this.#started = true;
    if (this.#closed || this.#scheduled !== undefined || this.#loading || this.#exporting) return;
    if (this.#loadTried) {
      this.#schedule();
      return;
    }
    this.#loadTried = true;
    this.#loading = true;
    const snap = this.#snapshot;
    this.#restoreDone = (async () => {
      if (snap !== undefined) await this.#restore(snap);
      if (this.#restored === undefined && !this.#closed) await this.#build();
      await this.#completions.buildTable();
    })()
      .catch((err: unknown) => {
        // Not expected (the pages table could not be read): the chunked catch-up below builds the index instead.
        this.#warn(`title-index: bulk build failed, adding pages one chunk at a time (${(err as Error).message})`);
      })
      .finally(() => {
        this.#loading = false;
        if (!this.#closed) this.#schedule();
      });
  }

  /** Reports a problem that only costs time (through the snapshot options' `warn`, else the console). */
  #warn(message: string): void {
    if (this.#snapshot !== undefined) this.#snapshot.warn(message);
    else console.error(message);
  }

  /** The build at start (see buildFromPages); the index stays empty until it is swapped in whole. */
  async #build(): Promise<void> {
    const built = await buildFromPages(
      this.#pages,
      { cursor: this.#cursor, cursorId: this.#cursorId },
      this.#chunkRows,
      () => this.#closed,
    );
    if (built === undefined) return; // nothing to build (or closed): the ordinary catch-up reads what there is
    this.#load(built);
    this.#changesSinceSnapshot += built.changes;
  }

  #load(loaded: LoadedIndex): void {
    this.#ms = loaded.ms;
    this.#cursor = loaded.cursor;
    this.#cursorId = loaded.cursorId;
    this.#completions.clear();
    this.#version++;
  }

  /** Whether 1-2 letter prefixes are completed from the table (built for the index as it is now). */
  get shortPrefixTableCurrent(): boolean {
    return this.#completions.tableCurrent;
  }

  /** Restores the index from the snapshot file if there is a usable one; says why not through `warn`. */
  async #restore(snap: TitleSnapshotOptions): Promise<void> {
    try {
      const stale = await removeStaleTemps(snap.file);
      if (stale.length > 0)
        snap.warn(
          `title-index: removed ${stale.length} unfinished snapshot file(s) of an earlier run: ${stale.join(', ')}`,
        );
      const restored = await restoreFromSnapshot(this.#pages, snap.file, () => this.#closed);
      if (restored === undefined) return;
      this.#load(restored.loaded);
      this.#restored = restored.at;
    } catch (err) {
      snap.warn(
        `title-index: snapshot ${snap.file} not used, building from the pages table (${(err as Error).message})`,
      );
    }
  }

  /**
   * Writes a snapshot of the index now (after any write in progress); resolves when it is on disk.
   * Failures are reported through `warn`, not thrown. Does nothing without a snapshot file.
   */
  writeSnapshot(): Promise<void> {
    const snap = this.#snapshot;
    if (snap === undefined) return Promise.resolve();
    this.#pendingWrites++;
    const job = this.#writes
      .then(() => this.#snapshotNow(snap))
      .finally(() => {
        this.#pendingWrites--;
      });
    this.#writes = job;
    return job;
  }

  /**
   * One snapshot: exported in steps while catch-ups wait (they would change what is being
   * exported), then written. Never rejects: a failure is told to `warn` (the index works on).
   */
  async #snapshotNow(snap: TitleSnapshotOptions): Promise<void> {
    await this.#restoreDone;
    if (this.#closed) return;
    this.#exporting = true;
    try {
      let state: TermSearchState | undefined;
      try {
        state = await drive(this.#ms.exportSteps(), () => this.#closed);
      } finally {
        this.#exporting = false;
        // Resume the catch-ups that waited (only if the index was started: this is no start).
        if (this.#started && !this.#closed && !this.#loading && this.#scheduled === undefined) this.#schedule();
      }
      if (state !== undefined) await writeSnapshotFile(snap.file, this.#encode(state));
    } catch (err) {
      snap.warn(`title-index: could not write snapshot ${snap.file} (${(err as Error).message})`);
    }
  }

  #encode(state: TermSearchState): Buffer[] {
    const data = encodeIndexSnapshot(this.#pages, state, this.#cursor, this.#cursorId);
    this.#changesSinceSnapshot = 0;
    this.#lastSnapshotAt = performance.now();
    return data;
  }

  /** After a catch-up: a snapshot on a later turn if enough changed since the last one (see TitleSnapshotOptions). */
  #maybeSnapshot(): void {
    const snap = this.#snapshot;
    if (snap === undefined || this.#writeScheduled !== undefined || this.#pendingWrites > 0 || this.#closed) return;
    if (this.#changesSinceSnapshot < (snap.minChanges ?? SNAPSHOT_MIN_CHANGES)) return;
    if (performance.now() - this.#lastSnapshotAt < (snap.minIntervalMs ?? SNAPSHOT_MIN_INTERVAL_MS)) return;
    this.#writeScheduled = setImmediate(() => {
      this.#writeScheduled = undefined;
      if (!this.#closed) void this.writeSnapshot();
    });
  }

  #schedule(): void {
    this.#scheduled = setImmediate(() => {
      this.#scheduled = undefined;
      if (this.#closed || this.#exporting) return; // a snapshot export resumes the catch-up when done
      if (this.#step()) this.#schedule();
    });
  }

  /** Applies one chunk; true when a full chunk was read (more may be waiting). */
  #step(): boolean {
    const rows = this.#pages.pagesAfterSeq(this.#cursor, this.#chunkRows);
    const fresh: TitleDoc[] = [];
    for (const row of rows) {
      if (this.#ms.has(row.id)) this.#ms.discard(row.id);
      if (row.indexed) fresh.push(toDoc(row));
    }
    if (fresh.length > 0) this.#ms.addAll(fresh);
    if (rows.length > 0) {
      this.#version++;
      this.#cursor = rows[rows.length - 1].seq;
      this.#cursorId = rows[rows.length - 1].id;
      this.#changesSinceSnapshot += rows.length;
    }
    const more = rows.length === this.#chunkRows;
    if (!more) {
      this.#ready = true;
      this.#maybeSnapshot();
      // Once the pages table is quiet (a catch-up found nothing new), the table follows the index.
      if (rows.length === 0 && !this.#completions.tableCurrent) void this.#completions.buildTable();
    }
    return more;
  }

  /**
   * Stops any scheduled catch-up chunk; with a snapshot file, writes a last snapshot (synchronously)
   * if the index is built and changed since the last one.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#scheduled !== undefined) clearImmediate(this.#scheduled);
    if (this.#writeScheduled !== undefined) clearImmediate(this.#writeScheduled);
    this.#scheduled = undefined;
    this.#writeScheduled = undefined;
    const snap = this.#snapshot;
    if (snap !== undefined && this.#ready && this.#changesSinceSnapshot > 0) {
      try {
        writeSnapshotFileSync(snap.file, this.#encode(this.#ms.exportState()));
      } catch (err) {
        snap.warn(`title-index: could not write snapshot ${snap.file} at close (${(err as Error).message})`);
      }
    }
  }

  /** The folded terms the title index searches for these words (same tokenizer and folding as the index). */
  queryTerms(words: readonly string[]): string[] {
    return [
      ...new Set(
        tokenize(words.join(' '))
          .map(processTerm)
          .filter((t): t is string => t !== null),
      ),
    ];
  }

  /** The best `limit` pages for `words`, within the postings budget (see searchTerms in title-search.ts). */
  search(words: readonly string[], opts: TitleSearchOptions): { hits: TitleHit[]; complete: boolean } {
    return searchTerms(this.#ms, this.queryTerms(words), opts, this.#budget);
  }

  /** Indexed words one edit (two from 8 letters) away from the folded `word`: candidate corrections of a typo. */
  corrections(word: string, limit: number): string[] {
    const w = processTerm(word);
    if (w === null || w.length < FUZZY_MIN_CHARS) return [];
    return this.#ms.similar(w, w.length >= 8 ? 2 : 1, limit);
  }

  /**
   * Indexed words within `distance` edits (Levenshtein) of the folded `word`, with how widespread
   * each is (pages, weighted by field): candidates for a spelling correction (spelling.ts).
   */
  spellings(word: string, distance: number): Array<{ term: string; weight: number }> {
    const w = processTerm(word);
    if (w === null) return [];
    return this.#ms.similarWeighted(w, distance);
  }

  /** Indexed words completing `prefix` (folded), most widespread first (see title-completions.ts). */
  complete(prefix: string, limit: number): string[] {
    return this.#completions.complete(prefix, limit);
  }
}
