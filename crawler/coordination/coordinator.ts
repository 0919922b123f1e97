import type { Config } from '../../shared/config.ts';
import type { CrawlStore, GroupLeaseRef } from '../../db/crawl-store.ts';
import { GroupLeases } from './group-leases.ts';
import { Scheduler } from '../politeness/scheduler.ts';
import { serverSignal } from '../politeness/pacing.ts';
import { HostBook } from '../politeness/host-book.ts';
import { LinkIntake } from '../frontier/link-intake.ts';
import { WriteBatch } from './write-batch.ts';
import { ResultJudge } from './result-judge.ts';
import { JobDispatch, type InFlightJob } from './job-dispatch.ts';
import { JobReturns } from './job-returns.ts';
import { handOutNext, type HandOutParts } from './dispatch-loop.ts';
import { IntentApplier } from './intent-applier.ts';
import { CrawlReport } from './crawl-report.ts';
import { SeedBook } from '../frontier/seed-book.ts';
import { SeedLifecycle } from '../frontier/seed-lifecycle.ts';
import { SeedWrites } from '../frontier/seed-writes.ts';
import { RevisitBook } from '../frontier/revisit-book.ts';
import { FrontierWindow } from '../frontier/frontier-window.ts';
import { storeWindowSource } from '../frontier/store-window-source.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { CrawlStatus, DomainInfo, FetchJob, FetchResult, RequestLogEntry } from '../common/protocol.ts';
import type { HostFacts } from '../politeness/host-report.ts';
import type { WriteIntent } from './write-intents.ts';

export { MAX_REDIRECTS } from '../frontier/admission.ts';

/** How a Coordinator runs beyond its configuration. */
export interface CoordinatorOptions {
  /**
   * A crawler node holding politeness leases (PostgreSQL, issue 29): no group is crawled until its lease is given
   * (Coordinator.leases, fed by crawler/cluster/node-leases.ts), and every result is written under its lease.
   */
  lease?: {
    /** This node's id (group_leases.owner). */
    node: string;
    /** A batch dropped `writes` writes made under `lease`, which this node lost: to be reported. */
    dropped(lease: GroupLeaseRef, writes: number): void;
    /** Groups were noted as having work (URLs admitted, or found queued at start): a node may take them. */
    noted(groups: readonly string[]): void;
    /**
     * The machine's monotonic clock (common/machine-clock.ts) at `t` on this Coordinator's clock: how a job's send
     * limit (FetchJob.sendBy) reaches a worker, another process.
     */
    machineTime(t: number): number;
    /** A worker did not send a job: its send limit had passed (`why`, FetchResult.unsent); to be reported. */
    unsent(url: string, why: string): void;
  };
}

/**
 * The crawler primary's brain, without the processes: it owns the scheduler, every host's state and
 * robots rules and sitemap jobs (its HostBook), and is the single writer of frontier, hosts and pages. Its
 * parts decide and return data: what each result means (result-judge.ts), what becomes of each job the
 * scheduler releases (job-dispatch.ts; the dispatch loop hands jobs out with `handOut`, dispatch-loop.ts),
 * what seeds added, submitted again, due for their refresh or removed call for (seed-lifecycle.ts).
 * intent-applier.ts applies those decisions, and writes their write intents (write-intents.ts), queued in
 * write-batch.ts, in one transaction per `flush()` through the CrawlStore (db/crawl-store.ts; a seed's
 * through seed-writes.ts); commit-effects.ts applies what they did to memory only once it committed. URLs
 * enter the frontier through link-intake.ts, which keeps the per-host URL budget (CRAWL_MAX_URLS_PER_HOST)
 * and the per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED). Each page's revisit interval is kept by
 * revisit-book.ts. The crawl's status and snapshots for the server are described by crawl-report.ts. The
 * frontier stays in storage: the scheduler holds a window of each host's queue (frontier-window.ts). Time
 * comes in as arguments. Storage answers Promises (db/crawl-store.ts): `start`, `flush`, `syncSeeds`,
 * `refreshSeeds` and `stopCleanly` are awaited; a result, an abandoned job and a dispatch read nothing from
 * storage and stay synchronous.
 */
export class Coordinator {
  readonly scheduler: Scheduler<CrawlJob>;
  private readonly store: CrawlStore;
  private readonly hosts: HostBook;
  private readonly seeds = new SeedBook();
  /** Jobs handed out, by job id (job-dispatch.ts InFlightJob). */
  private readonly inFlight = new Map<number, InFlightJob>();
  /** What becomes of each job the scheduler releases (job-dispatch.ts). */
  private readonly dispatcher: JobDispatch;
  private readonly intake: LinkIntake;
  /** The write intents waiting for the next flush. */
  private readonly writes = new WriteBatch<WriteIntent>();
  private readonly seedLife: SeedLifecycle;
  private readonly window: FrontierWindow;
  /** What each result means (result-judge.ts). */
  private readonly judge: ResultJudge;
  /** Where every decision takes effect (intent-applier.ts). */
  private readonly applier: IntentApplier;
  /** Jobs back to the queue without a result: a dead worker's, an unsent one, those in flight at a stop. */
  private readonly returns: JobReturns;
  /** What the dispatch loop hands jobs out with (dispatch-loop.ts handOutNext). */
  readonly handOut: HandOutParts;
  /** The crawl's status and snapshots for the server, and the fetch rate (crawl-report.ts). */
  private readonly report: CrawlReport;
  /** The politeness groups this node holds (a crawler node on PostgreSQL, issue 29); null: every group (SQLite). */
  readonly leases: GroupLeases | null;
  /** How it runs beyond its configuration (CoordinatorOptions). */
  private readonly options: CoordinatorOptions;

