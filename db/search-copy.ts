/**
 * The search copy: with PostgreSQL as the record, each Lantern server keeps its search index (the FTS5 tables
 * server/search/ reads) in a SQLite database of its own, DATA_DIR/search-copy/lantern.db, derived from
 * PostgreSQL's pages and link targets through the change feed (db/pg/pg-change-feed.ts). It has SQLite's schema
 * (db/migrations), so its pages rows and their full-text entries are written by db/pages.ts as on SQLite, its
 * link_targets rows with their anchors_fts entries as db/link-targets.ts writes them, and a table of its own: the
 * feed's cursor with the identity of the database it was made from. Pages and link targets keep PostgreSQL's ids as
 * their row ids, so every copy of one database holds the same rows under the same ids whenever and in whatever
 * chunks it read the feed, and ranks ties alike (the search breaks them by row id). Nothing in it is the record: a
 * copy that is missing, unreadable, of another schema or format, or made from another database is removed and built
 * again from the feed's start.
 */
import { existsSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Database } from 'better-sqlite3';
import { MigrationError } from './migrate.ts';
import { openDatabase } from './open.ts';
import { pageQueries, type PageRecord, type StoredPage } from './pages.ts';
import {
  FEED_START,
  type FeedCursor,
  type LinkTargetWritten,
  type PageChangeEvent,
  type PgIdentity,
} from './pg/pg-change-feed.ts';
import type { SeedsForCopy } from './pg/pg-seed-copy.ts';
import { errorCode } from './storage-error.ts';

/** The folder in DATA_DIR that holds the search copy (its database, and whatever else is derived with it). */
export const SEARCH_COPY_DIR = 'search-copy';

/** Why a copy was (re)built from the feed's start, for the log. */
export type RebuildReason = 'missing' | 'unreadable' | 'another-database' | 'another-schema' | 'ahead-of-database';

/**
 * The copy's format, kept in its state row: a copy of another format is rebuilt ('another-schema'). 2: pages keep
 * PostgreSQL's ids (format 1 numbered them in the order the copy first saw them, and had no `format` column).
 */
export const COPY_FORMAT = 2;

const STATE_SQL = `
  CREATE TABLE IF NOT EXISTS search_copy_state (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    system_id   TEXT    NOT NULL,
    instance_id TEXT    NOT NULL,
    cursor_xid  TEXT    NOT NULL,
    cursor_seq  INTEGER NOT NULL,
    caught_up   INTEGER NOT NULL DEFAULT 0,
    format      INTEGER NOT NULL
  );`;

/** Where a row whose url moved to a newer PostgreSQL row is kept, retired: urls are stored without fragments. */
function movedUrl(url: string, id: number): string {
  return `${url}#search-copy-moved-${id}`;
}

/** A page left in the copy as a tombstone: kept as a row (the title index follows its new seq out), out of search. */
function retiredRecord(p: StoredPage): PageRecord {
  return { ...p, indexed: false, body: '', headings: [], description: '' };
}

/** An open search copy: its database for SearchService, its cursor, and `apply` for what the feed read. */
export class SearchCopy {
  readonly db: Database;
  readonly folder: string;
  readonly #pages;
  readonly #state;
  readonly #setCursor;
  readonly #setCaughtUp;
  readonly #idOfUrl;
  readonly #urlOfId;
  readonly #setUrl;
  readonly #targetAnchors;
  readonly #insertTarget;
  readonly #updateTarget;
  readonly #anchorsInsert;
  readonly #anchorsDelete;

