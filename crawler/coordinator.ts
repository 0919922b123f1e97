import type { Database } from 'better-sqlite3';
import type { Config } from '../server/config.ts';
import { frontierQueries, type FrontierRow } from '../db/frontier.ts';
import { hostQueries, newHostRow, type HostRow } from '../db/hosts.ts';
import { pageQueries } from '../db/pages.ts';
import { seedQueries, type Scope } from '../db/seeds.ts';
import { Scheduler } from './scheduler.ts';
import { BACKOFF, nextBackoffMs, retryDelayMs } from './backoff.ts';
import {
  allowAllRules, disallowAllRules, parseRobots, robotsOutcomeForStatus,
  ROBOTS_CACHE_MS, ROBOTS_MAX_REDIRECTS, type RobotsRules,
} from './robots.ts';
import { checkUrl, inScope } from './url.ts';
import { describeHost, RequestRing } from './host-report.ts';
import type { CrawlStatus, DomainInfo, FetchJob, FetchResult, RequestLogEntry } from './protocol.ts';

/** Redirect hops followed from one URL before giving up. */
export const MAX_REDIRECTS = 5;

/** A job in a host's queue: a frontier URL, or a robots.txt fetch on behalf of `forOrigin`. */
export interface CrawlJob {
  notBefore: number;
  kind: 'page' | 'robots';
  url: string;
  frontierId: number;
  seedId: number;
  depth: number;
  attempts: number;
  redirects: number;
  forOrigin: string;
  hops: number;
}

interface SeedInfo { id: number; url: string; depth: number; scope: Scope; updatedAt: number }
type Write = () => void;

/**
 * The crawler primary's brain, without the processes: it owns the scheduler, every host's state and
 * robots rules, decides what each result means, and is the single writer of frontier, hosts and pages.
 * Writes are queued and applied by `flush()` in one transaction. Time comes in as arguments.
 */
export class Coordinator {
  readonly scheduler: Scheduler<CrawlJob>;
  private readonly frontier;
  private readonly hostsDb;
  private readonly pages;
  private readonly seedsDb;
  private readonly hosts = new Map<string, HostRow>();
  private readonly rules = new Map<string, RobotsRules>();
  private readonly robotsSkipped = new Map<string, number>();
  private readonly rings = new Map<string, RequestRing>();
  private readonly seeds = new Map<number, SeedInfo>();
  private readonly inFlight = new Map<number, { job: CrawlJob; origin: string }>();
  private readonly fetchEnds: number[] = [];
  private writes: Write[] = [];
  private newRows: FrontierRow[] = [];
  private pagesStored = 0;
  private seedCursor = 0;
  private nextJobId = 1;

  constructor(private readonly db: Database, private readonly config: Config, private readonly runId: string) {
    this.scheduler = new Scheduler<CrawlJob>(config.crawlDelayMs);
    this.frontier = frontierQueries(db);
    this.hostsDb = hostQueries(db);
    this.pages = pageQueries(db);
    this.seedsDb = seedQueries(db);
  }

  /** Loads what a previous run left: leases go back to the queue, host clocks and robots rules are restored. */
  start(now: number): void {
    this.frontier.returnAllLeases();
    for (const row of this.hostsDb.allHosts()) {
      // A request that started but whose end was never recorded ended at the latest now.
      const start = row.lastRequestStart ?? 0;
      const end = row.lastRequestEnd ?? 0;
      if (start > end) row.lastRequestEnd = now;
      this.hosts.set(row.origin, row);
      this.scheduler.restoreClock(row.origin, row.lastRequestEnd ?? -Infinity);
      this.scheduler.setBackoffUntil(row.origin, row.backoffUntil);
      if ((row.robotsStatus === 'ok' || row.robotsStatus === 'allow-all') && (row.robotsExpiresAt ?? 0) > now) {
        this.rules.set(row.origin, row.robotsStatus === 'ok' ? parseRobots(`${row.origin}/robots.txt`, row.robotsBody ?? '', this.config.userAgent) : allowAllRules());
        this.scheduler.setCrawlDelay(row.origin, row.crawlDelayMs ?? undefined);
      } else {
        this.needRobots(row.origin, now, row.robotsStatus === 'unreachable' ? row.backoffUntil : 0);
      }
    }
    for (const row of this.frontier.pendingUrls()) this.schedule(row, now);
    this.syncSeeds(now, false);
  }

