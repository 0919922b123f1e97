/**
 * The feed loop of a Lantern server on PostgreSQL: reads pages' and link targets' changes past the search copy's cursor
 * (db/pg/pg-change-feed.ts) a chunk at a time, applies each chunk to the copy (db/search-copy.ts), and tells the
 * search service after each (its title index catches up, as after `pages-stored` on SQLite). Each round also
 * takes seeds and labels whole into the copy when they changed (db/pg/pg-seed-copy.ts). It wakes on a
 * NOTIFY from PostgreSQL (LISTEN lantern_pages) and polls as the fallback. PostgreSQL unreachable: search keeps
 * answering from the copy, the feed says so once and retries until the server is back, then continues from its
 * cursor; a database that is no longer the one the copy was made from stops the feed (a restart rebuilds).
 */
import pg from 'pg';
import {
  countFeedRows,
  cursorPossible,
  type PgIdentity,
  readPageChanges,
  readPgIdentity,
} from '../../db/pg/pg-change-feed.ts';
import { readSeedFingerprint, readSeedsForCopy } from '../../db/pg/pg-seed-copy.ts';
import { describeDatabaseUrl } from '../../db/pg/pg-server-store.ts';
import type { SearchCopy } from '../../db/search-copy.ts';
import { type StorageFault, storageFault } from '../../db/storage-error.ts';

/** Where the feed reports what it does. */
export interface FeedLog {
  info(message: string): void;
  warn(message: string): void;
}

/** The channel PostgreSQL notifies on after pages or link targets were written (migrations-pg 0003, 0004). */
const CHANNEL = 'lantern_pages';

/** How often the feed reads without a notification, and how soon it retries after a failure (ms). */
export const FEED_POLL_MS = 1000;
/** Changes read and applied per chunk: small enough that applying one holds the event loop briefly. */
export const FEED_CHUNK = 200;

/** What the feed is doing, for the log and the tests. */
export interface FeedStatus {
  state: 'idle' | 'building' | 'following' | 'failing' | 'refused' | 'stopped';
  /** Since when it fails (PostgreSQL unreachable, the copy not writable), else null. */
  failingSince: number | null;
  /** The last failure's message, else null. */
  failure: string | null;
  /** The last failure when it was PostgreSQL's, out of reach or out of room (db/storage-error.ts), else null. */
  databaseFault: StorageFault | null;
  /** Changes applied since the feed started. */
  applied: number;
}

/** The search copy could not be written (a full disk, say); the feed retries the same chunk. */
export class CopyWriteError extends Error {
  override name = 'CopyWriteError';
}

/** The database at DATABASE_URL is not the one the copy was made from any more. */
export class FeedIdentityError extends Error {
  override name = 'FeedIdentityError';
}

/** Options of a SearchFeed. */
export interface SearchFeedOptions {
  /** DATABASE_URL: the LISTEN connection opens its own client on it. */
  url: string;
  /** Reads the feed (its own pool: the routes' pool stays free). */
  pool: pg.Pool;
  copy: SearchCopy;
  /** Called after each chunk applied (SearchService.refresh). */
  onApplied: () => void;
  log: FeedLog;
  pollMs?: number;
  chunk?: number;
  /** False: poll only (no LISTEN connection). */
  listen?: boolean;
  now?: () => number;
}

/** The feed loop (see the file comment): `start()`, then `stop()` before the copy and the pool close. */
export class SearchFeed {
  readonly #o: Required<Omit<SearchFeedOptions, 'now'>> & { now: () => number };
  #status: FeedStatus = { state: 'idle', failingSince: null, failure: null, databaseFault: null, applied: 0 };
  #running: Promise<void> | undefined;
  #listener: pg.Client | undefined;
  #wake: (() => void) | undefined;
  #poked = false;
  #stopped = false;
  #build: { total: number; startedAt: number; lastLog: number } | undefined;
  /** The seeds' fingerprint the copy last took them at (undefined: not yet since the start). */
  #seedPrint: string | undefined;

