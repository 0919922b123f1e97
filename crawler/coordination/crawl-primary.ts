/**
 * The crawler primary without the process: the only place that decides when any host may be contacted
 * (its Coordinator), with the workers that fetch for it, the server it reports to, and its timers. It is
 * given a clock, timers and a transport (primary-ports.ts); crawler/primary.ts connects it to cluster,
 * IPC, signals and the database, and unit tests drive it with fakes. Its parts, one concept each:
 *  - dispatch-loop.ts: hands due jobs to free worker slots, one wake-up timer for the next due host;
 *  - flush-pacer.ts: stores results in batches (or at once when urgent);
 *  - write-outage.ts: waits out a database that refuses writes, with the crawl paused;
 *  - disk-watch.ts: pauses the crawl while the disk or the database is past its budget;
 *  - worker-lifecycle.ts: workers from fork to exit, started when work is due, gone after a minute without.
 * Here: the workers' and the server's messages, the snapshot and refresh timers (snapshots of thousands
 * of hosts are spaced out by what they cost, PRIMARY_TIMING.snapshotShare), and how it ends: a
 * shutdown (no new work, a grace for fetches in flight, the rest returned to the queue, a last flush,
 * workers stopped, exit 0) or a fatal error (reported, exit 1; the server starts a new primary).
 */
import type { Config } from '../../shared/config.ts';
import { refreshCheckMs } from '../frontier/refresh.ts';
import type { Coordinator } from './coordinator.ts';
import type { DiskReading } from './disk-budget.ts';
import { DiskWatch } from './disk-watch.ts';
import { DispatchLoop } from './dispatch-loop.ts';
import { fatalExit } from './fatal-exit.ts';
import { FlushPacer } from './flush-pacer.ts';
import {
  PRIMARY_TIMING,
  type Clock,
  type PrimaryTransport,
  type TimerHandle,
  type Timers,
  type WorkerHandle,
} from './primary-ports.ts';
import type { ServerToPrimary, WorkerSettings, WorkerToPrimary } from '../common/protocol.ts';
import { WorkerLifecycle } from './worker-lifecycle.ts';
import { WriteOutage } from './write-outage.ts';

/** What the primary asks of its Coordinator. */
export type PrimaryCoordinator = Pick<
  Coordinator,
  | 'handOut'
  | 'nextWakeAt'
  | 'hasWrites'
  | 'flushing'
  | 'flush'
  | 'stopCleanly'
  | 'takeUrgent'
  | 'onResult'
  | 'abandon'
  | 'inFlightCount'
  | 'returnInFlight'
  | 'snapshotChanges'
  | 'refreshSeeds'
  | 'syncSeeds'
  | 'requests'
>;

/** What a CrawlPrimary is given. */
export interface CrawlPrimaryParts<W extends WorkerHandle> {
  coordinator: PrimaryCoordinator;
  config: Pick<
    Config,
    'crawlWorkers' | 'crawlRefreshMs' | 'dataDir' | 'crawlMinFreeDiskBytes' | 'crawlMaxDbSizeBytes'
  > &
    Partial<Pick<Config, 'databaseUrl'>>;
  /** What every worker is told when it is ready. */
  settings: WorkerSettings;
  /** Fetches a worker runs at once (FETCH_DEFAULTS.fetchesPerWorker). */
  slotsPerWorker: number;
  clock: Clock;
  timers: Timers;
  transport: PrimaryTransport<W>;
  /** Reads the free space of DATA_DIR's file system and the database's size (db/storage-size.ts; tests inject their own). */
  readDisk(): DiskReading;
  /** The process id, for the server's `started`. */
  pid: number;
  /** Closes the storage and releases DATA_DIR's lock: the last step of a shutdown, before exit. */
  release(): void | Promise<void>;
  /**
   * Reads the seeds this often besides the server's `seeds-changed` (a crawler node on PostgreSQL, issue 29: seeds
   * added or removed through another node's server, or with no server at all); unset: only when told.
   */
  pollSeedsMs?: number;
}

/**
 * How often a crawler node on PostgreSQL reads the seeds changed (issue 29: a removal stops the owner's requests
 * within a second). 500 ms left too little for a loaded machine: in a clean-clone CI at load 14 a removed site's
 * request started 1,199 ms after the removal's answer (the poll's wait, then the removal's sync and a request
 * already handed out). One indexed read of the seeds changed since a cursor, usually none.
 */
export const NODE_SEED_POLL_MS = 250;
/** The crawler primary (see the module comment). */
export class CrawlPrimary<W extends WorkerHandle> {
  private readonly workers: WorkerLifecycle<W>;
  private readonly outage: WriteOutage;
  private readonly disk: DiskWatch;
  private readonly flusher: FlushPacer;
  private readonly loop: DispatchLoop<W>;
  private readonly intervals: TimerHandle[] = [];
  private stopping = false;
  /** No snapshot before this time (see sendSnapshot). */
  private snapshotDueAt = -Infinity;
  /** Whether the server has had this primary's full snapshot (the first one), after which it gets changes only. */
  private sentFull = false;
  /** Set during a shutdown's grace: called once no fetch is in flight. */
  private drained: (() => void) | null = null;
  /** A poll of the seeds is running (pollSeedsMs): the next one waits for it. */
  private polling = false;

