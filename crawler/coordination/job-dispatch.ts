/**
 * Which job the crawler primary hands out next, a part of the Coordinator: the scheduler's next due job,
 * checked against its seed (a removed seed's jobs are dropped without contacting the host) and its host's
 * robots rules (disallowed: skipped; expired: robots.txt asked for again first). A job handed out gets its
 * id, its lease and its host's start queued for the next batch, and the stored validators that make the
 * request conditional; it is in flight until its result or its worker's death comes back to the Coordinator.
 * Time comes in as arguments.
 */
import type { frontierQueries } from '../../db/frontier.ts';
import type { PageQueries } from '../../db/pages.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { SeedBook } from '../frontier/seed-book.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { WriteBatch } from './write-batch.ts';
import type { FetchJob } from '../common/protocol.ts';

/** A job handed out; `conditional`: the request carried the stored page's validators. */
export interface InFlightJob {
  job: CrawlJob;
  origin: string;
  dispatchedAt: number;
  conditional: boolean;
}

/** The Coordinator's parts a JobDispatch reads and writes through (the same objects, shared). */
export interface DispatchParts {
  scheduler: Scheduler<CrawlJob>;
  frontier: ReturnType<typeof frontierQueries>;
  pages: PageQueries;
  hosts: HostBook;
  seeds: SeedBook;
  writes: WriteBatch;
  window: FrontierWindow;
  /** The Coordinator's jobs in flight, by job id: each job handed out is added here. */
  inFlight: Map<number, InFlightJob>;
  /** This primary's run: the owner of the leases it takes. */
  runId: string;
}

/** Picks the next job for an idle worker and records it as in flight (see next). */
export class JobDispatch {
  private readonly scheduler: Scheduler<CrawlJob>;
  private readonly frontier: DispatchParts['frontier'];
  private readonly pages: PageQueries;
  private readonly hosts: HostBook;
  private readonly seeds: SeedBook;
  private readonly writes: WriteBatch;
  private readonly window: FrontierWindow;
  private readonly inFlight: Map<number, InFlightJob>;
  private readonly runId: string;
  private nextJobId = 1;

  constructor(p: DispatchParts) {
    this.scheduler = p.scheduler;
    this.frontier = p.frontier;
    this.pages = p.pages;
    this.hosts = p.hosts;
    this.seeds = p.seeds;
    this.writes = p.writes;
    this.window = p.window;
    this.inFlight = p.inFlight;
    this.runId = p.runId;
  }

  /**
   * The next job to hand an idle worker, or undefined if no host is due (or a host's turn just ended on
   * robots checks, or this call passed over its share of a removed seed's jobs: the next call, on a later
   * tick, goes on). Checks robots rules (a disallowed URL is skipped without touching the host's clock) and
   * robots expiry.
   */
  next(now: number): FetchJob | undefined {
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
      // (a commit per request cost 0.5 ms p99): a crash before it is covered at the next start (Coordinator.start).
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
          : job.kind === 'sitemap'
            ? this.hosts.sitemapValidators(job.url)
            : job.refetch
              ? this.pages.validators(job.url)
              : undefined; // no lookup on a first crawl
      this.inFlight.set(jobId, { job, origin, dispatchedAt: now, conditional: validators !== undefined });
      const out: FetchJob = { jobId, kind: job.kind, url: job.url, origin };
      if (job.kind === 'robots') out.robotsFor = job.forOrigin; // the worker compiles the file for that origin
      if (validators) out.validators = { etag: validators.etag, lastModified: validators.lastModified }; // read before: asked for conditionally
      return out;
    }
  }

  /** A job just taken goes back to its queue unchanged (it was not handed out after all). */
  private requeue(origin: string, job: CrawlJob): void {
    if (job.kind === 'page') this.window.putBack(origin, job);
    else this.scheduler.add(origin, job, job.kind === 'robots');
  }
}
