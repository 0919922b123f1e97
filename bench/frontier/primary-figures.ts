/**
 * What the frontier benchmark's database-backed parts (primary-parts.ts) measure: the restart, the crawl and
 * the removal of a seed during it, as frontier-bench.ts passes them to frontier-report.ts.
 */
import type { Percentiles } from './scheduler-parts.ts';
import type { Engine, StoreCalls } from './part-storage.ts';
import type { DispatchCpuSplit } from './dispatch-gc.ts';

/** What the restart part measured (ms and MiB). */
export interface RestartFigures {
  engine: Engine;
  queued: number;
  openMs: number;
  startMs: number;
  firstDispatchMs: number;
  /** From opening the database to the first job handed out, the wait for its host to be due left out. */
  totalMs: number;
  /** How long after the start the first host was due (after an unclean stop, a delay from the restart). */
  firstDueAfterMs: number;
  rssMiB: number;
  heapMiB: number;
  jobsInMemory: number;
  /** The start's storage calls (part-storage.ts timeStoreCalls), most time first. */
  startCalls: StoreCalls[];
  /** How the primary ran (see runtimeDescription). */
  runtime: string;
}

/** What the crawl part measured. */
export interface CrawlFigures {
  engine: Engine;
  queued: number;
  hosts: number;
  workers: number;
  slots: number;
  seconds: number;
  dispatches: number;
  dispatchesPerSec: number;
  /** Per hand-out (DispatchLoop.handOutOne) that handed out a job (ms). */
  wall: Percentiles;
  cpu: Percentiles;
  /** The measured dispatches' CPU, those that met a GC pause apart (dispatch-gc.ts). */
  cpuSplit: DispatchCpuSplit;
  /** The primary's CPU per job handed out, everything included (results, flushes, refills, timers; ms). */
  cpuPerDispatchMs: number;
  flushes: number;
  flushWall: Percentiles;
  /** PostgreSQL: round trips of the transactions run during each flush (its batch, the windows' refills); undefined on SQLite. */
  roundTripsPerFlush: Percentiles | undefined;
  snapshots: number;
  /** Each snapshot sent during the measured crawl: built and serialized as IPC does (JSON), wall and CPU ms. */
  snapshotWall: Percentiles;
  snapshotCpu: Percentiles;
  /** Hosts and bytes per snapshot sent during the measured crawl. */
  snapshotHosts: Percentiles;
  snapshotBytes: Percentiles;
  /** The primary's first snapshot (every host), at the start of the warm-up. */
  fullSnapshot: { wallMs: number; cpuMs: number; hosts: number; bytes: number };
  /** Largest gap between two jobs handed out (ms) during the measured crawl. */
  maxGapMs: number;
  rssMaxMiB: number;
  heapMaxMiB: number;
  /** RSS and heap after the crawl and the removal, as the primary goes on (no forced collection). */
  rssAfterMiB: number;
  heapAfterMiB: number;
  jobsInMemoryMax: number;
  /** How the primary ran: compiled JavaScript (as `npm start` runs it) or TypeScript under tsx, and its node options. */
  runtime: string;
  removal: RemovalFigures;
}

/** What removing a seed of 100,000 queued URLs measured. */
export interface RemovalFigures {
  urls: number;
  hostsOfSeed: number;
  /** From `seeds-changed` to the seed's row deleted (its URLs gone before). */
  totalMs: number;
  flushesWithRemoval: number;
  /** Reading the change (the seed marked removed, its jobs taken out of the hosts' queues), wall and CPU. */
  syncMs: number;
  syncCpuMs: number;
  /** The longest flush while the seed was being removed (each holds one chunk, and the results of the moment), wall and CPU. */
  longestStepMs: number;
  longestStepCpuMs: number;
  flushCpu: Percentiles;
  /** The longest flush over as long a time just before the removal (results only), wall and CPU. */
  longestFlushBeforeMs: number;
  longestFlushBeforeCpuMs: number;
  /** The chunks of its URLs deleted (the DELETE inside a flush): the longest, wall and CPU, and CPU p50 / p99. */
  longestChunkMs: number;
  longestChunkCpuMs: number;
  chunkCpu: Percentiles;
  /** Dispatch calls that passed over jobs or rows of the removed seed: how many, the longest (wall and CPU). */
  passOverDispatches: number;
  longestPassOverMs: number;
  longestPassOverCpuMs: number;
  /** The windows' refills after a flush that passed over rows of the removed seed: how many, the longest (wall and CPU). */
  passOverRefills: number;
  longestRefillMs: number;
  longestRefillCpuMs: number;
  /**
   * The longest piece of the removal's own work at once (reading the change, a chunk deleted, a dispatch call
   * or a flush's refills passing over its jobs or rows): the longest any other host's dispatch waited behind the removal (wall, and its CPU).
   */
  longestDelayMs: number;
  longestDelayCpuMs: number;
  /** Longest gap between two jobs handed out to other hosts while the seed was being removed, and over the same time before it. */
  maxGapDuringMs: number;
  maxGapBeforeMs: number;
  dispatchesDuring: number;
}