  constructor(private readonly parts: CrawlPrimaryParts<W>) {
    const { clock, timers, transport, coordinator } = parts;
    this.workers = new WorkerLifecycle({
      transport,
      timers,
      clock,
      settings: parts.settings,
      slotsPerWorker: parts.slotsPerWorker,
      maxWorkers: parts.config.crawlWorkers,
    });
    this.outage = new WriteOutage({
      clock,
      timers,
      dataDir: parts.config.dataDir,
      databaseUrl: parts.config.databaseUrl,
      toServer: (msg) => transport.toServer(msg),
      log: (line) => transport.log(line),
      fatal: (message) => this.fatal(message),
      retry: () => this.flusher.now(),
    });
    this.disk = new DiskWatch({
      clock,
      timers,
      dataDir: parts.config.dataDir,
      read: () => parts.readDisk(),
      log: (line) => transport.log(line),
      limits: { minFreeBytes: parts.config.crawlMinFreeDiskBytes, maxDbBytes: parts.config.crawlMaxDbSizeBytes },
      changed: (paused) => {
        this.sendSnapshot(); // the server hears it now, not with the next snapshot
        if (!paused) this.loop.pump();
      },
    });
    this.flusher = new FlushPacer({
      timers,
      outage: this.outage,
      flush: () => coordinator.flush(clock()),
      transport,
      afterFlush: () => this.loop.pump(),
    });
    this.loop = new DispatchLoop({
      clock,
      timers,
      coordinator,
      pool: this.workers.pool,
      outage: this.outage,
      disk: this.disk,
      flusher: this.flusher,
      workers: this.workers,
      transport,
    });
  }

  /** Starts the snapshot and refresh timers, tells the server it started; workers start with the first due job. */
  start(): void {
    const { config, timers } = this.parts;
    this.intervals.push(
      timers.setInterval(() => {
        this.workers.retireIdle(this.parts.clock());
        this.sendSnapshot();
      }, PRIMARY_TIMING.snapshotMs),
    );
    // Seeds whose last crawl is older than CRAWL_REFRESH are crawled again (crawler/frontier/refresh.ts); never at 0.
    if (config.crawlRefreshMs > 0)
      this.intervals.push(timers.setInterval(() => void this.refresh(), refreshCheckMs(config.crawlRefreshMs)));
    const poll = this.parts.pollSeedsMs;
    if (poll !== undefined) this.intervals.push(timers.setInterval(() => void this.pollSeeds(), poll));
    this.disk.start();
    this.parts.transport.toServer({ type: 'started', pid: this.parts.pid });
    this.loop.pump();
  }

  /** Work may have become due outside the primary's own events (a lease taken, renewed or lost): hands it out. */
  pump(): void {
    this.loop.pump();
  }

  /** A message from a worker: `ready` (it gets the settings and work) or `done` (its result is applied). */
  onWorkerMessage(workerId: number, msg: WorkerToPrimary): void {
    if (msg.type === 'ready') {
      if (!this.workers.ready(workerId)) return;
    } else if (msg.type === 'done') {
      this.workers.done(workerId, msg.result.jobId);
      this.parts.coordinator.onResult(msg.result, this.parts.clock(), msg.sinceEndMs);
      this.checkDrained();
      // Links to a host with nothing queued are stored at once (the flush pumps): a slot is free for them.
      if (this.parts.coordinator.takeUrgent()) {
        this.flusher.now();
        return;
      }
      this.flusher.soon();
    }
    this.loop.pump();
  }

  /**
   * A worker exited: its jobs go back to their queues and, unless it was asked to leave or the crawl is
   * stopping, another worker starts.
   */
  onWorkerExit(workerId: number, code: number | null, signal: string | null): void {
    const pid = this.workers.worker(workerId)?.pid;
    const how = signal ?? `code ${code}`;
    const { jobs, expected } = this.workers.exited(workerId);
    for (const jobId of jobs) {
      this.parts.coordinator.abandon(jobId, this.parts.clock(), `the worker fetching it died (${how})`);
    }
    this.checkDrained();
    if (this.stopping || expected) return;
    this.parts.transport.log(`crawler: worker ${pid} died (${how}); starting another`);
    this.workers.fork();
    this.flusher.soon();
  }

  /** A message from the server: seeds changed, a host's timeline asked for, or stop. */
  onServerMessage(msg: ServerToPrimary): void {
    const { coordinator, transport } = this.parts;
    switch (msg.type) {
      case 'seeds-changed':
        void this.syncSeeds();
        break;
      case 'requests':
        transport.toServer({ type: 'requests', reqId: msg.reqId, requests: coordinator.requests(msg.origin) });
        break;
      case 'shutdown':
        void this.shutdown('asked by the server');
        break;
    }
  }

