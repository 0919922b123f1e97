import { type hostQueries, newHostRow, type HostRow } from '../../db/hosts.ts';
import type { sitemapJobQueries, SitemapJobRow } from '../../db/sitemap-jobs.ts';
import type { Scheduler } from './scheduler.ts';
import { HostBackoff, type HostFailure } from './host-backoff.ts';
import {
  allowAllRules,
  compileRobots,
  disallowAllRules,
  isCompiledFor,
  robotsCostMessage,
  robotsOutcomeForStatus,
  robotsRules,
  rulesLater,
  ROBOTS_CACHE_MS,
  ROBOTS_COST,
  ROBOTS_MAX_REDIRECTS,
  type CompiledRobots,
  type RobotsRules,
} from './robots.ts';
import { describeHosts, RequestRing, type HostFacts } from './host-report.ts';
import { HostSnapshots } from './host-snapshot.ts';
import { SitemapBook } from './sitemap-book.ts';
import type { CrawlJob } from '../frontier/crawl-job.ts';
import type { DomainInfo, FetchResult, RequestLogEntry } from '../coordination/protocol.ts';

type HostQueries = ReturnType<typeof hostQueries>;
type SitemapJobQueries = ReturnType<typeof sitemapJobQueries>;

/** Whether a robots job fetches the robots.txt of the host it asks for (not a hop of a redirect to another file). */
const isOwnRobotsFile = (job: CrawlJob): boolean => job.url === `${job.forOrigin}/robots.txt`;

/**
 * What the robots.txt rules say about a page job at dispatch time; `later`: the host's turn is over before
 * its rules could say (see robotsVerdict), and the job waits for the next one.
 */
export type RobotsVerdict = 'allowed' | 'disallowed' | 'expired' | 'later';

/**
 * The crawler primary's book of hosts, a part of the Coordinator: each host's stored row (robots status,
 * backoff, counts, last error), the robots.txt rules in force, and its last requests. It turns robots.txt
 * fetches into rules with RFC 9309's status rules (redirects followed as jobs of the target host, so its
 * clock spaces each hop; the rules found apply to the host that asked), and it sets and clears backoff
 * (host-backoff.ts).
 * It owns the sitemap jobs (sitemap-book.ts), queued again at start from those stored.
 * Writes go into the coordinator's queue (`write`), applied in its next transaction. Time comes in.
 * It alone changes a host's row: others say what happened (noteFetched, noteFailure, noteTrap, ...) and
 * read the row as `Readonly` (see `host`).
 */
export class HostBook {
  private readonly rows = new Map<string, HostRow>();
  private readonly rules = new Map<string, RobotsRules>();
  private readonly robotsSkipped = new Map<string, number>();
  /** Steps the robots checks of each host took in its current turn (see robotsVerdict). */
  private readonly checkSteps = new Map<string, number>();
  private readonly rings = new Map<string, RequestRing>();
  /** The sitemap jobs queued, in flight, or stored for the next start. */
  private readonly sitemaps: SitemapBook;
  /** The hosts' error streaks and backoff, in their rows and the scheduler. */
  private readonly backoff: HostBackoff;
  /** What the server was sent of each host (changedFacts sends only what changed). */
  private readonly snapshots: HostSnapshots;

  constructor(
    private readonly scheduler: Scheduler<CrawlJob>,
    private readonly hostsDb: HostQueries,
    private readonly sitemapJobs: SitemapJobQueries,
    private readonly userAgent: string,
    /** Queues a write for the coordinator's next batch; `quiet`: one that does not call for a batch of its own. */
    private readonly write: (w: (now: number) => void, quiet?: boolean) => void,
  ) {
    this.snapshots = new HostSnapshots(scheduler);
    this.sitemaps = new SitemapBook(scheduler, sitemapJobs, write);
    this.backoff = new HostBackoff(scheduler);
  }

  /**
   * Loads the stored hosts at start: clocks, backoff, and robots rules still fresh (adopted when first used, else a robots.txt job);
   * then the sitemap jobs that were not over, queued again behind their host's robots.txt if it is due.
   */
  restore(now: number, contactedBy = -Infinity): void {
    this.contactedBy = contactedBy;
    for (const row of this.hostsDb.allHosts()) {
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
    for (const job of this.sitemapJobs.pendingSitemapJobs()) this.addSitemapJob(job);
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
      const row = h;
      this.write((at) => this.hostsDb.saveHost(row, at));
    }
    return h;
  }

  /** The host's row, to read; a host never seen before is created as by a first link to it (see `get`). */
  host(origin: string): Readonly<HostRow> {
    return this.get(origin);
  }

  /** Queues the host's robots.txt fetch (in the priority lane) and holds its pages until it is known. */
  needRobots(origin: string, notBefore: number): void {
    this.rules.set(origin, disallowAllRules());
    this.scheduler.setPaused(origin, true);
    this.scheduler.add(
      origin,
      {
        notBefore,
        kind: 'robots',
        url: `${origin}/robots.txt`,
        frontierId: 0,
        seedId: 0,
        depth: 0,
        attempts: 0,
        redirects: 0,
        forOrigin: origin,
        hops: 0,
      },
      true,
    );
  }

