/**
 * What the crawler primary's classes (crawl-primary.ts and its parts) are given instead of reaching for
 * the process: a clock, timers, and a transport to the server and the workers. crawler/primary.ts gives
 * them the real ones (performance's clock, setTimeout, process.send, cluster); unit tests give fakes and
 * drive time by hand. Also the primary's timings, in one place.
 */
import type { PrimaryToServer, PrimaryToWorker } from '../common/protocol.ts';

/** The current time in ms (the process gives `performance.timeOrigin + performance.now()`). */
export type Clock = () => number;

/** A pending timer, as `Timers` returned it; only ever handed back to `Timers` to clear it. */
export type TimerHandle = unknown;

/** setTimeout / setInterval and their clear functions, injected so that tests run time by hand. */
export interface Timers {
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
  setInterval(fn: () => void, ms: number): TimerHandle;
  clearInterval(handle: TimerHandle): void;
}

/** A worker as the primary's classes know it: cluster's id, and its pid for the log. */
export interface WorkerHandle {
  readonly id: number;
  readonly pid: number | undefined;
}

/**
 * The primary's ways out of its own logic. Events come back in through CrawlPrimary's methods
 * (onServerMessage, onWorkerMessage, onWorkerExit, shutdown, crashed).
 */
export interface PrimaryTransport<W extends WorkerHandle> {
  /**
   * Sends a message to the server; `sent` runs once it is written, or at once if there is no server
   * (it went away: messages are dropped, its 'disconnect' starts the shutdown).
   */
  toServer(msg: PrimaryToServer, sent?: () => void): void;
  /** Sends a message to a worker; dropped if the worker is gone (its exit returns its jobs). */
  toWorker(worker: W, msg: PrimaryToWorker): void;
  /** Starts a worker; it says `ready` (onWorkerMessage) once loaded and its exit comes to onWorkerExit. */
  forkWorker(): W;
  /** Sends a signal to a worker (a worker already gone is left alone). */
  killWorker(worker: W, signal: 'SIGTERM' | 'SIGKILL'): void;
  /** Writes one line to the log (stderr). */
  log(line: string): void;
  /** Ends the process. */
  exit(code: number): void;
}

/** The primary's timings (defaults in one place; tests use them to advance time). */
export const PRIMARY_TIMING = {
  /** Results are stored in batches: at most this long after the first result of a batch. */
  flushMs: 50,
  /** How often the server gets a snapshot of the crawl (/api/status, /api/domains). */
  snapshotMs: 500,
  /**
   * The most of the primary's time snapshots may take: one that took long (thousands of hosts) makes the
   * next ones wait (took / share), so that the crawl is not spent describing itself.
   */
  snapshotShare: 0.1,
  /** How long fetches in flight get to finish when the crawl stops. */
  shutdownGraceMs: 5_000,
  /** How long workers get to exit after SIGTERM before SIGKILL. */
  workerExitMs: 2_000,
  /**
   * A worker with no job for this long leaves (worker-lifecycle.ts); checked on the snapshot timer, so it
   * leaves up to snapshotMs later. Long enough that a crawl's quiet moments (a host's Crawl-delay, a
   * backoff) do not cost a start-up each, short enough that an idle Lantern soon holds no worker.
   */
  workerIdleMs: 60_000,
  /** How long a fatal error's report to the server may take before the process exits anyway. */
  fatalReportMs: 1_000,
  /** Waits between attempts to write after the database refused a write: doubling from the first, capped. */
  writeRetryFirstMs: 250,
  writeRetryMaxMs: 5_000,
  /** How often the free disk space and the database's size are checked against their bounds (disk-watch.ts). */
  diskCheckMs: 5_000,
} as const;