  /** Reads the seeds users changed and writes their first chunk (Coordinator.syncSeeds), then hands out work. */
  private async syncSeeds(): Promise<void> {
    try {
      await this.parts.coordinator.syncSeeds(this.parts.clock());
    } catch (err) {
      // The seeds are in the database; a new primary reads them at start.
      this.fatal(`could not queue the new seeds (${(err as Error).message}); restarting the crawler`);
      return;
    }
    this.loop.pump();
  }

  /**
   * Stops handing out work, gives in-flight fetches PRIMARY_TIMING.shutdownGraceMs to finish (their
   * results are stored), returns the rest to the queue, stores what is queued, stops the workers,
   * releases the database and exits 0. A second call (or one after a fatal error) does nothing.
   */
  async shutdown(why: string): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    const { coordinator, transport, timers } = this.parts;
    this.loop.stop();
    this.outage.stop();
    this.disk.stop();
    for (const timer of this.intervals) timers.clearInterval(timer);
    transport.log(`crawler: stopping (${why}); ${coordinator.inFlightCount()} fetches in flight`);
    if (coordinator.inFlightCount() > 0) {
      await new Promise<void>((resolve) => {
        const timer = timers.setTimeout(resolve, PRIMARY_TIMING.shutdownGraceMs);
        this.drained = () => {
          timers.clearTimeout(timer);
          resolve();
        };
      });
    }
    this.drained = null;
    const cut = coordinator.inFlightCount();
    coordinator.returnInFlight();
    this.flusher.stop();
    try {
      // After any flush in flight (one at a time), with the mark that the next start may trust the stored clocks.
      await coordinator.stopCleanly(this.parts.clock());
    } catch (err) {
      transport.log(
        `crawler: final write failed (${(err as Error).message}); leased URLs return to the queue at the next start`,
      );
    }
    await this.workers.stopAll();
    try {
      await this.parts.release();
    } catch (err) {
      transport.log(`crawler: closing the storage failed (${(err as Error).message}); everything was written before`);
    }
    transport.log(`crawler: stopped (${cut} unfinished fetches returned to the queue)`);
    transport.exit(0);
  }

  /** An exception nothing caught (process 'uncaughtException'): logged with its stack, then fatal. */
  crashed(err: Error): void {
    this.parts.transport.log(`crawler: ${err.stack ?? String(err)}`);
    this.fatal(`crashed (${err.message}); restarting the crawler`);
  }

  /** Stops handing out work, reports `message` and exits 1 (see fatal-exit.ts). */
  fatal(message: string): void {
    this.stopping = true;
    this.loop.stop();
    this.disk.stop();
    fatalExit(this.parts.transport, this.parts.timers, message);
  }

  private checkDrained(): void {
    if (this.drained && this.parts.coordinator.inFlightCount() === 0) this.drained();
  }

  /**
   * Sends a snapshot, unless the last one took so long that this one must wait (PRIMARY_TIMING.snapshotShare).
   * The first is full (every host: the server replaces what an earlier primary told it); the others carry
   * only the hosts whose facts changed, the server keeping the rest (protocol.ts CrawlSnapshot).
   */
  private sendSnapshot(): void {
    const start = this.parts.clock();
    if (start < this.snapshotDueAt) return;
    const full = !this.sentFull;
    const snap = this.parts.coordinator.snapshotChanges(start, this.workers.pool.readyCount(), full); // workers loaded and ready to fetch
    this.parts.transport.toServer({ type: 'snapshot', ...snap, disk: this.disk.status(), at: start, full });
    this.sentFull = true;
    this.snapshotDueAt = start + (this.parts.clock() - start) / PRIMARY_TIMING.snapshotShare;
  }

  /** Reads the seeds changed since the last read (pollSeedsMs); a storage error waits out as a batch's does. */
  private async pollSeeds(): Promise<void> {
    if (this.stopping || this.outage.waiting || this.polling) return;
    this.polling = true;
    try {
      await this.parts.coordinator.syncSeeds(this.parts.clock());
    } catch (err) {
      this.outage.failed(err, 'reading the seeds');
      return;
    } finally {
      this.polling = false;
    }
    this.loop.pump();
  }

  private async refresh(): Promise<void> {
    if (this.stopping || this.outage.waiting) return; // a database that refuses writes: the next check tries again
    try {
      const refreshed = await this.parts.coordinator.refreshSeeds(this.parts.clock());
      if (refreshed === 0) return;
      this.parts.transport.log(
        `crawler: crawling ${refreshed} seed(s) again, their last crawl being older than CRAWL_REFRESH`,
      );
    } catch (err) {
      this.outage.failed(err, 'queueing seeds for their refresh');
      return;
    }
    this.loop.pump();
  }
}
