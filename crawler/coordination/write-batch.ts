/**
 * The most writes a batch gathers before it asks to be committed at once (as an urgent one), whatever
 * the flush timer: a crawl whose results come fast (hundreds of hosts, instant answers) would otherwise
 * build batches of thousands of writes, whose one commit holds the primary's thread (and every dispatch)
 * for hundreds of milliseconds and whose intents hold their pages in memory until then.
 */
export const WRITE_BATCH_LIMIT = 1024;

/**
 * The primary's queued writes (write intents, write-intents.ts): results are judged at once, but their
 * writes (pages, frontier rows, host rows) wait here and are written together in one transaction (by
 * intent-applier.ts), so a busy crawl commits in batches rather than once per result. A batch that fails
 * stays queued, in order, for the next commit: nothing is lost. `urgent` marks a batch worth committing now rather than with the next one (also one
 * that reached WRITE_BATCH_LIMIT). A quiet
 * write (a request's start and lease: see Coordinator.dispatch) rides the next commit without asking for one.
 */
export class WriteBatch<W> {
  private writes: W[] = [];
  /** How many of `writes` ask for a commit (all but the quiet ones). */
  private wanting = 0;
  private urgent = false;

  /** Queues a write for the next commit. */
  push(write: W): void {
    this.writes.push(write);
    this.wanting++;
    if (this.writes.length >= WRITE_BATCH_LIMIT) this.urgent = true;
  }

  /** Queues a write for the next commit, in order, without asking for a commit of its own (see `wanted`). */
  pushQuiet(write: W): void {
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
   * Hands the queued writes to `write` at `now`, which writes them in one transaction (see
   * IntentApplier.flush); writes queued while it runs wait for the next commit. If it rejects (the
   * transaction rolled back), the writes stay queued, before any queued since, and the error is thrown
   * for the caller to report and retry.
   */
  async commit(now: number, write: (writes: readonly W[], now: number) => Promise<void>): Promise<void> {
    if (this.writes.length === 0) return;
    const writes = this.writes;
    const wanting = this.wanting;
    this.writes = [];
    this.wanting = 0;
    try {
      await write(writes, now);
    } catch (err) {
      this.writes = writes.concat(this.writes);
      this.wanting += wanting;
      throw err;
    }
  }
}