  /** Wraps `db` (opened and given its state tables by openSearchCopy). */
  constructor(db: Database, folder: string) {
    this.db = db;
    this.folder = folder;
    this.#pages = pageQueries(db, { deferSearch: true });
    this.#state = db.prepare<
      [],
      { system_id: string; instance_id: string; cursor_xid: string; cursor_seq: number; caught_up: number }
    >('SELECT system_id, instance_id, cursor_xid, cursor_seq, caught_up FROM search_copy_state WHERE id = 1');
    this.#setCursor = db.prepare<[string, number]>(
      'UPDATE search_copy_state SET cursor_xid = ?, cursor_seq = ? WHERE id = 1',
    );
    this.#setCaughtUp = db.prepare('UPDATE search_copy_state SET caught_up = 1 WHERE id = 1');
    this.#idOfUrl = db.prepare<[string], number>('SELECT id FROM pages WHERE url = ?').pluck();
    this.#urlOfId = db.prepare<[number], string>('SELECT url FROM pages WHERE id = ?').pluck();
    this.#setUrl = db.prepare<[string, number]>('UPDATE pages SET url = ? WHERE id = ?');
    // link_targets and anchors_fts as db/link-targets.ts writes them (migration 0018: the writer, not a trigger,
    // writes anchors_fts), the row keeping PostgreSQL's id.
    this.#targetAnchors = db.prepare<[number], string>('SELECT anchors FROM link_targets WHERE id = ?').pluck();
    this.#insertTarget = db.prepare<[number, string, number, Buffer, string, string]>(
      'INSERT INTO link_targets (id, url, inlinks, sources, anchors, anchor_counts) VALUES (?, ?, ?, ?, ?, ?)',
    );
    this.#updateTarget = db.prepare<[number, Buffer, string, string, number]>(
      'UPDATE link_targets SET inlinks = ?, sources = ?, anchors = ?, anchor_counts = ? WHERE id = ?',
    );
    this.#anchorsInsert = db.prepare<[number, string]>('INSERT INTO anchors_fts (rowid, anchors) VALUES (?, ?)');
    this.#anchorsDelete = db.prepare<[number, string]>(
      "INSERT INTO anchors_fts (anchors_fts, rowid, anchors) VALUES ('delete', ?, ?)",
    );
  }

  /** The identity of the database the copy was made from. */
  get identity(): PgIdentity {
    const s = this.#row();
    return { systemId: s.system_id, instanceId: s.instance_id };
  }

  /** The feed's cursor: the last change applied. */
  get cursor(): FeedCursor {
    const s = this.#row();
    return { xid: s.cursor_xid, seq: s.cursor_seq };
  }

  /** True once the copy has once caught up with the feed (its first build is over). */
  get caughtUp(): boolean {
    return this.#row().caught_up === 1;
  }

  /** Records that the copy has caught up with the feed once (see caughtUp). */
  markCaughtUp(): void {
    this.#setCaughtUp.run();
  }

  /**
   * Applies changes read from the feed, in their order, and moves the cursor past the last, in one transaction:
   * a crash keeps all of them or none. A page written enters (or stays in) search when it is indexed and not
   * retired and leaves it otherwise; a page deleted leaves it. Pages are PostgreSQL's rows by id, so a deletion
   * that arrives after a new row took the same url (their transactions committed the other way round) leaves the
   * new row alone. A link target written takes its row (by PostgreSQL's id) and its anchors_fts entry.
   */
  apply(changes: readonly PageChangeEvent[]): void {
    const last = changes.at(-1);
    if (last === undefined) return;
    const run = this.db.transaction(() => {
      for (const c of changes) {
        if (c.kind === 'page') this.#applyPage(c.pgId, c.page);
        else if (c.kind === 'link-target') this.#applyLinkTarget(c);
        else this.#applyDeletion(c.pgId);
      }
      this.#pages.writeSearchEntries();
      this.#setCursor.run(last.at.xid, last.at.seq);
    });
    try {
      run();
    } catch (err) {
      this.#pages.discardSearchEntries();
      throw err;
    }
  }

  /**
   * Replaces the copy's seeds and labels with `data`, in one transaction (the `label:` filter reads them). Pages
   * keep their seed ids: the copy's references are not checked (see openCopyDb).
   */
  replaceSeeds(data: SeedsForCopy): void {
    const insertSeed = this.db.prepare(
      `INSERT INTO seeds (id, url, origin, depth, scope, created_at, updated_at, removed_at, path_only, title, folder)
       VALUES (@id, @url, @origin, @depth, @scope, @created_at, @updated_at, @removed_at, @path_only, @title, @folder)`,
    );
    const insertLabel = this.db.prepare('INSERT INTO seed_labels (seed_id, label) VALUES (@seed_id, @label)');
    this.db.transaction(() => {
      this.db.exec('DELETE FROM seed_labels; DELETE FROM seeds;');
      for (const seed of data.seeds) insertSeed.run(seed);
      for (const label of data.labels) insertLabel.run(label);
    })();
  }

  /** Closes the copy's database. */
  close(): void {
    this.db.close();
  }

  /**
   * The page as PostgreSQL's row `pgId` holds it, under that id. A url still held by an older row (deleted in
   * PostgreSQL, its tombstone not read yet, or read already) moves that row aside, retired, under a url of its own;
   * a row whose url changed in PostgreSQL takes the new one.
   */
  #applyPage(pgId: number, page: PageRecord): void {
    const holder = this.#idOfUrl.get(page.url);
    if (holder !== undefined && holder !== pgId) {
      this.#retire(page.url);
      this.#pages.writeSearchEntries(); // entries still waiting go in before a statement of ours changes rows
      this.#setUrl.run(movedUrl(page.url, holder), holder);
    }
    const before = this.#urlOfId.get(pgId);
    if (before !== undefined && before !== page.url) {
      this.#pages.writeSearchEntries();
      this.#setUrl.run(page.url, pgId);
    }
    this.#pages.upsertPage(page, pgId);
  }

  /** The target's row as PostgreSQL holds it, and its anchors_fts entry moved from the old anchors to the new. */
  #applyLinkTarget(t: LinkTargetWritten): void {
    const stored = this.#targetAnchors.get(t.pgId);
    if (stored === undefined) this.#insertTarget.run(t.pgId, t.url, t.inlinks, t.sources, t.anchors, t.anchorCounts);
    else this.#updateTarget.run(t.inlinks, t.sources, t.anchors, t.anchorCounts, t.pgId);
    const before = stored ?? '';
    if (before === t.anchors) return;
    if (before !== '') this.#anchorsDelete.run(t.pgId, before);
    if (t.anchors !== '') this.#anchorsInsert.run(t.pgId, t.anchors);
  }

  #applyDeletion(pgId: number): void {
    const url = this.#urlOfId.get(pgId);
    if (url !== undefined) this.#retire(url); // undefined: a row this copy never saw
  }

  #retire(url: string): void {
    const page = this.#pages.getPage(url);
    if (page !== undefined && (page.indexed || page.body !== '')) this.#pages.upsertPage(retiredRecord(page));
  }

  #row() {
    const s = this.#state.get();
    if (s === undefined) throw new Error('search-copy: the copy has no state row; remove DATA_DIR/search-copy');
    return s;
  }
}

