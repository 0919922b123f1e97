import type { Database } from 'better-sqlite3';
import type { Config } from '../../shared/config.ts';
import { frontierQueries, type FrontierRow } from '../../db/frontier.ts';
import { hostQueries } from '../../db/hosts.ts';
import { crawlerStopQueries } from '../../db/crawler-stop.ts';
import { sitemapJobQueries } from '../../db/sitemap-jobs.ts';
import { pageQueries } from '../../db/pages.ts';
import { linkTargetQueries } from '../../db/link-targets.ts';
import { seedQueries } from '../../db/seeds.ts';
import { seedHostQueries } from '../../db/seed-hosts.ts';
import { searchIndexCompaction } from '../../db/search-compaction.ts';
import { Scheduler } from '../politeness/scheduler.ts';
import { serverSignal } from '../politeness/pacing.ts';
import { BACKOFF } from '../politeness/backoff.ts';
import { HostBook } from '../politeness/host-book.ts';
import { LinkIntake } from '../frontier/link-intake.ts';
import { WriteBatch } from './write-batch.ts';
import { ResultJudge } from './result-judge.ts';
import { JobDispatch, type InFlightJob } from './job-dispatch.ts';
import { CrawlReport } from './crawl-report.ts';
import { SeedBook } from '../frontier/seed-book.ts';
import { SeedLifecycle } from '../frontier/seed-lifecycle.ts';
import { RevisitBook } from '../frontier/revisit-book.ts';
import { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { CrawlStatus, DomainInfo, FetchJob, FetchResult, RequestLogEntry } from '../common/protocol.ts';
import type { HostFacts } from '../politeness/host-report.ts';

export { MAX_REDIRECTS } from '../frontier/admission.ts';

/**
 * The crawler primary's brain, without the processes: it owns the scheduler, every host's state and
 * robots rules and sitemap jobs (its HostBook), hands out jobs and takes their results back, and is the single
 * writer of frontier, hosts and pages. What each result means is decided by result-judge.ts; what it takes on
 * enters the frontier through link-intake.ts, which keeps the per-host URL budget (CRAWL_MAX_URLS_PER_HOST)
 * and the per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED). Which job goes out next is
 * chosen by job-dispatch.ts. Seeds added, submitted again, due for their refresh or removed are handled by
 * seed-lifecycle.ts; a job whose seed was removed is dropped. Each page's revisit interval is kept by
 * revisit-book.ts. The crawl's status and snapshots for the server are described by crawl-report.ts.
 * The frontier stays in SQLite: the scheduler holds a window of each host's queue (frontier-window.ts).
 * Writes are queued (write-batch.ts) and applied by `flush()` in one transaction. Time comes in as arguments.
 */
export class Coordinator {
  readonly scheduler: Scheduler<CrawlJob>;
  private readonly frontier;
  private readonly hosts: HostBook;
  private readonly seeds = new SeedBook();
  /** Jobs handed out, by job id (job-dispatch.ts InFlightJob). */
  private readonly inFlight = new Map<number, InFlightJob>();
  /** Which job goes out next (job-dispatch.ts). */
  private readonly dispatcher: JobDispatch;
  private readonly intake: LinkIntake;
  private readonly writes: WriteBatch;
  /** How the last primary stopped (migration 0017): read and reset at start, set by the last batch of a clean stop. */
  private readonly stops;
  /** Runs SeedLifecycle.sync in one transaction (see syncSeeds). */
  private readonly syncInTransaction: (now: number, recrawl: boolean) => void;
  private readonly seedLife: SeedLifecycle;
  private readonly window: FrontierWindow;
  /** What each result means (result-judge.ts): it queues the writes a result calls for. */
  private readonly judge: ResultJudge;
  /** A batch's full-text entries and link targets, written at its end (see flush). */
  private readonly pages: ReturnType<typeof pageQueries>;
  private readonly linkTargets: ReturnType<typeof linkTargetQueries>;
  /** The crawl's status and snapshots for the server, and the fetch rate (crawl-report.ts). */
  private readonly report: CrawlReport;
  private pagesStored = 0;

  constructor(db: Database, config: Config, runId: string) {
    this.scheduler = new Scheduler<CrawlJob>(config.crawlDelayMs, {
      grouping: config.crawlPolitenessGroup,
      pacing: { factor: config.crawlPacingFactor, ceilingMs: config.crawlPacingMaxMs },
    });
    this.writes = new WriteBatch(db);
    this.frontier = frontierQueries(db);
    this.stops = crawlerStopQueries(db);
    this.hosts = new HostBook(this.scheduler, hostQueries(db), sitemapJobQueries(db), config.userAgent, (w, quiet) =>
      quiet ? this.writes.pushQuiet(w) : this.writes.push(w),
    );
    const pages = pageQueries(db, { deferSearch: true }); // full-text entries written at each batch's end (flush)
    const linkTargets = linkTargetQueries(db);
    this.pages = pages;
    this.linkTargets = linkTargets;
    const seedHosts = seedHostQueries(db);
    this.intake = new LinkIntake(this.frontier, this.hosts, seedHosts, {
      maxUrlsPerHost: config.crawlMaxUrlsPerHost,
      maxHostsPerSeed: config.crawlMaxHostsPerSeed,
      seedUrl: (id) => this.seeds.get(id)?.url,
    });
    const revisits = new RevisitBook(db, this.frontier, {
      refreshMs: config.crawlRefreshMs,
      maxMs: config.crawlRevisitMaxMs,
    });
    this.window = new FrontierWindow({
      scheduler: this.scheduler,
      isLive: (seedId) => this.seeds.get(seedId) !== undefined,
      hostSeen: (origin) => this.hosts.host(origin),
      source: { ...this.frontier, inOneRead: (read) => db.transaction(read)() },
    });
    this.judge = new ResultJudge({
      config,
      scheduler: this.scheduler,
      frontier: this.frontier,
      pages,
      linkTargets,
      hosts: this.hosts,
      seeds: this.seeds,
      intake: this.intake,
      writes: this.writes,
      revisits,
      window: this.window,
      schedule: (row, now) => this.schedule(row, now),
      pageStored: () => this.pagesStored++,
    });
    this.report = new CrawlReport(this.hosts, this.window, () => this.inFlight.size);
    this.dispatcher = new JobDispatch({
      scheduler: this.scheduler,
      frontier: this.frontier,
      pages,
      hosts: this.hosts,
      seeds: this.seeds,
      writes: this.writes,
      window: this.window,
      inFlight: this.inFlight,
      runId,
    });
    this.seedLife = new SeedLifecycle({
      seeds: this.seeds,
      seedsDb: seedQueries(db),
      frontier: this.frontier,
      pages,
      writes: this.writes,
      budget: this.intake.budget,
      hostBudget: this.intake.hostBudget,
      seedHosts,
      refreshMs: config.crawlRefreshMs,
      window: this.window,
      schedule: (row, now) => this.schedule(row, now),
      readSitemaps: (seed) => this.judge.queueSitemaps(seed.origin, this.hosts.sitemapsOf(seed.origin), 0, seed.id),
      compactSearchIndexStep: searchIndexCompaction(db).compactSearchIndexStep,
      requeueDue: (seed, now) => revisits.refreshDue(seed.id, seed.depth, seed.url, now).rows,
    });
    // Transactions that read before they write begin IMMEDIATE: the server writes the same file, and a read
    // snapshot that turns into a write after the server's commit fails at once (SQLITE_BUSY), busy_timeout or not.
    const sync = db.transaction((now: number, recrawl: boolean) => this.seedLife.sync(now, recrawl));
    this.syncInTransaction = (now, recrawl) => sync.immediate(now, recrawl);
  }

  /**
   * Loads what a previous run left: leases go back to the queue, host clocks and robots rules are restored,
   * seeds read, and each host with queued URLs gets its first window (not the whole frontier). A job's
   * lease and its host's start are written with the batch after its dispatch, so a primary that died
   * without a clean stop may have sent requests that left nothing on disk: then every host its stored clock
   * made due by `now` (the restart, no earlier than the crash) counts as contacted at `now`
   * (HostBook.restore), and this start is marked unclean until `stopCleanly` stores everything.
   */
  start(now: number): void {
    const last = this.stops.lastStop();
    const contactedBy = last.clean ? last.contactedBy : now;
    this.stops.markRunning(contactedBy);
    this.frontier.returnAllLeases();
    const counts = this.frontier.countsByOrigin(); // URLs per host and state: the window's queued counts
    this.intake.load(); // the URL budget per host and the host budget per seed, in one scan
    this.hosts.restore(now, contactedBy ?? -Infinity);
    this.syncSeeds(now, false);
    this.window.load(counts.filter((c) => c.state === 'queued'));
  }

  /**
   * Reads seeds users added, changed or removed, and acts on them (see SeedLifecycle.sync), in one
   * transaction: an import of 10,000 bookmarks is not 10,000 commits (measured: 14 s, see
   * docs/benchmarks.md), and its first SEED_CHUNK seeds are queued in it, the rest a chunk per
   * batch, so that no other host waits long. Should it fail, the primary restarts and a new one reads the
   * seeds afresh.
   */
  syncSeeds(now: number, recrawl = true): void {
    this.syncInTransaction(now, recrawl);
  }

  /** Queues again every seed due for its periodic refresh (CRAWL_REFRESH); returns how many were. */
  refreshSeeds(now: number): number {
    return this.seedLife.refresh(now);
  }

  /** A row committed as queued: into its host's window, or waiting beyond it in the database. */
  private schedule(row: FrontierRow, _now: number): void {
    this.hosts.host(row.origin); // a host seen for the first time gets its row and its robots.txt job
    this.window.arrived(row);
  }

  /**
   * The next job to hand an idle worker, or undefined if no host is due (see JobDispatch.next: robots rules
   * and expiry, removed seeds' jobs, the lease and the host's start queued for the next batch).
   */
  dispatch(now: number): FetchJob | undefined {
    return this.dispatcher.next(now);
  }

  /**
   * A worker died with this job: the host's request is over, the URL goes back to the queue. When the
   * site saw its connection close is not known here (its server notices in its own time), so the
   * host's clock counts the request as ending one delay later: the host waits twice its delay.
   */
  abandon(jobId: number, now: number, reason: string): void {
    const entry = this.inFlight.get(jobId);
    if (!entry) return;
    this.inFlight.delete(jobId);
    const { job, origin } = entry;
    this.scheduler.complete(origin, now + this.scheduler.effectiveDelay(origin).ms);
    this.window.readyAgain(origin); // its window is read on here, not within a dispatch (see FrontierWindow.taken)
    this.hosts.noteAbandoned(origin, now);
    const attempts = job.attempts + 1;
    if (job.kind === 'page' && !this.seeds.get(job.seedId)) {
      // Its seed was removed: not tried again, but its row goes back to the queue (deleted with its seed's, or its own again should the seed come back).
      this.window.droppedInFlight(origin, job);
      this.writes.push(() => this.frontier.returnLease(job.frontierId));
      return;
    }
    if (job.kind !== 'robots' && attempts >= BACKOFF.maxAttempts) {
      if (job.kind === 'page') this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'failed', reason, now));
      else this.hosts.sitemapDone(job.url);
      return;
    }
    if (job.kind === 'page') {
      this.window.retry(origin, { ...job, attempts, notBefore: now });
      this.writes.push(() => this.frontier.retryUrl(job.frontierId, attempts, now, reason));
      return;
    }
    this.scheduler.add(origin, { ...job, attempts, notBefore: now }, job.kind === 'robots');
  }

  /** Every job in flight goes back to the queue (the crawl is stopping); a sitemap's stored row stays for the next start. */
  returnInFlight(): void {
    for (const [, { job }] of this.inFlight) {
      if (job.kind === 'page') this.writes.push(() => this.frontier.returnLease(job.frontierId));
      else if (job.kind === 'sitemap') this.hosts.sitemapReturned(job.url);
    }
    this.inFlight.clear();
  }

  /**
   * Applies a worker's result: host clock, robots, backoff, page storage, new links. `sinceEndMs` is how
   * long before `now` the response ended (the worker's parse and the report); the host's clock runs from
   * that end, never from before the job was handed out nor after `now`.
   */
  onResult(result: FetchResult, now: number, sinceEndMs = 0): void {
    const entry = this.inFlight.get(result.jobId);
    if (!entry) return;
    this.inFlight.delete(result.jobId);
    const { job, origin, dispatchedAt, conditional } = entry;
    const ended = Math.max(dispatchedAt, now - Math.max(0, sinceEndMs));
    this.scheduler.complete(origin, ended, serverSignal(result)); // the answer's time and load pace its group
    this.window.readyAgain(origin); // its window is read on here, not within a dispatch (see FrontierWindow.taken)
    this.hosts.recordEnd(origin, job.url, result, ended);
    this.report.fetchEnded(now);
    this.judge.judge(job, origin, result, now, conditional);
    this.hosts.save(origin, now);
  }

  /**
   * Whether the queued writes should be flushed now rather than with the next batch: they hold links
   * to a host that has nothing queued, so a worker could start on them as soon as they are stored.
   * Reading it clears it.
   */
  takeUrgent(): boolean {
    return this.writes.takeUrgent();
  }

  /**
   * Whether writes (or refills of hosts' windows, which wait for the next flush) are waiting for `flush()`.
   * Starts and leases alone do not count: they ride the next flush (see dispatch).
   */
  hasWrites(): boolean {
    return this.writes.wanted || this.window.needsFlush;
  }

  /**
   * Applies the queued writes in one transaction at `now` (pages are stamped with it), schedules the URLs
   * they discovered and refills the hosts' windows that ran low; returns pages stored or retired.
   */
  flush(now: number): number {
    if (!this.writes.pending) {
      this.window.committed(); // nothing to commit: everything written is, and windows may read on
      return 0;
    }
    try {
      this.writes.commit(now, () => {
        this.intake.saveSeedHosts(); // the seeds' host counts, as the batch left them
        // Last, the full-text entries of what the batch stored, each index's back to back (migration 0018).
        this.linkTargets.writeGathered(); // each link target of the batch once, in id order (see gatherLinks)
        this.pages.writeSearchEntries();
      });
    } catch (err) {
      this.linkTargets.discardGathered();
      this.pages.discardSearchEntries();
      // Rolled back (the writes stay queued for the next flush): the URLs they discovered were not
      // stored, so they are neither scheduled nor counted; what they dropped or retired is counted again then.
      this.intake.rollback();
      this.seedLife.rolledBack();
      throw err;
    }
    for (const row of this.intake.commit()) this.schedule(row, now);
    const changed = this.pagesStored + this.seedLife.committed(now);
    this.window.committed();
    this.pagesStored = 0;
    return changed;
  }

  /**
   * The last batch of a clean stop (no more dispatch; jobs in flight returned): applies the queued writes
   * with the mark that everything is stored, so the next start trusts the stored host clocks as they are.
   * If it fails, nothing is marked and the next start treats the stop as a crash.
   */
  stopCleanly(now: number): number {
    this.writes.push(() => this.stops.markCleanStop());
    return this.flush(now);
  }

  /** When the scheduler next has a due job (for the single wake-up timer). */
  nextWakeAt(): number | undefined {
    return this.scheduler.nextWakeAt();
  }

  /** Jobs in flight right now. */
  inFlightCount(): number {
    return this.inFlight.size;
  }

  /** The last requests to a host, oldest first. */
  requests(origin: string): RequestLogEntry[] {
    return this.report.requests(origin);
  }

  /**
   * Crawl-wide figures and the facts of each host whose report changed since the last call (of every host
   * when `full`), for the server's /api/status and /api/domains (crawl-report.ts).
   */
  snapshotChanges(now: number, workers: number, full = false): { status: CrawlStatus; hosts: HostFacts[] } {
    return this.report.snapshotChanges(now, workers, full);
  }

  /** Crawl-wide figures and every host's row at `now` (crawl-report.ts): what tests read. */
  snapshot(now: number, workers: number): { status: CrawlStatus; domains: DomainInfo[] } {
    return this.report.snapshot(now, workers);
  }
}
