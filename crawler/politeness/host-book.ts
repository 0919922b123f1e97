import { newHostRow, type HostRow } from '../../db/hosts.ts';
import type { SitemapJobRow, SitemapValidators } from '../../db/sitemap-jobs.ts';
import type { CrawlQueries } from '../../db/crawl-store.ts';
import type { Scheduler } from './scheduler.ts';
import { HostBackoff, type HostFailure } from './host-backoff.ts';
import { allowAllRules, isCompiledFor, robotsRules, rulesLater, type RobotsRules } from './robots.ts';
import { RobotsBook, type RobotsVerdict } from './robots-book.ts';
import type { HostFacts } from './host-report.ts';
import { HostReporter } from './host-reporter.ts';
import { SitemapBook } from './sitemap-book.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { DomainInfo, FetchResult, RequestLogEntry } from '../common/protocol.ts';
import type { QueueHostWrite } from './host-writes.ts';

/** What the book reads at start (the store, outside any transaction; db/crawl-store.ts). */
export interface HostBookReads {
  hosts: Pick<CrawlQueries['hosts'], 'allHosts'>;
  sitemapJobs: Pick<CrawlQueries['sitemapJobs'], 'pendingSitemapJobs' | 'allSitemapValidators'>;
}

/**
 * The crawler primary's book of hosts, a part of the Coordinator: each host's stored row (robots status,
 * backoff, counts, last error), the robots.txt rules in force, and its last requests. Its parts: the
 * robots.txt side (robots-book.ts: fetches turned into rules, pages checked against them), backoff
 * (host-backoff.ts), the sitemap jobs (sitemap-book.ts), queued again at start from those stored, and
 * the hosts' timelines and reports (host-reporter.ts).
 * Writes are queued as data (host-writes.ts, `write`), written with the primary's next batch. Time comes in.
 * It alone changes a host's row (its parts through the row it lends them): others say what happened
 * (noteFetched, noteFailure, noteTrap, ...) and read the row as `Readonly` (see `known`); a host is
 * created only when it is seen (`see`), never by a read.
 */
export class HostBook {
  private readonly rows = new Map<string, HostRow>();
  /** The robots.txt rules in force for each host, changed by the RobotsBook; restore adopts stored ones still fresh. */
  private readonly rules = new Map<string, RobotsRules>();
  /** The sitemap jobs queued, in flight, or stored for the next start. */
  private readonly sitemaps: SitemapBook;
  /** The hosts' error streaks and backoff, in their rows and the scheduler. */
  private readonly backoff: HostBackoff;
  /** The robots.txt side: the rules' fetches and checks, and what they disallowed. */
  private readonly robots: RobotsBook;
  /** The hosts' last requests and their reports' facts. */
  private readonly reporter: HostReporter;

  constructor(
    private readonly scheduler: Scheduler<CrawlJob>,
    private readonly userAgent: string,
    /** Queues a write intent for the primary's next batch; `quiet`: one that does not call for a batch of its own. */
    private readonly write: QueueHostWrite,
  ) {
    this.sitemaps = new SitemapBook(scheduler, write);
    this.backoff = new HostBackoff(scheduler);
    const lent = {
      row: (origin: string) => this.get(origin),
      known: (origin: string) => this.rows.get(origin),
      save: (origin: string, now: number) => this.save(origin, now),
    };
    this.robots = new RobotsBook(lent, this.rules, this.backoff, scheduler, userAgent, write);
    this.reporter = new HostReporter(scheduler, this.rows, (origin) => this.robots.skipped(origin));
  }

  /**
   * Loads the stored hosts at start: clocks, backoff, and robots rules still fresh (adopted when first used, else a robots.txt job);
   * then the sitemap jobs that were not over, queued again behind their host's robots.txt if it is due,
   * and what each sitemap last answered (kept in memory: dispatch reads it, storage is not read then).
   */
  async restore(store: HostBookReads, now: number, contactedBy = -Infinity): Promise<void> {
    const [hosts, pending, validators] = [
      await store.hosts.allHosts(),
      await store.sitemapJobs.pendingSitemapJobs(),
      await store.sitemapJobs.allSitemapValidators(),
    ];
    this.contactedBy = contactedBy;
    for (const row of hosts) {
      // A request that started but whose end was never recorded ended at the latest now.
      if ((row.lastRequestStart ?? 0) > (row.lastRequestEnd ?? 0)) row.lastRequestEnd = now;
      this.rows.set(row.origin, row);
      this.scheduler.restoreClock(row.origin, row.lastRequestEnd ?? -Infinity);
      this.scheduler.setBackoffUntil(row.origin, row.backoffUntil);
      // Rules kept compiled for another product token (or from before they were kept compiled) are asked again.
      const usable =
        row.robotsStatus === 'allow-all' ||
        (row.robotsStatus === 'ok' && isCompiledFor(row.robotsRules, this.userAgent));
      if (usable && (row.robotsExpiresAt ?? 0) > now) {
        const compiled = row.robotsRules!;
        this.rules.set(
          row.origin,
          row.robotsStatus === 'ok'
            ? rulesLater(() => robotsRules(`${row.origin}/robots.txt`, JSON.parse(compiled)))
            : allowAllRules(),
        );
        this.scheduler.setCrawlDelay(row.origin, row.crawlDelayMs ?? undefined);
      } else {
        this.needRobots(
          row.origin,
          row.robotsStatus === 'unreachable' || row.robotsStatus === 'unusable' ? row.backoffUntil : 0,
        );
      }
    }
    this.sitemaps.load(validators);
    for (const job of pending) this.addSitemapJob(job);
    for (const origin of this.rows.keys()) this.assumeContacted(origin);
  }