/** A copy that cannot be opened as one: unreadable, or of a schema this Lantern does not know. */
function rebuildReasonOf(err: unknown): RebuildReason | undefined {
  if (err instanceof MigrationError) return 'another-schema';
  return /^SQLITE_(CORRUPT|NOTADB)/.test(errorCode(err)) ? 'unreadable' : undefined;
}

/** The identity a copy holds, and its format (1: a copy made before the state row had one). */
type Held = PgIdentity & { format: number };

/** Opens the copy's database, gives it its tables, answers it with the identity it holds (undefined: new). */
function openCopyDb(folder: string): { db: Database; held: Held | undefined } {
  const db = openDatabase(folder);
  // Pages keep their seed's id (PostgreSQL's) while the copy holds no seeds rows: the reference from
  // pages.seed_id to seeds has nothing to check here, and would refuse every crawled page.
  db.pragma('foreign_keys = OFF');
  try {
    db.exec(STATE_SQL);
    const formatKept = db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?)')
      .all('search_copy_state')
      .some((c) => c.name === 'format');
    const s = db
      .prepare<[], { system_id: string; instance_id: string; format: number }>(
        `SELECT system_id, instance_id, ${formatKept ? 'format' : '1 AS format'} FROM search_copy_state WHERE id = 1`,
      )
      .get();
    return {
      db,
      held: s === undefined ? undefined : { systemId: s.system_id, instanceId: s.instance_id, format: s.format },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}

/**
 * Opens the search copy in `dataDir` for the database of `identity`. A copy that is missing, unreadable, of a
 * schema or format (COPY_FORMAT) this Lantern does not know, or made from another database (another instance id, or another cluster
 * where both system identifiers are known) is removed with everything in its folder and started empty at the
 * feed's start; `rebuilt` says why (undefined: the copy was kept, and continues from its cursor). With `reason`,
 * the copy is rebuilt for that reason whatever it holds.
 */
export function openSearchCopy(
  dataDir: string,
  identity: PgIdentity,
  reason?: RebuildReason,
): { copy: SearchCopy; rebuilt: RebuildReason | undefined } {
  const folder = path.join(dataDir, SEARCH_COPY_DIR);
  let rebuilt: RebuildReason | undefined = reason ?? (existsSync(folder) ? undefined : 'missing');
  if (rebuilt === undefined) {
    try {
      const { db, held } = openCopyDb(folder);
      const same =
        held !== undefined &&
        held.instanceId === identity.instanceId &&
        (held.systemId === '' || identity.systemId === '' || held.systemId === identity.systemId);
      if (same && held.format === COPY_FORMAT) return { copy: new SearchCopy(db, folder), rebuilt: undefined };
      db.close();
      rebuilt = held === undefined ? 'missing' : same ? 'another-schema' : 'another-database';
    } catch (err) {
      const reason = rebuildReasonOf(err);
      if (reason === undefined) throw err;
      rebuilt = reason;
    }
  }
  rmSync(folder, { recursive: true, force: true });
  const { db } = openCopyDb(folder);
  db.prepare(
    'INSERT INTO search_copy_state (id, system_id, instance_id, cursor_xid, cursor_seq, format) VALUES (1, ?, ?, ?, ?, ?)',
  ).run(identity.systemId, identity.instanceId, FEED_START.xid, FEED_START.seq, COPY_FORMAT);
  return { copy: new SearchCopy(db, folder), rebuilt };
}