  /**
   * Reads seeds users added or changed and queues their URLs (the server only writes the seeds table).
   * A seed submitted again while running is crawled again; at start (`recrawl` false) known seeds are
   * only loaded, so a restart does not re-fetch every seed.
   */
  syncSeeds(now: number, recrawl = true): void {
    for (const s of this.seedsDb.seedsChangedSince(this.seedCursor)) {
      this.seedCursor = Math.max(this.seedCursor, s.updatedAt);
      if (this.seeds.get(s.id)?.updatedAt === s.updatedAt) continue;
      this.seeds.set(s.id, { id: s.id, url: s.url, depth: s.depth, scope: s.scope, updatedAt: s.updatedAt });
      const row = this.frontier.addUrl({ url: s.url, origin: s.origin, seedId: s.id, depth: 0, redirects: 0 }, now)
        ?? (recrawl ? this.frontier.requeueUrl(s.url, 0, s.id) : undefined);
      if (row) this.schedule(row, now);
    }
  }

  private host(origin: string): HostRow {
    let h = this.hosts.get(origin);
    if (!h) {
      h = newHostRow(origin, new URL(origin).host);
      this.hosts.set(origin, h);
      this.needRobots(origin, 0, 0);
      const row = h;
      this.writes.push(() => this.hostsDb.saveHost(row, Date.now()));
    }
    return h;
  }

  private needRobots(origin: string, now: number, notBefore: number): void {
    this.rules.set(origin, disallowAllRules());
    this.scheduler.setPaused(origin, true);
    this.scheduler.add(origin, {
      notBefore, kind: 'robots', url: `${origin}/robots.txt`, frontierId: 0, seedId: 0, depth: 0, attempts: 0,
      redirects: 0, forOrigin: origin, hops: 0,
    }, true);
    void now;
  }

  private schedule(row: FrontierRow, _now: number): void {
    this.host(row.origin);
    this.scheduler.add(row.origin, {
      notBefore: row.nextAttemptAt, kind: 'page', url: row.url, frontierId: row.id, seedId: row.seedId,
      depth: row.depth, attempts: row.attempts, redirects: row.redirects, forOrigin: row.origin, hops: 0,
    });
  }

