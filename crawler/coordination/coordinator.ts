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
import { BACKOFF, backoffScope, retryDelayMs } from '../politeness/backoff.ts';
import { EMPTY_PAGE, isEmptyPage, NOT_MODIFIED, pageOutcome, pageRecord, type PageOutcome } from './page-outcome.ts';
import { CRAWL_LIMITS } from '../frontier/url-traps.ts';
import { admitLinks, judgeRedirect, MAX_REDIRECTS, trapMessage } from '../frontier/admission.ts';
import { HostBook } from '../politeness/host-book.ts';
import { LinkIntake } from '../frontier/link-intake.ts';
import { WriteBatch } from './write-batch.ts';
import { SeedBook } from '../frontier/seed-book.ts';
import { SeedLifecycle } from '../frontier/seed-lifecycle.ts';
import { RevisitBook } from '../frontier/revisit-book.ts';
import { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../frontier/crawl-job.ts';
import type { CrawlStatus, DomainInfo, FetchJob, FetchResult, RequestLogEntry } from './protocol.ts';
import type { HostFacts } from '../politeness/host-report.ts';

export { MAX_REDIRECTS } from '../frontier/admission.ts';

/**
 * The crawler primary's brain, without the processes: it owns the scheduler, every host's state and
 * robots rules and sitemap jobs (its HostBook), decides what each result means, and is the single writer of frontier,
 * hosts and pages. Which links and redirect targets are taken on is judged by admission.ts, within the
 * limits of url-traps.ts (CRAWL_LIMITS); what is taken on enters the frontier through link-intake.ts,
 * which keeps the per-host URL budget (CRAWL_MAX_URLS_PER_HOST) and the per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED). Seeds added, submitted again, due for
 * their refresh or removed are handled by seed-lifecycle.ts; a job whose seed was removed is dropped.
 * The frontier stays in SQLite: the scheduler holds a window of each host's queue (frontier-window.ts).
 * Writes are queued (write-batch.ts) and applied by `flush()` in one transaction. Time comes in as arguments.
 */
export class Coordinator {
  readonly scheduler: Scheduler<CrawlJob>;
  private readonly frontier;
  private readonly pages;
  private readonly linkTargets;
  private readonly hosts: HostBook;
  private readonly seeds = new SeedBook();
  /** Jobs handed out; `conditional`: the request carried the stored page's validators. */
  private readonly inFlight = new Map<
    number,
    { job: CrawlJob; origin: string; dispatchedAt: number; conditional: boolean }
  >();
  private readonly fetchEnds: number[] = [];
  /** Entries of fetchEnds before this index are over a minute old (see crawlStatus). */
  private fetchEndsHead = 0;
  private readonly intake: LinkIntake;
  private readonly writes: WriteBatch;
  /** How the last primary stopped (migration 0017): read and reset at start, set by the last batch of a clean stop. */
  private readonly stops;
  /** Runs SeedLifecycle.sync in one transaction (see syncSeeds). */
  private readonly syncInTransaction: (now: number, recrawl: boolean) => void;
  private readonly seedLife: SeedLifecycle;
  /** Each page's revisit interval: what a periodic refresh asks for (frontier/revisit.ts). */
  private readonly revisits: RevisitBook;
  private readonly window: FrontierWindow;
  private pagesStored = 0;
  private nextJobId = 1;

  constructor(
    db: Database,
    private readonly config: Config,
    private readonly runId: string,
  ) {
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
    this.pages = pageQueries(db, { deferSearch: true }); // full-text entries written at each batch's end (flush)
    this.linkTargets = linkTargetQueries(db);
    const seedHosts = seedHostQueries(db);
    this.intake = new LinkIntake(this.frontier, this.hosts, seedHosts, {
      maxUrlsPerHost: config.crawlMaxUrlsPerHost,
      maxHostsPerSeed: config.crawlMaxHostsPerSeed,
      seedUrl: (id) => this.seeds.get(id)?.url,
    });
    this.revisits = new RevisitBook(db, this.frontier, {
      refreshMs: config.crawlRefreshMs,
      maxMs: config.crawlRevisitMaxMs,
    });
    this.window = new FrontierWindow({
      scheduler: this.scheduler,
      isLive: (seedId) => this.seeds.get(seedId) !== undefined,
      hostSeen: (origin) => this.hosts.host(origin),
      source: { ...this.frontier, inOneRead: (read) => db.transaction(read)() },
    });
    this.seedLife = new SeedLifecycle({
      seeds: this.seeds,
      seedsDb: seedQueries(db),
      frontier: this.frontier,
      pages: this.pages,
      writes: this.writes,
      budget: this.intake.budget,
      hostBudget: this.intake.hostBudget,
      seedHosts,
      refreshMs: config.crawlRefreshMs,
      window: this.window,
      schedule: (row, now) => this.schedule(row, now),
      readSitemaps: (seed) => this.queueSitemaps(seed.origin, this.hosts.sitemapsOf(seed.origin), 0, seed.id),
      compactSearchIndexStep: searchIndexCompaction(db).compactSearchIndexStep,
      requeueDue: (seed, now) => this.revisits.refreshDue(seed.id, seed.depth, seed.url, now).rows,
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
   * The next job to hand an idle worker, or undefined if no host is due (or a host's turn just ended on
   * robots checks, or this call passed over its share of a removed seed's jobs: the next call, on a later
   * tick, goes on). Checks robots rules (a disallowed URL is skipped without touching the host's clock) and
   * robots expiry.
   */
  dispatch(now: number): FetchJob | undefined {
    this.window.resetPassedOver();
    for (;;) {
      const d = this.scheduler.next(now);
      if (!d) return undefined;
      const { job, origin } = d;
      const live = job.kind === 'robots' || this.seeds.get(job.seedId) !== undefined;
      if (job.kind === 'page') this.window.taken(origin, job, live);
      if (!live) {
        // Its seed was removed: dropped without contacting the host.
        this.scheduler.complete(origin, -Infinity);
        this.window.readyAgain(origin);
        if (job.kind === 'sitemap') this.hosts.sitemapDone(job.url);
        // A removed seed of 100,000 queued URLs is passed over a bounded part per call (WINDOW.passOverPerStep):
        // the dispatch loop comes back on its next turn, and other events (results, flushes) go between.
        if (this.window.passOverSpent) return undefined;
        continue;
      }
      if (job.kind !== 'robots') {
        const verdict = this.hosts.robotsVerdict(origin, job.url, now);
        if (verdict === 'expired') {
          this.scheduler.complete(origin, -Infinity);
          this.requeue(origin, job);
          this.hosts.needRobots(origin, 0);
          continue;
        }
        if (verdict === 'later') {
          // The host's turn ended on robots checks (see HostBook.robotsVerdict): the job waits for its next
          // turn, other hosts go first, and the primary's loop gets to other events before more dispatch.
          this.scheduler.complete(origin, now);
          this.scheduler.add(origin, job);
          return undefined;
        }
        if (verdict === 'disallowed') {
          this.scheduler.complete(origin, -Infinity);
          this.window.readyAgain(origin);
          if (job.kind === 'page')
            this.writes.push(() =>
              this.frontier.finishUrl(job.frontierId, 'skipped', 'disallowed by robots.txt', now, false),
            );
          else this.hosts.sitemapDone(job.url);
          continue;
        }
      }
      // The lease and the host's start go to disk with the next batch, not in a transaction of their own
      // (a commit per request cost 0.5 ms p99): a crash before it is covered at the next start (see start).
      // The row stays 'queued' on disk until then; the window reads a host's queue from its start only after
      // a commit (FrontierWindow.committed), when every lease queued before it is written.
      if (job.kind === 'page') {
        const id = job.frontierId;
        this.writes.pushQuiet(() => this.frontier.leaseUrl(id, this.runId, now));
      }
      this.hosts.recordStart(origin, now);
      const jobId = this.nextJobId++;
      const validators =
        job.kind === 'robots'
          ? this.hosts.robotsValidators(job)
          : job.refetch
            ? this.pages.validators(job.url)
            : undefined; // no lookup on a first crawl
      this.inFlight.set(jobId, { job, origin, dispatchedAt: now, conditional: validators !== undefined });
      const out: FetchJob = { jobId, kind: job.kind, url: job.url, origin };
      if (job.kind === 'robots') out.robotsFor = job.forOrigin; // the worker compiles the file for that origin
      if (validators) out.validators = validators; // a page or robots.txt stored before: asked for conditionally
      return out;
    }
  }

  /** A job just taken goes back to its queue unchanged (it was not handed out after all). */
  private requeue(origin: string, job: CrawlJob): void {
    if (job.kind === 'page') this.window.putBack(origin, job);
    else this.scheduler.add(origin, job, job.kind === 'robots');
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
    this.fetchEnds.push(now);
    if (job.kind === 'robots') this.queueSitemaps(job.forOrigin, this.hosts.onRobots(job, result, now, conditional), 0);
    else if (!this.seeds.get(job.seedId)) this.onOrphan(job, origin, result, now, conditional);
    else if (job.kind === 'sitemap') this.onSitemap(job, origin, result, now);
    else this.onPage(job, origin, result, now, conditional);
    this.hosts.save(origin, now);
  }

  private onPage(job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean): void {
    const outcome = pageOutcome(result, conditional);
    const until = this.noteOutcome(origin, outcome, result.status, now);
    if (outcome.kind === 'failed') {
      const attempts = job.attempts + 1;
      if (outcome.retry && attempts < BACKOFF.maxAttempts) {
        const at = Math.max(until ?? 0, now + retryDelayMs(attempts));
        this.window.retry(origin, { ...job, attempts, notBefore: at });
        this.writes.push(() => this.frontier.retryUrl(job.frontierId, attempts, at, outcome.message));
      } else {
        this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'failed', outcome.message, now));
      }
      return;
    }
    switch (outcome.kind) {
      case 'redirect':
        this.onRedirect(job, result, now);
        return;
      case 'http-error':
        this.hosts.noteHttpError(origin, job.url, outcome.status); // an error of the host's row, as on its timeline
        this.writes.push(() => {
          this.frontier.finishUrl(job.frontierId, 'done', `HTTP ${outcome.status}`, now);
          if (outcome.gone) this.pages.markPageGone(job.url, outcome.status, now);
        });
        return;
      case 'not-modified': // the stored page is still the current one: nothing to parse, store or follow
        this.hosts.noteFetched(origin);
        this.writes.push((at) => {
          this.pages.markPageCurrent(job.url, at);
          this.revisits.noteVisit(job.url, { kind: 'not-modified' }, now, this.seeds.get(job.seedId)?.url);
          this.frontier.finishUrl(job.frontierId, 'done', NOT_MODIFIED, now);
        });
        return;
      case 'not-html':
        this.hosts.noteFetched(origin);
        this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'done', outcome.why, now));
        return;
    }
    this.hosts.noteFetched(origin);
    const { page } = outcome;
    const links = admitLinks(
      page.links,
      { depth: job.depth, nofollow: page.nofollow, seed: this.seeds.get(job.seedId) },
      this.limits(),
    );
    this.noteUrgency(links.follow, origin);
    if (links.trapExample) this.hosts.noteTrap(origin, trapMessage(links.trapped, links.trapExample));
    this.pagesStored++;
    const { host } = this.hosts.host(origin);
    this.writes.push((at) => {
      const record = pageRecord({ url: job.url, origin, host, seedId: job.seedId }, result, page, at);
      this.linkTargets.gatherLinks(this.pages.upsertPage(record), page.anchors ?? []); // written at the commit's end
      this.revisits.noteVisit(
        job.url,
        { kind: 'fetched', hash: page.contentHash },
        now,
        this.seeds.get(job.seedId)?.url,
      );
      this.frontier.finishUrl(job.frontierId, 'done', isEmptyPage(page) ? EMPTY_PAGE : null, now);
      for (const url of links.follow) this.intake.enqueue(url, job.seedId, job.depth + 1, 0, now, origin);
    });
  }

  /**
   * A result whose seed was removed while it was in flight: the host learns from it as from any answer
   * (a 429 still backs it off), but nothing is stored or followed.
   */
  private onOrphan(job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean): void {
    if (job.kind === 'sitemap') this.hosts.sitemapDone(job.url);
    this.noteOutcome(origin, pageOutcome(result, conditional), result.status, now);
  }

  /**
   * What an answer tells its host, whatever was asked: a failure counts against it (error, streak, backoff
   * as the outcome says; returns the backoff's end, if any; a 503 or 429 holds the host's whole politeness
   * group), anything else clears its backoff.
   */
  private noteOutcome(origin: string, outcome: PageOutcome, status: number | null, now: number): number | undefined {
    if (outcome.kind === 'failed')
      return this.hosts.noteFailure(origin, now, { ...outcome, scope: backoffScope(status) });
    this.hosts.noteAnswered(origin);
    return undefined;
  }

  /**
   * Queues the sitemaps a host lists as jobs of its own queue (see HostBook.queueSitemaps). Their entries
   * count as links of a seed on that origin (`seedId`, else the one of greatest depth), so a seed of
   * depth 0, or a host no seed names, reads none.
   */
  private queueSitemaps(origin: string, urls: readonly string[], hops: number, seedId?: number): void {
    if (urls.length === 0) return;
    const seed = seedId !== undefined ? this.seeds.get(seedId) : this.seeds.deepestOn(origin);
    if (seed && seed.depth >= 1 && seed.origin === origin) this.hosts.queueSitemaps(origin, urls, hops, seed.id);
  }

  /**
   * A sitemap's result: a sitemap index queues the sitemaps it lists (one level deep); a urlset's pages are
   * taken on as links of its seed, one step from it. A redirect within the origin (a /sitemap.xml that moved
   * to /sitemap_index.xml) is followed as a sitemap job of its own, up to MAX_REDIRECTS. Statuses mean for
   * the host what they mean for a page (a 429 backs it off); a sitemap that failed is not retried.
   */
  private onSitemap(job: CrawlJob, origin: string, result: FetchResult, now: number): void {
    this.hosts.sitemapDone(job.url);
    const outcome = pageOutcome(result, false);
    this.noteOutcome(origin, outcome, result.status, now);
    if (outcome.kind === 'failed') return;
    if (outcome.kind === 'redirect' && result.location !== null && job.redirects < MAX_REDIRECTS) {
      this.hosts.queueSitemaps(origin, [result.location], job.hops, job.seedId, job.redirects + 1);
    }
    const entries = result.sitemap;
    if (!entries) return; // a redirect, 4xx or empty body: the host's timeline shows the request and its status
    if (entries.index) {
      if (job.hops < 1) this.queueSitemaps(origin, entries.urls, job.hops + 1, job.seedId);
      return;
    }
    const links = admitLinks(
      entries.urls,
      { depth: 0, nofollow: false, seed: this.seeds.get(job.seedId) },
      this.limits(),
    );
    // Pages whose <lastmod> is newer than their last request changed: asked for again now (revisit.ts).
    if (entries.lastmod)
      for (const row of this.revisits.noteSitemap(entries.lastmod, links.follow)) this.schedule(row, now);
    if (links.follow.length === 0) return;
    this.noteUrgency(links.follow, origin);
    this.writes.push(() => {
      for (const url of links.follow) this.intake.enqueue(url, job.seedId, 1, 0, now, origin);
    });
  }

  /** Marks the queued writes urgent (see takeUrgent) if `urls`, found on `origin`, lead to a host with nothing queued. */
  private noteUrgency(urls: readonly string[], origin: string): void {
    const idle = (host: string) => !this.scheduler.hasQueued(host) && this.window.waiting(host) === 0;
    if (urls.some((url) => idle(url.startsWith(`${origin}/`) ? origin : new URL(url).origin))) this.writes.markUrgent();
  }

  /** The limits of admission: CRAWL_LIMITS with the configured per-host URL budget. */
  private limits() {
    return { ...CRAWL_LIMITS, maxUrlsPerHost: this.intake.budget.limit };
  }

  private onRedirect(job: CrawlJob, result: FetchResult, now: number): void {
    const decision = judgeRedirect({
      location: result.location,
      refusal: result.locationRefusal,
      redirects: job.redirects,
      depth: job.depth,
      seed: this.seeds.get(job.seedId),
      policy: { allowPrivate: this.config.allowPrivate },
      limits: this.limits(),
    });
    if (!decision.ok) {
      this.hosts.noteError(job.forOrigin, `${job.url}: ${decision.error}`);
      this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'failed', decision.error, now));
      return;
    }
    this.writes.push(() => this.intake.followRedirect(job, decision.url, now));
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
    return this.hosts.requests(origin);
  }

  /**
   * Crawl-wide figures and the facts of each host whose report changed since the last call (of every host
   * when `full`), for the server's /api/status and /api/domains (protocol.ts CrawlSnapshot).
   */
  snapshotChanges(now: number, workers: number, full = false): { status: CrawlStatus; hosts: HostFacts[] } {
    // "Queued" means the same in the header as in the rows (waiting or being fetched), so they add up.
    const { hosts, queued } = this.hosts.changedFacts(now, full, (origin) => this.window.beyond(origin));
    return { status: this.crawlStatus(now, workers, queued), hosts };
  }

  /**
   * Crawl-wide figures and every host's row at `now`: what /api/domains shows once the server has applied
   * the snapshots (tests read it here). Changes nothing the snapshots send.
   */
  snapshot(now: number, workers: number): { status: CrawlStatus; domains: DomainInfo[] } {
    const domains = this.hosts.describeAll(now, (origin) => this.window.beyond(origin));
    const queued = domains.reduce((sum, d) => sum + d.queued, 0);
    return { status: this.crawlStatus(now, workers, queued), domains };
  }

  /**
   * The crawl-wide figures; fetches that ended over a minute ago leave the rate's window. They are counted
   * past (fetchEndsHead) and cut off in one splice once they are half the array: shifting them one by one
   * cost O(n) each, 13 ms a snapshot at 2,400 fetches a second.
   */
  private crawlStatus(now: number, workers: number, queued: number): CrawlStatus {
    const ends = this.fetchEnds;
    while (this.fetchEndsHead < ends.length && ends[this.fetchEndsHead] < now - 60_000) this.fetchEndsHead++;
    if (this.fetchEndsHead * 2 > ends.length) {
      ends.splice(0, this.fetchEndsHead);
      this.fetchEndsHead = 0;
    }
    return { queued, inFlight: this.inFlight.size, workers, fetchRatePerMin: ends.length - this.fetchEndsHead };
  }
}