  /**
   * On `store`, the crawl's storage on either engine (db/engine.ts openCrawlStorage chooses it; tests pass
   * `sqliteCrawlStore` of a temporary file, or wrap it).
   */
  constructor(store: CrawlStore, config: Config, runId: string, options: CoordinatorOptions = {}) {
    const lease = options.lease;
    this.options = options;
    this.scheduler = new Scheduler<CrawlJob>(config.crawlDelayMs, {
      grouping: config.crawlPolitenessGroup,
      pacing: { factor: config.crawlPacingFactor, ceilingMs: config.crawlPacingMaxMs },
      leased: lease !== undefined,
    });
    this.store = store;
    this.hosts = new HostBook(this.scheduler, config.userAgent, (w, quiet) =>
      quiet ? this.writes.pushQuiet(w) : this.writes.push(w),
    );
    this.intake = new LinkIntake({
      maxUrlsPerHost: config.crawlMaxUrlsPerHost,
      maxHostsPerSeed: config.crawlMaxHostsPerSeed,
      seedUrl: (id) => this.seeds.get(id)?.url,
    });
    const revisits = new RevisitBook({
      refreshMs: config.crawlRefreshMs,
      maxMs: config.crawlRevisitMaxMs,
    });
    const seeds = this.seeds;
    this.window = new FrontierWindow({
      scheduler: this.scheduler,
      isLive: (seedId) => seeds.get(seedId) !== undefined,
      source: storeWindowSource(store),
      isHeld: lease === undefined ? undefined : (origin) => this.leases?.holdsOrigin(origin) ?? false,
    });
    this.judge = new ResultJudge({
      allowPrivate: config.allowPrivate,
      maxUrlsPerHost: config.crawlMaxUrlsPerHost,
      seeds,
      hosts: this.hosts,
      scheduler: this.scheduler,
      window: this.window,
    });
    this.report = new CrawlReport(this.hosts, this.window, () => this.inFlight.size);
    this.dispatcher = new JobDispatch({ seeds, hosts: this.hosts, runId });
    this.seedLife = new SeedLifecycle({
      seeds,
      seedsDb: store.seeds,
      frontier: store.frontier,
      refreshMs: config.crawlRefreshMs,
      shared: lease !== undefined,
    });
    const seedWrites = new SeedWrites({
      seeds,
      requeueDue: async (tx, seed, now) => (await revisits.refreshDue(tx, seed.id, seed.depth, seed.url, now)).rows,
    });
    this.applier = new IntentApplier({
      store,
      batch: this.writes,
      scheduler: this.scheduler,
      window: this.window,
      hosts: this.hosts,
      seeds,
      intake: this.intake,
      seedWrites,
      revisits,
      judge: this.judge,
      inFlight: this.inFlight,
      leases:
        lease === undefined
          ? undefined
          : {
              node: lease.node,
              fenceOf: (origin) => this.leases?.fenceOf(origin),
              sendBy: (origin) => {
                const until = this.leases?.sendsUntil(origin);
                return until === undefined ? undefined : lease.machineTime(until);
              },
              groupsOf: (origins) => this.leases?.groupsOf(origins) ?? [],
              dropped: (l, writes) => lease.dropped(l, writes),
              noted: (groups) => lease.noted(groups),
            },
    });
    this.leases =
      lease === undefined
        ? null
        : new GroupLeases({
            scheduler: this.scheduler,
            window: this.window,
            hosts: this.hosts,
            unsettled: (group) => this.applier.unsettled(group),
          });
    this.returns = new JobReturns({
      scheduler: this.scheduler,
      window: this.window,
      hosts: this.hosts,
      seeds,
      push: (w, fence) => this.applier.push(w, fence),
    });
    this.handOut = {
      scheduler: this.scheduler,
      window: this.window,
      dispatcher: this.dispatcher,
      applier: this.applier,
    };
  }