  /**
   * The ETag / Last-Modified of a host's stored robots.txt, for the robots job that refreshes it to be
   * conditional; undefined when there is no stored file to fall back on (a 304 then would have nothing to
   * keep), or for a redirect hop to another file.
   */
  robotsValidators(job: CrawlJob): { etag: string | null; lastModified: string | null } | undefined {
    const h = this.rows.get(job.forOrigin);
    if (
      !isOwnRobotsFile(job) ||
      !h ||
      h.robotsStatus !== 'ok' ||
      h.robotsRules === null ||
      (h.robotsEtag === null && h.robotsLastModified === null)
    )
      return undefined;
    return { etag: h.robotsEtag, lastModified: h.robotsLastModified };
  }

  /**
   * Whether a page of the host may be fetched now, or its robots.txt has expired and must be fetched again
   * first. The checks of one host share its turn: once those since its last request took
   * ROBOTS_COST.turnSteps, the answer is `later` (its turn ends, other hosts go first). A check past
   * ROBOTS_COST.checkSteps makes the rules unusable: the host is backed off, says why, and fetches nothing
   * but robots.txt (after the backoff) until a later file gives usable rules; the answer is `later` too.
   */
  robotsVerdict(origin: string, url: string, now: number): RobotsVerdict {
    const h = this.get(origin);
    if ((h.robotsExpiresAt ?? 0) <= now) return 'expired';
    const spent = this.checkSteps.get(origin) ?? 0;
    if (spent >= ROBOTS_COST.turnSteps) {
      this.checkSteps.delete(origin);
      return 'later';
    }
    const rules = this.rules.get(origin)!;
    const check = rules.check(url);
    if (check.kind === 'over-budget') {
      this.checkSteps.delete(origin);
      h.robotsStatus = 'unusable';
      h.lastError = robotsCostMessage(url, rules.ruleCount);
      h.errorCount++;
      this.needRobots(origin, this.backoff.backOff(h, now, 'robots.txt rules too costly to check', null));
      this.save(origin, now);
      return 'later';
    }
    if (check.kind === 'allowed') {
      this.checkSteps.delete(origin); // its request is the rest of its turn
      return 'allowed';
    }
    this.checkSteps.set(origin, spent + check.steps);
    this.robotsSkipped.set(origin, (this.robotsSkipped.get(origin) ?? 0) + 1);
    return 'disallowed';
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
    const ring = this.rings.get(origin) ?? new RequestRing();
    this.rings.set(origin, ring);
    ring.push({
      url,
      status: result.status,
      startedAt: result.startedAt,
      durationMs: Math.round(result.endedAt - result.startedAt),
      error: result.error?.message ?? null,
    });
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
        this.write(() => undefined); // the row's write is queued already, quietly: this asks for the commit
      }
      return;
    }
    this.unsaved.set(origin, quiet ? 'quiet' : 'wanted');
    const row = this.get(origin);
    this.write(() => {
      this.unsaved.delete(origin);
      this.hostsDb.saveHost(row, now);
    }, quiet);
  }

  /** Hosts with a row write queued and not yet run; `quiet`: queued by recordStart only (see WriteBatch.pushQuiet). */
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
   * Applies a robots.txt fetch made for `job.forOrigin`: a redirect becomes a job of the target's host
   * (up to ROBOTS_MAX_REDIRECTS hops, then allow all); 2xx gives rules; 4xx allows all; 5xx, 429 and
   * network failures disallow all and back the host off until robots.txt is asked again. A 304 to a
   * conditional refresh (`conditional`, see robotsValidators) keeps the stored file's rules for another
   * ROBOTS_CACHE_MS. Returns the `Sitemap:` URLs of rules just loaded for `job.forOrigin` (none otherwise).
   */
  onRobots(job: CrawlJob, result: FetchResult, now: number, conditional = false): string[] {
    const target = this.get(job.forOrigin);
    const wasUnusable = target.robotsStatus === 'unusable';
    const notModified = conditional && result.status === 304 && !result.error && target.robotsRules !== null;
    const hop = result.status !== null && result.status >= 300 && result.status < 400 && result.location;
    if (hop && job.hops < ROBOTS_MAX_REDIRECTS) {
      const next = new URL(result.location!).origin;
      this.get(next);
      this.scheduler.add(next, { ...job, url: result.location!, hops: job.hops + 1, notBefore: 0 }, true);
      return [];
    }
    const outcome = notModified
      ? 'rules'
      : result.error || result.status === null
        ? 'disallow-all'
        : hop
          ? 'allow-all'
          : robotsOutcomeForStatus(result.status);
    target.robotsHttpStatus = result.status;
    target.robotsFetchedAt = now;
    if (outcome === 'disallow-all') {
      target.robotsStatus = 'unreachable';
      target.lastError = result.error?.message ?? `robots.txt answered HTTP ${result.status}`;
      target.errorCount++;
      const retryAt = this.backoff.backOff(
        target,
        now,
        `robots.txt ${result.error ? result.error.code : `HTTP ${result.status}`}`,
        result.retryAfterMs,
      );
      this.rules.set(job.forOrigin, disallowAllRules());
      this.scheduler.add(
        job.forOrigin,
        { ...job, url: `${job.forOrigin}/robots.txt`, hops: 0, notBefore: retryAt },
        true,
      );
      if (job.forOrigin !== new URL(job.url).origin) this.save(job.forOrigin, now);
      return [];
    }
    const rules =
      outcome === 'rules' ? this.rulesOf(target, notModified ? null : result) : this.rulesOf(target, undefined);
    target.robotsStatus = outcome === 'rules' ? 'ok' : 'allow-all';
    // Validators of the file the rules come from (a 304 may send fresh ones; a redirected file's are not kept).
    const sameFile = outcome === 'rules' && isOwnRobotsFile(job);
    target.robotsEtag = sameFile ? (result.etag ?? (notModified ? target.robotsEtag : null)) : null;
    target.robotsLastModified = sameFile
      ? (result.lastModified ?? (notModified ? target.robotsLastModified : null))
      : null;
    target.robotsExpiresAt = now + ROBOTS_CACHE_MS;
    target.crawlDelayMs = rules.crawlDelayMs ?? null;
    // After unusable rules the backoff streak stays (a page fetched ends it): if these rules prove unusable
    // too, the host waits longer before robots.txt is asked again.
    if (!wasUnusable) this.backoff.clearBackoff(target);
    this.rules.set(job.forOrigin, rules);
    this.scheduler.setCrawlDelay(job.forOrigin, rules.crawlDelayMs);
    this.scheduler.setPaused(job.forOrigin, false);
    // The result's own host (where a redirected robots.txt ended) is saved by the caller; this one may differ.
    if (job.forOrigin !== new URL(job.url).origin) this.save(job.forOrigin, now);
    return rules.sitemaps;
  }

  /**
   * The rules of a robots.txt fetched for host `h`: adopted from the form the worker compiled (the primary
   * does not read the file; a result with only a body, as tests send, is read here), and kept with the
   * host's row instead of the file. `result` null: a 304, whose rules are those kept; undefined: no file
   * (allow all), none kept.
   */
  private rulesOf(h: HostRow, result: FetchResult | null | undefined): RobotsRules {
    const url = `${h.origin}/robots.txt`;
    if (result === null) return robotsRules(url, JSON.parse(h.robotsRules!) as CompiledRobots);
    const compiled = result
      ? (result.robotsRules ?? compileRobots(url, result.robotsBody ?? '', this.userAgent))
      : null;
    h.robotsRules = compiled && JSON.stringify(compiled);
    h.robotsBody = null; // kept compiled instead (robots_body holds files stored by earlier versions)
    this.write(() => this.hostsDb.saveRobotsFile(h.origin, h.robotsBody, h.robotsRules));
    return compiled ? robotsRules(url, compiled) : allowAllRules();
  }

  /** Queues sitemaps a host lists as jobs of its own queue, each once until it is done (see SitemapBook.queueSitemaps). */
  queueSitemaps(origin: string, urls: readonly string[], hops: number, seedId: number, redirects = 0): void {
    this.sitemaps.queueSitemaps(origin, urls, hops, seedId, redirects);
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
    return this.rules.get(origin)?.sitemaps ?? [];
  }

  /** The last requests to a host, oldest first. */
  requests(origin: string): RequestLogEntry[] {
    return this.rings.get(origin)?.list() ?? [];
  }

  /** A host's facts as its report reads them at `now` (see changedFacts for `beyond`); `row` is the live row. */
  private factsOf(origin: string, row: HostRow, now: number, beyond: (origin: string) => number): HostFacts {
    const clock = this.scheduler.host(origin);
    return {
      row,
      queued: clock.queue.length + beyond(origin) + clock.priority.length + clock.inFlight,
      inFlight: clock.inFlight,
      dueAt: this.scheduler.dueAt(origin),
      delay: this.scheduler.delayReason(origin, now),
      robotsSkipped: this.robotsSkipped.get(origin) ?? 0,
      group: clock.group,
    };
  }

  /**
   * The facts of each host whose report changed since the last call (`full`: of every host), for the
   * server's /api/domains (it keeps the others: server/domain-book.ts), and the URLs queued over all
   * hosts (host-snapshot.ts). `beyond(origin)`: the host's queued URLs that are not in the scheduler (the
   * frontier's window holds only the next few; the rest wait in the database).
   */
  changedFacts(
    now: number,
    full: boolean,
    beyond: (origin: string) => number = () => 0,
  ): { hosts: HostFacts[]; queued: number } {
    return this.snapshots.changed(this.rows, now, full, (origin) => this.robotsSkipped.get(origin) ?? 0, beyond);
  }

  /** Every host's /api/domains row at `now`, sorted by host (see changedFacts for `beyond`); changes nothing. */
  describeAll(now: number, beyond: (origin: string) => number = () => 0): DomainInfo[] {
    const facts: HostFacts[] = [];
    for (const [origin, row] of this.rows) facts.push(this.factsOf(origin, row, now, beyond));
    return describeHosts(facts, now);
  }
}
