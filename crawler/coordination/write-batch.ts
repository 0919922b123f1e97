import type { Database } from 'better-sqlite3';

/** One deferred database write of the crawler primary; `now` is the time of the commit that runs it. */
export type Write = (now: number) => void;

/**
 * The most writes a batch gathers before it asks to be committed at once (as an urgent one), whatever
 * the flush timer: a crawl whose results come fast (hundreds of hosts, instant answers) would otherwise
 * build batches of thousands of writes, whose one commit holds the primary's thread (and every dispatch)
 * for hundreds of milliseconds and whose closures hold their pages in memory until then.
 */
export const WRITE_BATCH_LIMIT = 1024;

/**
 * The primary's queued writes: results are judged at once, but their writes (pages, frontier rows,
 * host rows) wait here and run together in one transaction, so a busy crawl commits in batches
 * rather than once per result. A batch that fails stays queued, in order, for the next commit:
 * nothing is lost. `urgent` marks a batch worth committing now rather than with the next one (also one
 * that reached WRITE_BATCH_LIMIT). A quiet
 * write (a request's start and lease: see Coordinator.dispatch) rides the next commit without asking for one.
 */
export class WriteBatch {
  private writes: Write[] = [];
  /** How many of `writes` ask for a commit (all but the quiet ones). */
  private wanting = 0;
  private urgent = false;

  constructor(private readonly db: Database) {}

  /** Queues a write for the next commit. */
  push(write: Write): void {
    this.writes.push(write);
    this.wanting++;
    if (this.writes.length >= WRITE_BATCH_LIMIT) this.urgent = true;
  }

  /** Queues a write for the next commit, in order, without asking for a commit of its own (see `wanted`). */
  pushQuiet(write: Write): void {
    this.writes.push(write);
  }

  /** Whether writes are waiting for `commit()`, quiet ones included. */
  get pending(): boolean {
    return this.writes.length > 0;
  }

  /** Whether writes other than quiet ones are waiting: what calls for a commit. */
  get wanted(): boolean {
    return this.wanting > 0;
  }

  /** Asks for the next commit to come now (see takeUrgent). */
  markUrgent(): void {
    this.urgent = true;
  }

  /** Whether the batch was marked urgent since the last call; reading it clears it. */
  takeUrgent(): boolean {
    const urgent = this.urgent;
    this.urgent = false;
    return urgent;
  }

  /**
   * Runs the queued writes in one transaction at `now` (what a write stamps as its time), then `closing`
   * (a write of what the others changed, such as running totals) in the same transaction. If it fails it
   * rolls back, the writes stay queued (before any queued since) and the error is thrown for the caller
   * to report and retry.
   */
  commit(now: number, closing?: Write): void {
    if (this.writes.length === 0) return;
    const writes = this.writes;
    const wanting = this.wanting;
    this.writes = [];
    this.wanting = 0;
    try {
      // IMMEDIATE: a write may read first, and the server writes the same file (see db/open.ts).
      this.db
        .transaction(() => {
          for (const w of writes) w(now);
          closing?.(now);
        })
        .immediate();
    } catch (err) {
      this.writes = writes.concat(this.writes);
      this.wanting += wanting;
      throw err;
    }
  }
}
