/**
 * The crawler primary's watch over its disk budget (disk-budget.ts): it reads the free space of
 * DATA_DIR's file system and the database's size at start and then every PRIMARY_TIMING.diskCheckMs
 * (a bounded rate, whatever the crawl's pace), pauses the crawl when either is past its bound and
 * resumes it once there is room again. While paused the dispatch loop hands out no work; results of
 * fetches already in flight (at most the workers' slots) are still stored. The reader is injected: the
 * process gives the real one (fs.statfs and the database's page counts), tests give their own.
 */
import { judgeDisk, pauseMessage, type DiskLimits, type DiskReading } from './disk-budget.ts';
import { PRIMARY_TIMING, type Clock, type TimerHandle, type Timers } from './primary-ports.ts';
import type { DiskStatus } from '../common/protocol.ts';

/** What a DiskWatch is given. */
export interface DiskWatchParts {
  clock: Clock;
  timers: Timers;
  limits: DiskLimits;
  dataDir: string;
  /** Reads the free space and the database's size now (throws if it cannot). */
  read(): DiskReading;
  log(line: string): void;
  /** The crawl was paused or resumed (the caller pumps the dispatch loop on resume). */
  changed(paused: boolean): void;
}

/** The disk budget's state as the primary sees it (see the module comment). */
export class DiskWatch {
  private timer: TimerHandle | null = null;
  private reason: string | null = null;
  private last: (DiskReading & { at: number }) | null = null;
  private readFailure: string | null = null;

  constructor(private readonly parts: DiskWatchParts) {}

  /** Whether the crawl is paused for want of room. */
  get paused(): boolean {
    return this.reason !== null;
  }

  /** Checks now, then every PRIMARY_TIMING.diskCheckMs. */
  start(): void {
    this.check();
    this.timer = this.parts.timers.setInterval(() => this.check(), PRIMARY_TIMING.diskCheckMs);
  }

  /** No more checks (the crawl is stopping). */
  stop(): void {
    if (this.timer !== null) this.parts.timers.clearInterval(this.timer);
    this.timer = null;
  }

  /** Reads the disk and the database once, and pauses or resumes the crawl as they say. */
  check(): void {
    let reading: DiskReading;
    try {
      reading = this.parts.read();
    } catch (err) {
      // Not knowing is no reason to stop crawling: the state stays as it was, and the log says why once.
      const message =
        `crawler: cannot read the free space or the database size in ${this.parts.dataDir} (${(err as Error).message}); ` +
        'the disk budget is not checked until it can be';
      if (message !== this.readFailure) this.parts.log(message);
      this.readFailure = message;
      return;
    }
    this.readFailure = null;
    this.last = { ...reading, at: this.parts.clock() };
    const verdict = judgeDisk(reading, this.parts.limits, this.paused, this.parts.dataDir);
    const was = this.paused;
    this.reason = verdict.over ? verdict.reason : null; // its figures follow each check
    if (was === this.paused) return;
    if (this.reason !== null) this.parts.log(`crawler: ${pauseMessage(this.reason)}`);
    else this.parts.log('crawler: there is room again on the disk and in the database; the crawl resumes');
    this.parts.changed(this.paused);
  }

  /** The budget as /api/status reports it. */
  status(): DiskStatus {
    return {
      paused: this.reason !== null,
      reason: this.reason === null ? null : pauseMessage(this.reason),
      freeBytes: this.last?.freeBytes ?? null,
      dbBytes: this.last?.dbBytes ?? null,
      minFreeBytes: this.parts.limits.minFreeBytes,
      maxDbBytes: this.parts.limits.maxDbBytes,
      checkedAt: this.last ? new Date(this.last.at).toISOString() : null,
    };
  }
}