  /** A feed on `opts.copy`; nothing runs until `start()`. */
  constructor(opts: SearchFeedOptions) {
    this.#o = {
      pollMs: FEED_POLL_MS,
      chunk: FEED_CHUNK,
      listen: true,
      now: Date.now,
      ...opts,
    };
  }

  /** What the feed is doing now (a copy: later changes do not show in it). */
  get status(): FeedStatus {
    return { ...this.#status };
  }

  /** Starts the loop (once). */
  start(): void {
    this.#running ??= this.#run();
  }

  /** Stops the loop and closes the LISTEN connection; resolves when the chunk in progress, if any, is done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#poke();
    await this.#running;
    await this.#closeListener();
    this.#status.state = 'stopped';
  }

  async #run(): Promise<void> {
    let checkIdentity = false;
    while (!this.#stopped) {
      let more = false;
      try {
        if (checkIdentity) await this.#checkIdentity();
        checkIdentity = false;
        if (this.#o.listen) await this.#listen();
        await this.#syncSeeds();
        more = await this.#pump();
        if (this.#status.failingSince !== null) {
          const seconds = Math.round((this.#o.now() - this.#status.failingSince) / 1000);
          this.#o.log.info(`search-feed: the feed runs again after ${seconds} s; the search copy follows PostgreSQL`);
          this.#status.failingSince = null;
          this.#status.failure = null;
          this.#status.databaseFault = null;
        }
      } catch (err) {
        if (err instanceof FeedIdentityError) {
          this.#status.state = 'refused';
          this.#status.failure = err.message;
          this.#o.log.warn(err.message);
          return;
        }
        this.#fail(err as Error);
        checkIdentity = true;
        await this.#closeListener();
      }
      if (!more && !this.#stopped) await this.#sleep(this.#o.pollMs);
    }
  }

  /** Takes seeds and labels whole into the copy when their fingerprint moved (at each round: a few ms). */
  async #syncSeeds(): Promise<void> {
    const print = await readSeedFingerprint(this.#o.pool);
    if (print === this.#seedPrint) return;
    const data = await readSeedsForCopy(this.#o.pool);
    try {
      this.#o.copy.replaceSeeds(data);
    } catch (err) {
      throw new CopyWriteError((err as Error).message, { cause: err });
    }
    this.#seedPrint = print;
  }

  /** Reads and applies one chunk; true when there may be more right away. */
  async #pump(): Promise<boolean> {
    const copy = this.#o.copy;
    if (!copy.caughtUp && this.#build === undefined) {
      this.#build = { total: await countFeedRows(this.#o.pool), startedAt: this.#o.now(), lastLog: 0 };
    }
    const changes = await readPageChanges(this.#o.pool, copy.cursor, this.#o.chunk);
    if (changes.length > 0) {
      try {
        copy.apply(changes);
      } catch (err) {
        throw new CopyWriteError((err as Error).message, { cause: err });
      }
      this.#status.applied += changes.length;
      this.#o.onApplied();
    }
    const more = changes.length === this.#o.chunk;
    if (this.#build !== undefined) this.#buildProgress(more);
    else this.#status.state = 'following';
    return more;
  }

  /** The first build's progress, at most once a second, and its end. */
  #buildProgress(more: boolean): void {
    const build = this.#build;
    if (build === undefined) return;
    const t = this.#o.now();
    if (more) {
      this.#status.state = 'building';
      if (t - build.lastLog >= 1000) {
        build.lastLog = t;
        this.#o.log.info(
          `search-feed: building the search copy from PostgreSQL: ${this.#status.applied.toLocaleString('en')} of about ${build.total.toLocaleString('en')} changes (pages and link targets)`,
        );
      }
      return;
    }
    this.#o.copy.markCaughtUp();
    this.#build = undefined;
    this.#status.state = 'following';
    this.#o.log.info(
      `search-feed: the search copy is built: ${this.#status.applied.toLocaleString('en')} changes in ${((t - build.startedAt) / 1000).toFixed(1)} s`,
    );
  }

  #fail(err: Error): void {
    const first = this.#status.failingSince === null;
    this.#status.failingSince ??= this.#o.now();
    this.#status.failure = err.message;
    this.#status.databaseFault = err instanceof CopyWriteError ? null : storageFault(err, 'postgres');
    this.#status.state = 'failing';
    if (!first) return;
    this.#o.log.warn(
      err instanceof CopyWriteError
        ? `search-feed: cannot write the search copy in ${this.#o.copy.folder} (${err.message}); search answers from what it holds, and the feed retries every ${this.#o.pollMs} ms; free some space or make the folder writable`
        : `search-feed: cannot follow PostgreSQL at ${describeDatabaseUrl(this.#o.url)} (${err.message}); search answers from the search copy, and the feed retries every ${this.#o.pollMs} ms`,
    );
  }

  async #checkIdentity(): Promise<void> {
    const now: PgIdentity = await readPgIdentity(this.#o.pool);
    const held = this.#o.copy.identity;
    const same =
      now.instanceId === held.instanceId &&
      (now.systemId === '' || held.systemId === '' || now.systemId === held.systemId);
    if (!same || !(await cursorPossible(this.#o.pool, this.#o.copy.cursor))) {
      throw new FeedIdentityError(
        `search-feed: DATABASE_URL now names another database than the search copy was made from (or one restored from an older backup); the feed stopped, and search answers from the copy; restart Lantern to rebuild the copy from this database`,
      );
    }
  }

  /** Opens the LISTEN connection when there is none; a notification wakes the loop. */
  async #listen(): Promise<void> {
    if (this.#listener !== undefined) return;
    const client = new pg.Client({ connectionString: this.#o.url });
    const lost = () => {
      if (this.#listener === client) this.#listener = undefined;
      this.#poke(); // read now: the poll finds out whether PostgreSQL is still there
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => this.#poke());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined); // already failing: the error thrown below says why
      throw err;
    }
    this.#listener = client;
  }

  async #closeListener(): Promise<void> {
    const client = this.#listener;
    this.#listener = undefined;
    if (client !== undefined) await client.end().catch(() => undefined); // a lost connection has nothing to close
  }

  /** Ends the wait in progress, or, while the loop reads, makes its next wait end at once. */
  #poke(): void {
    if (this.#wake !== undefined) this.#wake();
    else this.#poked = true;
  }

  /** Waits `ms`, or less when poked (a notification, a lost listener, stop). */
  #sleep(ms: number): Promise<void> {
    if (this.#poked) {
      this.#poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#wake = done;
    });
  }
}