  /**
   * Loads what a previous run left: leases go back to the queue, host clocks and robots rules are restored,
   * seeds read, and each host with queued URLs gets its first window (not the whole frontier). A job's
   * lease and its host's start are written with the batch after its dispatch, so a primary that died
   * without a clean stop may have sent requests that left nothing on disk: then every host its stored clock
   * made due by `now` (the restart, no earlier than the crash) counts as contacted at `now`
   * (HostBook.restore), and this start is marked unclean until `stopCleanly` stores everything. Resolves
   * once all of it is read: the first dispatch comes after.
   */
  async start(now: number): Promise<void> {
    const last = await this.store.stops.lastStop();
    const contactedBy = last.clean ? last.contactedBy : now;
    await this.store.stops.markRunning(contactedBy);
    // A crawler node (PostgreSQL) returns the leased URLs of a group when it takes it: others may be fetching theirs.
    if (this.leases === null) await this.store.frontier.returnAllLeases();
    const counts = await this.store.frontier.countsByOrigin(); // URLs per host and state: the window's queued counts
    await this.intake.load(this.store); // the URL budget per host and the host budget per seed, in one scan
    await this.hosts.restore(this.store, now, contactedBy ?? -Infinity);
    await this.syncSeeds(now, false);
    const queued = counts.filter((c) => c.state === 'queued');
    for (const { origin, n } of queued) if (n > 0) this.hosts.see(origin); // its row and robots.txt job exist from now on
    await this.window.load(queued);
    // Groups with queued URLs have work, whatever a node that died between its batch and its note left written.
    if (this.leases !== null && this.options.lease !== undefined) {
      const groups = this.leases.groupsOf(queued.map((q) => q.origin));
      await this.store.leases?.noteWork(groups);
      this.options.lease.noted(groups);
    }
  }

  /**
   * Reads seeds users added, changed or removed and decides (SeedLifecycle.sync), then writes the first
   * SEED_CHUNK seeds taken in in one transaction: an import of 10,000 bookmarks is not 10,000 commits
   * (measured: 14 s, see docs/benchmarks.md), the rest a chunk per batch, so that no other host waits
   * long. A removed seed's jobs leave the hosts' queues now, its rows and pages with the next batches.
   * Should it fail, the primary restarts and a new one reads the seeds afresh.
   */
  async syncSeeds(now: number, recrawl = true): Promise<void> {
    const plan = await this.seedLife.sync(recrawl);
    await this.applier.applyAtOnce(plan.atOnce, now);
    for (const s of plan.removed) this.window.seedRemoved(s.id); // its jobs leave the hosts' queues now
    this.applier.queue(plan.queued, plan.removed.length > 0);
  }

  /** Queues again every seed due for its periodic refresh (CRAWL_REFRESH); returns how many were. */
  async refreshSeeds(now: number): Promise<number> {
    return (await this.applier.applyAtOnce(await this.seedLife.refresh(now), now)).recrawled;
  }

  /**
   * The next job to hand an idle worker, or undefined if no host is due: what the dispatch loop hands out
   * (dispatch-loop.ts handOutNext), for tests and benchmarks that drive the Coordinator by hand.
   */
  dispatch(now: number): FetchJob | undefined {
    return handOutNext(this.handOut, now);
  }

  /** A worker died with this job: it goes back to the queue (JobReturns.abandoned: the host waits twice its delay). */
  abandon(jobId: number, now: number, reason: string): void {
    const entry = this.inFlight.get(jobId);
    if (!entry) return;
    this.inFlight.delete(jobId);
    this.returns.abandoned(entry, now, reason);
  }

  /** Every job in flight goes back to the queue (the crawl is stopping); a sitemap's stored row stays for the next start. */
  returnInFlight(): void {
    this.returns.returnAll(this.inFlight.values());
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
    const { job, origin, dispatchedAt, conditional, fence } = entry;
    if (result.unsent !== undefined) {
      // Its send limit had passed: nothing reached the site, the job goes back as it was (JobReturns.unsent).
      this.options.lease?.unsent(job.url, result.unsent);
      this.returns.unsent(entry, now);
      return;
    }
    const ended = Math.max(dispatchedAt, now - Math.max(0, sinceEndMs));
    this.scheduler.complete(origin, ended, serverSignal(result)); // the answer's time and load pace its group
    this.window.readyAgain(origin); // an empty window is read on by the next flush (see FrontierWindow.readyAgain)
    this.hosts.recordEnd(origin, job.url, result, ended);
    this.report.fetchEnded(now);
    this.applier.judged(this.judge.judge(job, origin, result, now, conditional), now, fence);
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
   * they discovered and refills the hosts' windows that ran low; resolves to pages stored or retired.
   * One at a time: a flush asked for while one runs starts once it settled (IntentApplier.flush).
   */
  flush(now: number): Promise<number> {
    return this.applier.flush(now);
  }

  /** Whether a flush (or a seed's writes at once) is in flight: its transaction or reads not settled yet. */
  flushing(): boolean {
    return this.applier.busy;
  }

  /**
   * The last batch of a clean stop (no more dispatch; jobs in flight returned): applies the queued writes
   * with the mark that everything is stored, so the next start trusts the stored host clocks as they are.
   * If it fails, nothing is marked and the next start treats the stop as a crash. Runs after any flush in flight.
   */
  stopCleanly(now: number): Promise<number> {
    this.writes.push({ kind: 'mark-clean-stop' });
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
