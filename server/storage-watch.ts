/**
 * The database's outage as the server sees it on its own, for /api/status: the crawler primary reports the
 * outages it meets while writing (crawler-link.ts), but the server can lose PostgreSQL while the crawl has
 * nothing to write. Its own signs are a route's statement refused for the machine's sake (the error handler
 * tells `failed`) and the search copy's feed failing to reach PostgreSQL; `/api/status` asks PostgreSQL each
 * time and tells `answered` when it does. Pure: the time is given, nothing here reads a clock or a database.
 */
import {
  describeStorageOutage,
  type StorageEngine,
  type StorageFault,
  type StorageOutage,
} from '../db/storage-error.ts';
import type { FeedStatus } from './search-copy/search-feed.ts';

/** The server's view of its database's health (see the module comment). */
export class StorageWatch {
  /** The first failure since the database last answered: when, and the latest fault. */
  #trouble: { since: number; fault: StorageFault } | null = null;

  /**
   * `where`: DATA_DIR on SQLite, PostgreSQL's address without its password (describeDatabaseUrl) on PostgreSQL;
   * `engine`: the one DATABASE_URL chose.
   */
  constructor(
    readonly engine: StorageEngine,
    private readonly where: string,
  ) {}

  /** A statement failed for the machine's sake at `at` (ms): the outage starts, or goes on with this fault. */
  failed(fault: StorageFault, at: number): void {
    if (this.#trouble === null) this.#trouble = { since: at, fault };
    else this.#trouble.fault = fault;
  }

  /** The database answered a statement: the server's own outage, if any, is over. */
  answered(): void {
    this.#trouble = null;
  }

  /**
   * The outage now, in words, or null: the earlier of the server's own failures and the feed's (`feed`:
   * its status on PostgreSQL; a feed failing for want of room in the search copy is not the database's outage).
   */
  current(feed: FeedStatus | undefined): StorageOutage | null {
    let trouble = this.#trouble;
    if (
      feed?.state === 'failing' &&
      feed.databaseFault !== null &&
      feed.failingSince !== null &&
      (trouble === null || feed.failingSince < trouble.since)
    ) {
      trouble = { since: feed.failingSince, fault: trouble?.fault ?? feed.databaseFault };
    }
    if (trouble === null) return null;
    return describeStorageOutage(trouble.fault, { since: trouble.since, where: this.where, seenBy: 'server' });
  }
}
