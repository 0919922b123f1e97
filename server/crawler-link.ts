import { fork, type ChildProcess } from 'node:child_process';
import { configArgument, type Config } from '../shared/config.ts';
import { processEntry } from '../shared/project-root.ts';
import type { CrawlerState } from '../shared/enumerations.ts';
import type {
  CrawlStatus,
  DiskStatus,
  DomainInfo,
  PrimaryToServer,
  RequestLogEntry,
  ServerToPrimary,
  StorageStatus,
} from '../crawler/common/protocol.ts';
import { primaryExecArgv } from '../crawler/primary-heap.ts';
import { DomainBook } from './domain-book.ts';

/** The crawler primary's process: its source under tsx, its bundle when the server runs from dist/. */
const PRIMARY_ENTRY = processEntry('crawler/primary.ts');

/** How the server restarts a crawler primary that died: doubling waits, reset after a healthy minute. */
export const RESTART_BACKOFF = { firstMs: 500, maxMs: 30_000, healthyAfterMs: 60_000 };

/** Where the link reports what happens to the crawler (the server's logger). */
export interface LinkLogger {
  info?(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

/**
 * The server's side of the crawler: forks the primary, restarts it with backoff when it dies, keeps
 * the latest snapshot it sent (so the API keeps answering while it restarts), and forwards messages.
 * `lastError` is the crawler's current problem in words (what /api/status and the UI show): set when
 * the crawler reports an error or dies, cleared when it says the problem is over or a restart worked.
 */
export class CrawlerLink {
  state: CrawlerState = 'stopped';
  status: CrawlStatus = { queued: 0, inFlight: 0, workers: 0, fetchRatePerMin: 0 };
  /** Every host the crawler reported, from its snapshots (each carries only what changed: domain-book.ts). */
  private readonly book = new DomainBook();
  /** The crawl's disk budget as the crawler last reported it (no reading before its first check). */
  disk: DiskStatus;
  lastError: string | null = null;
  /**
   * The database's outage as the crawler reported it (its crawl paused until it can write again), else null:
   * cleared when it reports `recovered`, or when a new primary has started (it opened the database).
   */
  storage: StorageStatus | null = null;
  private child: ChildProcess | null = null;
  /** What the current primary reported before it exited, to say why it died. */
  private childError: string | null = null;
  /** Whether `lastError` says the crawler died (cleared once a new primary has started). */
  private errorIsExit = false;
  private stopping = false;
  private restartDelayMs = RESTART_BACKOFF.firstMs;
  private restartTimer: NodeJS.Timeout | null = null;
  private startedAt = 0;
  private nextReqId = 1;
  private pending = new Map<number, (r: RequestLogEntry[]) => void>();

  constructor(
    private readonly log: LinkLogger,
    private readonly onPagesStored: () => void,
    private readonly config: Config,
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.disk = {
      paused: false,
      reason: null,
      freeBytes: null,
      dbBytes: null,
      checkedAt: null,
      minFreeBytes: config.crawlMinFreeDiskBytes,
      maxDbBytes: config.crawlMaxDbSizeBytes,
    };
  }

  /** Forks the crawler primary with the server's configuration as its argument, in the server's environment. */
  start(): void {
    this.stopping = false;
    this.state = this.state === 'stopped' ? 'starting' : 'restarting';
    this.startedAt = Date.now();
    this.childError = null;
    const child = fork(PRIMARY_ENTRY, [configArgument(this.config)], {
      env: this.env,
      execArgv: primaryExecArgv(process.execArgv, this.config.crawlPrimaryHeapMb),
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.child = child;
    child.on('message', (msg: PrimaryToServer) => this.received(msg));
    child.on('error', (err) => this.log.error(`crawler-link: could not talk to the crawler primary: ${err.message}`));
    child.on('exit', (code, signal) => this.onExit(child, code, signal));
  }

  /** The process id of the crawler primary running now, if one is. */
  get primaryPid(): number | undefined {
    return this.child?.pid;
  }

  /** One row per host, sorted by host, as of the crawler's latest snapshot (/api/domains pages through them). */
  get domains(): DomainInfo[] {
    return this.book.rows();
  }

  /** Rows set as they are, by tests and benchmarks that stand in for a crawler (the next snapshot replaces them). */
  set domains(rows: DomainInfo[]) {
    this.book.replaceRows(rows);
  }

  /** A message of the primary: what it reports becomes the link's state (route tests send them as a primary would). */
  received(msg: PrimaryToServer): void {
    switch (msg.type) {
      case 'started':
        this.state = 'running';
        this.storage = null;
        if (this.errorIsExit) this.setError(null);
        break;
      case 'snapshot':
        this.status = msg.status;
        this.book.apply(msg);
        this.disk = msg.disk;
        break;
      case 'pages-stored':
        this.onPagesStored();
        break;
      case 'requests':
        this.pending.get(msg.reqId)?.(msg.requests);
        this.pending.delete(msg.reqId);
        break;
      case 'error':
        this.childError = msg.message;
        this.setError(msg.message);
        if (msg.storage !== undefined) this.storage = msg.storage;
        this.log.error(`crawler-link: the crawler reported: ${msg.message}`);
        break;
      case 'recovered':
        this.setError(null);
        this.storage = null;
        this.log.info?.(`crawler-link: the crawler reported: ${msg.message}`);
        break;
    }
  }

  private setError(message: string | null, isExit = false): void {
    this.lastError = message;
    this.errorIsExit = isExit;
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = null;
    for (const resolve of this.pending.values()) resolve([]);
    this.pending.clear();
    this.status = { ...this.status, inFlight: 0, workers: 0 };
    if (this.stopping) {
      this.state = 'stopped';
      return;
    }
    if (Date.now() - this.startedAt > RESTART_BACKOFF.healthyAfterMs) this.restartDelayMs = RESTART_BACKOFF.firstMs;
    const why = `the crawler ${signal ? `was killed by ${signal}` : `exited with code ${code}`}; restarting in ${this.restartDelayMs} ms`;
    this.setError(this.childError ? `${this.childError} (${why})` : why, true);
    this.log.warn(`crawler-link: ${this.lastError}`);
    this.state = 'restarting';
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      if (!this.stopping) this.start();
    }, this.restartDelayMs);
    this.restartDelayMs = Math.min(this.restartDelayMs * 2, RESTART_BACKOFF.maxMs);
  }

  private send(msg: ServerToPrimary): boolean {
    if (!this.child?.connected) return false;
    this.child.send(msg);
    return true;
  }

  /** Tells the crawler that users changed seeds (it reads them from the database). */
  notifySeeds(): void {
    this.send({ type: 'seeds-changed' });
  }

  /** The last requests made to a host, from the crawler's memory; empty if it does not answer in time. */
  requests(origin: string, timeoutMs = 2000): Promise<RequestLogEntry[]> {
    const reqId = this.nextReqId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(reqId);
        resolve([]);
      }, timeoutMs);
      this.pending.set(reqId, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      if (!this.send({ type: 'requests', reqId, origin })) {
        clearTimeout(timer);
        this.pending.delete(reqId);
        resolve([]);
      }
    });
  }

  /** Asks the primary to finish in-flight work and exit; kills it if it has not exited within `graceMs`. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.state = 'stopped';
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    // A primary that has not started yet (waiting for the DATA_DIR lock) does not listen for messages yet.
    if (this.state !== 'running' || !this.send({ type: 'shutdown' })) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
    this.state = 'stopped';
  }
}