  /**
   * After an unclean stop (crawler-stop.ts), requests sent after the last stored batch left no start on
   * disk. A host whose stored clock already made it due at `contactedBy` (the restart, so no earlier than
   * the crash) may have been sent such a request: it counts as contacted then, and waits its delay from the
   * restart. A host not due by then could not have been contacted since that batch (only a request makes a
   * host due sooner), so its stored clock is exact and kept. A host first seen now (its row was in the lost
   * batch too) counts as contacted then as well: see `get`.
   */
  private assumeContacted(origin: string): void {
    if (this.contactedBy > -Infinity && this.scheduler.dueAt(origin) <= this.contactedBy)
      this.scheduler.restoreClock(origin, this.contactedBy);
  }

  /** The restart after the last unclean stop (see assumeContacted); -Infinity if there was none. */
  private contactedBy = -Infinity;

  /** The host's row; a host never seen before is created, paused, with its robots.txt job queued first. */
  private get(origin: string): HostRow {
    let h = this.rows.get(origin);
    if (!h) {
      h = newHostRow(origin, new URL(origin).host);
      this.rows.set(origin, h);
      this.assumeContacted(origin);
      this.needRobots(origin, 0);
      this.write({ kind: 'save-host', row: h });
    }
    return h;
  }

  /** The host's row, to read, if the host was seen; changes nothing. */
  known(origin: string): Readonly<HostRow> | undefined {
    return this.rows.get(origin);
  }

  /**
   * A host is seen (a URL of it committed as queued, or queued at start): one never seen before gets its
   * row (stored with the next batch) and its robots.txt job, first in its queue (see `get`).
   */
  see(origin: string): Readonly<HostRow> {
    return this.get(origin);
  }

  /** Queues the host's robots.txt fetch (in the priority lane) and holds its pages until it is known. */
  needRobots(origin: string, notBefore: number): void {
    this.robots.needRobots(origin, notBefore);
  }

  /** The validators of a host's stored robots.txt, for a conditional refresh (see RobotsBook.robotsValidators). */
  robotsValidators(job: CrawlJob): { etag: string | null; lastModified: string | null } | undefined {
    return this.robots.robotsValidators(job);
  }

  /** Whether a page of the host may be fetched now, by its robots.txt rules (see RobotsBook.robotsVerdict). */
  robotsVerdict(origin: string, url: string, now: number): RobotsVerdict {
    return this.robots.robotsVerdict(origin, url, now);
  }

  /**
   * Records that a request to the host starts: in memory at once, on disk with the next batch (the row's
   * write, shared with its end's when both fall in one batch). A crash before that batch loses it; the
   * next start then counts the host as contacted at the restart (see restore).
   */
  recordStart(origin: string, now: number): void {
    this.get(origin).lastRequestStart = now;
    this.save(origin, now, true);
  }

  /** Records the end of a request: the host's clock, and the request in its timeline. */
  recordEnd(
    origin: string,
    url: string,
    result: Pick<FetchResult, 'status' | 'startedAt' | 'endedAt' | 'error'>,
    now: number,
  ): void {
    const h = this.get(origin);
    h.lastRequestEnd = now;
    this.reporter.logRequest(origin, url, result);
  }

  /**
   * Queues a write of the host's whole row, once per flush however many results the host had: the
   * write stores the row as it is when the flush runs.
   */
  save(origin: string, now: number, quiet = false): void {
    const queued = this.unsaved.get(origin);
    if (queued !== undefined) {
      if (queued === 'quiet' && !quiet) {
        this.unsaved.set(origin, 'wanted');
        this.write({ kind: 'commit-wanted' }); // the row's write is queued already, quietly: this asks for the commit
      }
      return;
    }
    this.unsaved.set(origin, quiet ? 'quiet' : 'wanted');
    this.write({ kind: 'save-host', row: this.get(origin), at: now }, quiet);
  }

  /**
   * A batch took the host's queued row write: a change from now on queues a write of its own, for the next batch.
   * The batch may write the row before that change (on PostgreSQL a batch spans round trips, and results arrive
   * meanwhile), so waiting for its commit to queue again would lose the change (see `save`).
   */
  taken(origin: string): void {
    this.unsaved.delete(origin);
  }

