import type { HostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { FetchResult } from '../common/protocol.ts';
import type { HostBackoff } from './host-backoff.ts';
import type { QueueHostWrite } from './host-writes.ts';
import {
  allowAllRules,
  compileRobots,
  disallowAllRules,
  robotsCostMessage,
  robotsOutcomeForStatus,
  robotsRules,
  ROBOTS_CACHE_MS,
  ROBOTS_COST,
  ROBOTS_MAX_REDIRECTS,
  type CompiledRobots,
  type RobotsRules,
} from './robots.ts';
import type { Scheduler } from './scheduler.ts';

/** Whether a robots job fetches the robots.txt of the host it asks for (not a hop of a redirect to another file). */
const isOwnRobotsFile = (job: CrawlJob): boolean => job.url === `${job.forOrigin}/robots.txt`;

/**
 * What the robots.txt rules say about a page job at dispatch time; `later`: the host's turn is over before
 * its rules could say (see robotsVerdict), and the job waits for the next one.
 */
export type RobotsVerdict = 'allowed' | 'disallowed' | 'expired' | 'later';

/** What the robots side asks of the book that keeps the hosts' rows (HostBook), which alone creates and saves them. */
export interface RobotsHosts {
  /** The host's row, to change; a host never seen before is created, with its robots.txt job queued first. */
  row(origin: string): HostRow;
  /** The host's row if it has one (a lookup that creates no host). */
  known(origin: string): HostRow | undefined;
  /** Queues a write of the host's whole row. */
  save(origin: string, now: number): void;
}

/**
 * The robots.txt side of the HostBook: the rules in force for each host, its robots.txt jobs, and what
 * their fetches mean. It turns robots.txt fetches into rules with RFC 9309's status rules (redirects
 * followed as jobs of the target host, so its clock spaces each hop; the rules found apply to the host that
 * asked), judges each page job against them at dispatch within a bounded cost, and counts the URLs they
 * disallowed. It changes a host's robots fields, its last error and its backoff through the row the HostBook
 * lends it. Writes go into the coordinator's queue (`write`). Time comes in.
 */
export class RobotsBook {
  private readonly robotsSkipped = new Map<string, number>();
  /** Steps the robots checks of each host took in its current turn (see robotsVerdict). */
  private readonly checkSteps = new Map<string, number>();

  constructor(
    private readonly hosts: RobotsHosts,
    /** The rules in force for each host: the HostBook's, which adopts the stored ones still fresh at start. */
    private readonly rules: Map<string, RobotsRules>,
    private readonly backoff: HostBackoff,
    private readonly scheduler: Scheduler<CrawlJob>,
    private readonly userAgent: string,
    /** Queues a write intent for the primary's next batch. */
    private readonly write: QueueHostWrite,
  ) {}

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
    const h = this.hosts.known(job.forOrigin);
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
    const h = this.hosts.row(origin);
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
      this.hosts.save(origin, now);
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
   * Applies a robots.txt fetch made for `job.forOrigin`: a redirect becomes a job of the target's host
   * (up to ROBOTS_MAX_REDIRECTS hops, then allow all); 2xx gives rules; 4xx allows all; 5xx, 429 and
   * network failures disallow all and back the host off until robots.txt is asked again. A 304 to a
   * conditional refresh (`conditional`, see robotsValidators) keeps the stored file's rules for another
   * ROBOTS_CACHE_MS. Returns the `Sitemap:` URLs of rules just loaded for `job.forOrigin` (none otherwise).
   */
  onRobots(job: CrawlJob, result: FetchResult, now: number, conditional = false): string[] {
    const target = this.hosts.row(job.forOrigin);
    const wasUnusable = target.robotsStatus === 'unusable';
    const notModified = conditional && result.status === 304 && !result.error && target.robotsRules !== null;
    const hop = result.status !== null && result.status >= 300 && result.status < 400 && result.location;
    if (hop && job.hops < ROBOTS_MAX_REDIRECTS) {
      const next = new URL(result.location!).origin;
      this.hosts.row(next);
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
      if (job.forOrigin !== new URL(job.url).origin) this.hosts.save(job.forOrigin, now);
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
    if (job.forOrigin !== new URL(job.url).origin) this.hosts.save(job.forOrigin, now);
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
    this.write({ kind: 'save-robots', origin: h.origin, body: h.robotsBody, rules: h.robotsRules });
    return compiled ? robotsRules(url, compiled) : allowAllRules();
  }

  /** The `Sitemap:` URLs of the robots.txt rules in force for a host (none while they are unknown). */
  sitemapsOf(origin: string): string[] {
    return this.rules.get(origin)?.sitemaps ?? [];
  }

  /** How many of the host's URLs its robots.txt rules disallowed (its report shows them as skipped). */
  skipped(origin: string): number {
    return this.robotsSkipped.get(origin) ?? 0;
  }
}