  /**
   * The next job to hand an idle worker, or undefined if no host is due. Checks robots rules (a
   * disallowed URL is skipped without touching the host's clock) and robots expiry.
   */
  dispatch(now: number): FetchJob | undefined {
    for (;;) {
      const d = this.scheduler.next(now);
      if (!d) return undefined;
      const { job, origin } = d;
      if (job.kind === 'page') {
        const h = this.host(origin);
        if ((h.robotsExpiresAt ?? 0) <= now) {
          this.scheduler.complete(origin, -Infinity);
          this.scheduler.add(origin, job);
          this.needRobots(origin, now, 0);
          continue;
        }
        if (!this.rules.get(origin)!.isAllowed(job.url)) {
          this.scheduler.complete(origin, -Infinity);
          this.robotsSkipped.set(origin, (this.robotsSkipped.get(origin) ?? 0) + 1);
          this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'skipped', 'disallowed by robots.txt', now, false));
          continue;
        }
        this.frontier.leaseUrl(job.frontierId, this.runId, now);
      }
      this.hostsDb.recordRequestStart(origin, now);
      this.host(origin).lastRequestStart = now;
      const jobId = this.nextJobId++;
      this.inFlight.set(jobId, { job, origin });
      return { jobId, kind: job.kind, url: job.url, origin };
    }
  }

  /** A worker died with this job: the host's request is over, the URL goes back to the queue. */
  abandon(jobId: number, now: number, reason: string): void {
    const entry = this.inFlight.get(jobId);
    if (!entry) return;
    this.inFlight.delete(jobId);
    const { job, origin } = entry;
    this.scheduler.complete(origin, now);
    this.host(origin).lastRequestEnd = now;
    const attempts = job.attempts + 1;
    if (job.kind === 'page' && attempts >= BACKOFF.maxAttempts) {
      this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'failed', reason, now));
      return;
    }
    this.scheduler.add(origin, { ...job, attempts, notBefore: now }, job.kind === 'robots');
    if (job.kind === 'page') this.writes.push(() => this.frontier.retryUrl(job.frontierId, attempts, now, reason));
  }

  /** Every job in flight goes back to the queue (the crawl is stopping). */
  returnInFlight(): void {
    for (const [, { job }] of this.inFlight) {
      if (job.kind === 'page') this.writes.push(() => this.frontier.returnLease(job.frontierId));
    }
    this.inFlight.clear();
  }

  /** Applies a worker's result: host clock, robots, backoff, page storage, new links. */
  onResult(result: FetchResult, now: number): void {
    const entry = this.inFlight.get(result.jobId);
    if (!entry) return;
    this.inFlight.delete(result.jobId);
    const { job, origin } = entry;
    this.scheduler.complete(origin, now);
    const h = this.host(origin);
    h.lastRequestEnd = now;
    this.fetchEnds.push(now);
    const ring = this.rings.get(origin) ?? new RequestRing();
    this.rings.set(origin, ring);
    ring.push({
      url: job.url, status: result.status, startedAt: new Date(result.startedAt).toISOString(),
      durationMs: Math.round(result.endedAt - result.startedAt), error: result.error?.message ?? null,
    });
    if (job.kind === 'robots') this.onRobots(job, result, now);
    else this.onPage(job, origin, result, now);
    const row = h;
    this.writes.push(() => this.hostsDb.saveHost(row, now));
  }

  private backOff(origin: string, now: number, reason: string, retryAfterMs: number | null): number {
    const h = this.host(origin);
    h.backoffMs = retryAfterMs ?? nextBackoffMs(h.backoffMs);
    h.backoffUntil = now + h.backoffMs;
    h.backoffReason = reason;
    this.scheduler.setBackoffUntil(origin, h.backoffUntil);
    return h.backoffUntil;
  }

  private clearBackoff(h: HostRow): void {
    h.consecutiveErrors = 0;
    h.backoffMs = 0;
    h.backoffReason = null;
    if (h.backoffUntil !== 0) {
      h.backoffUntil = 0;
      this.scheduler.setBackoffUntil(h.origin, 0);
    }
  }

  private onRobots(job: CrawlJob, result: FetchResult, now: number): void {
    const target = this.host(job.forOrigin);
    const hop = result.status !== null && result.status >= 300 && result.status < 400 && result.location;
    if (hop && job.hops < ROBOTS_MAX_REDIRECTS) {
      const next = new URL(result.location!).origin;
      this.host(next);
      this.scheduler.add(next, { ...job, url: result.location!, hops: job.hops + 1, notBefore: 0 }, true);
      return;
    }
    const outcome = result.error || result.status === null ? 'disallow-all'
      : hop ? 'allow-all' : robotsOutcomeForStatus(result.status);
    target.robotsHttpStatus = result.status;
    target.robotsFetchedAt = now;
    if (outcome === 'disallow-all') {
      target.robotsStatus = 'unreachable';
      target.lastError = result.error?.message ?? `robots.txt answered HTTP ${result.status}`;
      target.errorCount++;
      const retryAt = this.backOff(job.forOrigin, now, `robots.txt ${result.error ? result.error.code : `HTTP ${result.status}`}`, result.retryAfterMs);
      this.rules.set(job.forOrigin, disallowAllRules());
      this.scheduler.add(job.forOrigin, { ...job, url: `${job.forOrigin}/robots.txt`, hops: 0, notBefore: retryAt }, true);
      return;
    }
    const rules = outcome === 'rules' ? parseRobots(`${job.forOrigin}/robots.txt`, result.robotsBody ?? '', this.config.userAgent) : allowAllRules();
    target.robotsStatus = outcome === 'rules' ? 'ok' : 'allow-all';
    target.robotsBody = outcome === 'rules' ? result.robotsBody : null;
    target.robotsExpiresAt = now + ROBOTS_CACHE_MS;
    target.crawlDelayMs = rules.crawlDelayMs ?? null;
    this.clearBackoff(target);
    this.rules.set(job.forOrigin, rules);
    this.scheduler.setCrawlDelay(job.forOrigin, rules.crawlDelayMs);
    this.scheduler.setPaused(job.forOrigin, false);
  }

  private onPage(job: CrawlJob, origin: string, result: FetchResult, now: number): void {
    const h = this.host(origin);
    const status = result.status;
    const fail = (message: string, retry: boolean, notBefore?: number) => {
      h.errorCount++;
      h.lastError = message;
      const attempts = job.attempts + 1;
      if (retry && attempts < BACKOFF.maxAttempts) {
        const at = Math.max(notBefore ?? 0, now + retryDelayMs(attempts));
        this.scheduler.add(origin, { ...job, attempts, notBefore: at });
        this.writes.push(() => this.frontier.retryUrl(job.frontierId, attempts, at, message));
      } else {
        this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'failed', message, now));
      }
    };

    if (result.error) {
      const kind = result.error.kind;
      if (kind === 'retryable' || kind === 'throttled') {
        h.consecutiveErrors++;
        const until = h.consecutiveErrors >= BACKOFF.errorsBeforeBackoff || kind === 'throttled'
          ? this.backOff(origin, now, result.error.code, null) : undefined;
        fail(result.error.message, true, until);
      } else {
        fail(result.error.message, false);
      }
      return;
    }
    if (status === 429 || status === 503) {
      h.consecutiveErrors++;
      const why = result.retryAfterMs !== null ? `HTTP ${status}, Retry-After ${Math.round(result.retryAfterMs / 1000)} s` : `HTTP ${status}`;
      const until = this.backOff(origin, now, why, result.retryAfterMs);
      fail(`the site answered ${status} (${status === 429 ? 'too many requests' : 'unavailable'})`, true, until);
      return;
    }
    if (status !== null && status >= 500) {
      h.consecutiveErrors++;
      const until = h.consecutiveErrors >= BACKOFF.errorsBeforeBackoff ? this.backOff(origin, now, `HTTP ${status}`, result.retryAfterMs) : undefined;
      fail(`the site answered ${status}`, true, until);
      return;
    }
    this.clearBackoff(h);
    if (status !== null && status >= 300 && status < 400) {
      this.onRedirect(job, result, now);
      return;
    }
    if (status === 404 || status === 410 || (status !== null && status >= 400)) {
      this.writes.push(() => {
        this.frontier.finishUrl(job.frontierId, 'done', `HTTP ${status}`, now);
        if (status === 404 || status === 410) this.pages.markPageGone(job.url, status, now);
      });
      return;
    }
    h.fetchedCount++;
    const page = result.page;
    if (!page) {
      this.writes.push(() => this.frontier.finishUrl(job.frontierId, 'done', `not HTML (${result.contentType ?? 'no content type'})`, now));
      return;
    }
    const seed = this.seeds.get(job.seedId);
    const links = !page.nofollow && seed && job.depth < seed.depth
      ? page.links.filter((l) => inScope(seed.url, l, seed.scope)) : [];
    this.pagesStored++;
    this.writes.push(() => {
      this.pages.upsertPage({
        url: job.url, finalUrl: page.finalUrl, origin, host: h.host, seedId: job.seedId, status: status ?? 0,
        contentType: result.contentType, title: page.title, description: page.description, headings: page.headings,
        body: page.text, lang: page.lang, canonical: page.canonical, fetchedAt: Date.now(), etag: result.etag,
        lastModified: result.lastModified, contentHash: page.contentHash, noindex: page.noindex, nofollow: page.nofollow,
        indexed: !page.noindex,
      });
      this.frontier.finishUrl(job.frontierId, 'done', null, now);
      for (const url of links) {
        const row = this.frontier.addUrl({ url, origin: new URL(url).origin, seedId: job.seedId, depth: job.depth + 1, redirects: 0 }, now);
        if (row) this.newRows.push(row);
      }
    });
  }

  private onRedirect(job: CrawlJob, result: FetchResult, now: number): void {
    const seed = this.seeds.get(job.seedId);
    let error: string | null = null;
    if (!result.location) error = result.locationRefusal ? `redirect refused: ${result.locationRefusal}` : 'redirect without a usable Location';
    else if (job.redirects + 1 > MAX_REDIRECTS) error = `too many redirects (more than ${MAX_REDIRECTS})`;
    else if (seed && job.depth > 0 && !inScope(seed.url, result.location, seed.scope)) error = `redirects out of scope to ${result.location}`;
    const target = result.location;
    this.writes.push(() => {
      if (error || !target) {
        this.frontier.finishUrl(job.frontierId, 'failed', error, now);
        return;
      }
      const known = this.frontier.urlByUrl(target);
      this.frontier.finishUrl(job.frontierId, 'done', known ? `redirects to ${target} (already known: loop or duplicate)` : `redirects to ${target}`, now);
      if (known) return;
      const checked = checkUrl(target, { allowPrivate: this.config.allowPrivate });
      if (!checked.ok) return;
      const row = this.frontier.addUrl({ url: checked.url, origin: checked.origin, seedId: job.seedId, depth: job.depth, redirects: job.redirects + 1 }, now);
      if (row) this.newRows.push(row);
    });
  }

  /** Whether writes are waiting for `flush()`. */
  hasWrites(): boolean {
    return this.writes.length > 0;
  }

  /** Applies the queued writes in one transaction and schedules the URLs they discovered; returns pages stored. */
  flush(now: number): number {
    if (this.writes.length === 0) return 0;
    const writes = this.writes;
    this.writes = [];
    this.db.transaction(() => {
      for (const w of writes) w();
    })();
    const rows = this.newRows;
    this.newRows = [];
    for (const row of rows) this.schedule(row, now);
    const stored = this.pagesStored;
    this.pagesStored = 0;
    return stored;
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
    return this.rings.get(origin)?.list() ?? [];
  }

  /** Crawl-wide figures and one row per host, for the server's /api/status and /api/domains. */
  snapshot(now: number, workers: number): { status: CrawlStatus; domains: DomainInfo[] } {
    while (this.fetchEnds.length > 0 && this.fetchEnds[0] < now - 60_000) this.fetchEnds.shift();
    const domains: DomainInfo[] = [];
    for (const [origin, row] of this.hosts) {
      const clock = this.scheduler.host(origin);
      const delay = this.scheduler.effectiveDelay(origin);
      domains.push(describeHost({
        row, queued: clock.queue.length + clock.inFlight, inFlight: clock.inFlight, dueAt: this.scheduler.dueAt(origin),
        delayMs: delay.ms, delaySource: delay.source, robotsSkipped: this.robotsSkipped.get(origin) ?? 0,
      }, now));
    }
    domains.sort((a, b) => a.host.localeCompare(b.host));
    return {
      status: { queued: this.scheduler.queuedCount(), inFlight: this.inFlight.size, workers, fetchRatePerMin: this.fetchEnds.length },
      domains,
    };
  }
}
