/**
 * The crawler primary when the database refuses writes (a full disk, a read-only file, an I/O error):
 * errors of the machine, not of Lantern, so it waits them out instead of restarting. While it waits,
 * no work is handed out (pages fetched now could not be stored) and what was fetched stays queued in
 * memory; the write is tried again after a doubling wait (PRIMARY_TIMING.writeRetryFirstMs, capped at
 * writeRetryMaxMs). The server hears once what is wrong and what to do (again only if that changes), with
 * the outage as state (`storage`: the engine, whether it answers, since when: /api/status), and `recovered`
 * when writes succeed again. On PostgreSQL (DATABASE_URL) a server stopped or out of reach is such an error
 * too. Any other write error is a bug: reported as fatal.
 */
import { describeDatabaseUrl } from '../../db/pg/pg-server-store.ts';
import { describeStorageOutage, errorDetail, storageFault } from '../../db/storage-error.ts';
import { PRIMARY_TIMING, type Clock, type TimerHandle, type Timers } from './primary-ports.ts';
import type { PrimaryToServer } from '../common/protocol.ts';

/** What a WriteOutage is given: time, the folder to name, and its ways to report and to try again. */
export interface WriteOutageParts {
  clock: Clock;
  timers: Timers;
  dataDir: string;
  /** DATABASE_URL: PostgreSQL is the record (its address, never the password, is named); null or absent: SQLite. */
  databaseUrl?: string | null;
  toServer(msg: PrimaryToServer): void;
  log(line: string): void;
  /** A write failed for a reason that is not the machine's: report it and end (see fatal-exit.ts). */
  fatal(message: string): void;
  /** Tries the queued writes again (the retry timer's work). */
  retry(): void;
}

/** The state of the database's writability as the primary sees it (see the module comment). */
export class WriteOutage {
  /** Set while the database refuses writes: since when, how often it failed, the pending retry, what the server was told. */
  private trouble: { since: number; failures: number; timer: TimerHandle | null; reported: string } | null = null;

  constructor(private readonly parts: WriteOutageParts) {}

  /** Whether a retry is pending: until it runs, no work is handed out and nothing else tries to write. */
  get waiting(): boolean {
    return this.trouble?.timer != null;
  }

  /**
   * A write failed `during` something ('storing results'). A storage error starts (or continues) the
   * outage and sets the next retry; anything else is reported as fatal.
   */
  failed(err: unknown, during: string): void {
    const url = this.parts.databaseUrl ?? null;
    const fault = storageFault(err, url === null ? 'sqlite' : 'postgres');
    if (fault === null) {
      this.parts.fatal(`could not write to the database while ${during} (${errorDetail(err)}); restarting the crawler`);
      return;
    }
    const trouble = (this.trouble ??= { since: this.parts.clock(), failures: 0, timer: null, reported: '' });
    trouble.failures++;
    const waitMs = Math.min(
      PRIMARY_TIMING.writeRetryFirstMs * 2 ** (trouble.failures - 1),
      PRIMARY_TIMING.writeRetryMaxMs,
    );
    const storage = describeStorageOutage(fault, {
      since: trouble.since,
      where: fault.engine === 'postgres' && url !== null ? describeDatabaseUrl(url) : this.parts.dataDir,
      seenBy: 'crawler',
    });
    const attempt = `attempt ${trouble.failures} failed while ${during}; next in ${waitMs} ms`;
    // Told again only when what is wrong changes (unreachable, refusing), not its detail: a server that stops
    // cuts the connections in use ("Connection terminated") and then refuses new ones (ECONNREFUSED).
    const what = `${fault.engine} ${fault.reachable ? 'refuses writes' : 'unreachable'}`;
    if (what !== trouble.reported) {
      trouble.reported = what;
      this.parts.log(`crawler: ${storage.message} (${attempt})`);
      this.parts.toServer({ type: 'error', message: storage.message, storage });
    } else {
      this.parts.log(`crawler: still cannot write to the database (${fault.detail}; ${attempt})`);
    }
    if (trouble.timer != null) this.parts.timers.clearTimeout(trouble.timer);
    trouble.timer = this.parts.timers.setTimeout(() => {
      trouble.timer = null;
      this.parts.retry();
    }, waitMs);
  }

  /** A write succeeded: if the database had refused writes, the outage is over; say so. */
  succeeded(): void {
    if (!this.trouble) return;
    const message = `the database takes writes again after ${((this.parts.clock() - this.trouble.since) / 1000).toFixed(1)} s; the crawl continues`;
    this.stop();
    this.trouble = null;
    this.parts.log(`crawler: ${message}`);
    this.parts.toServer({ type: 'recovered', message });
  }

  /** The crawl is stopping: no more retries (the final flush tries once more). */
  stop(): void {
    if (this.trouble?.timer != null) this.parts.timers.clearTimeout(this.trouble.timer);
    if (this.trouble) this.trouble.timer = null;
  }
}