  /** Hosts with a row write queued and not yet taken by a batch; `quiet`: queued by recordStart only (see WriteBatch.pushQuiet). */
  private readonly unsaved = new Map<string, 'quiet' | 'wanted'>();

  /** A request whose worker died: the host's clock counts it as ended at `now` (what the site answered is unknown). */
  noteAbandoned(origin: string, now: number): void {
    this.get(origin).lastRequestEnd = now;
  }

  /** A page of the host was fetched (stored, unchanged since the last fetch, or not HTML): it counts as fetched. */
  noteFetched(origin: string): void {
    this.get(origin).fetchedCount++;
  }

  /** An error that says nothing about the host's health (a bad redirect, a redirect loop): counted, and its last error. */
  noteError(origin: string, message: string): void {
    const h = this.get(origin);
    h.errorCount++;
    h.lastError = message;
  }

  /**
   * A request to the host failed: counted, its last error, its error streak if the failure counts toward
   * it, and a backoff as the failure's rule says (at once, or once the streak reaches
   * BACKOFF.errorsBeforeBackoff). Returns when the backoff ends, if the host was backed off.
   */
  noteFailure(origin: string, now: number, failure: HostFailure): number | undefined {
    this.noteError(origin, failure.message);
    return this.backoff.noteFailure(this.get(origin), now, failure);
  }

  /** Links of the host's pages fell into a URL trap (see url-traps.ts): its row says so. */
  noteTrap(origin: string, message: string): void {
    this.get(origin).lastError = message;
  }

  /** A link to the host was dropped because its URL budget is spent: its row says why (an unknown host is not created). */
  noteBudgetSpent(origin: string, message: string): void {
    const h = this.rows.get(origin);
    if (h) h.lastError = message;
  }

  /** The host answered (whatever the status, it was not a failure): its error streak and backoff end. */
  noteAnswered(origin: string): void {
    this.backoff.clearBackoff(this.get(origin));
  }

  /**
   * A page answered with an HTTP error (4xx other than 429): an error of the host, counted and said in its
   * row as its timeline shows it, though the host itself is fine (no streak, no backoff).
   */
  noteHttpError(origin: string, url: string, status: number): void {
    this.noteError(origin, `${url} answered HTTP ${status}`);
  }

  /**
   * Applies a robots.txt fetch made for `job.forOrigin` (see RobotsBook.onRobots); returns the `Sitemap:`
   * URLs of rules just loaded for it.
   */
  onRobots(job: CrawlJob, result: FetchResult, now: number, conditional = false): string[] {
    return this.robots.onRobots(job, result, now, conditional);
  }

  /** Queues sitemaps a host lists as jobs of its own queue, each once until it is done (see SitemapBook.queueSitemaps). */
  queueSitemaps(origin: string, urls: readonly string[], hops: number, seedId: number, redirects = 0): void {
    this.sitemaps.queueSitemaps(origin, urls, hops, seedId, redirects);
  }

  /** What a sitemap last answered, for a conditional read (see SitemapBook.validators). */
  sitemapValidators(url: string): SitemapValidators | undefined {
    return this.sitemaps.validators(url);
  }

  /** A sitemap was read in full: what it answered is kept for its next read (see SitemapBook.noteRead). */
  sitemapRead(url: string, read: SitemapValidators): void {
    this.sitemaps.noteRead(url, read);
  }

  /** Queues a stored sitemap job again at start (see restore). */
  private addSitemapJob(job: SitemapJobRow): void {
    this.sitemaps.addSitemapJob(job);
  }

  /** A sitemap job is over (read, failed, skipped or dropped): it may be queued again, and a restart forgets it. */
  sitemapDone(url: string): void {
    this.sitemaps.sitemapDone(url);
  }

  /** A sitemap job in flight when the crawl stops: its stored row stays, so the next start reads it. */
  sitemapReturned(url: string): void {
    this.sitemaps.sitemapReturned(url);
  }

  /** The `Sitemap:` URLs of the robots.txt rules in force for a host (none while they are unknown). */
  sitemapsOf(origin: string): string[] {
    return this.robots.sitemapsOf(origin);
  }

  /** The last requests to a host, oldest first. */
  requests(origin: string): RequestLogEntry[] {
    return this.reporter.requests(origin);
  }

  /** The facts of each host whose report changed since the last call (see HostReporter.changedFacts). */
  changedFacts(
    now: number,
    full: boolean,
    beyond: (origin: string) => number = () => 0,
  ): { hosts: HostFacts[]; queued: number } {
    return this.reporter.changedFacts(now, full, beyond);
  }

  /** Every host's /api/domains row at `now`, sorted by host (see HostReporter.describeAll); changes nothing. */
  describeAll(now: number, beyond: (origin: string) => number = () => 0): DomainInfo[] {
    return this.reporter.describeAll(now, beyond);
  }
}
