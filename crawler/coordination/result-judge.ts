/**
 * What a worker's result means, a part of the Coordinator: the Coordinator ends the request (the host's
 * clock, its window, its timeline) and hands the result here to be judged. A page is stored and its links
 * taken on, retried, failed or followed as a redirect; a sitemap queues the sitemaps or pages it lists; an
 * answer tells its host whether it failed (backoff) or not. Which links and redirect targets are taken on is
 * judged by admission.ts, within the limits of url-traps.ts (CRAWL_LIMITS); what is taken on enters the
 * frontier through link-intake.ts. Writes are queued (write-batch.ts), never applied here. Time comes in as
 * arguments.
 */
import type { Config } from '../../shared/config.ts';
import type { frontierQueries, FrontierRow } from '../../db/frontier.ts';
import type { PageQueries } from '../../db/pages.ts';
import type { linkTargetQueries } from '../../db/link-targets.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import { BACKOFF, backoffScope, retryDelayMs } from '../politeness/backoff.ts';
import { EMPTY_PAGE, isEmptyPage, NOT_MODIFIED, pageOutcome, pageRecord, type PageOutcome } from './page-outcome.ts';
import { CRAWL_LIMITS } from '../common/url-traps.ts';
import { admitLinks, judgeRedirect, MAX_REDIRECTS, trapMessage } from '../frontier/admission.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { LinkIntake } from '../frontier/link-intake.ts';
import type { WriteBatch } from './write-batch.ts';
import type { SeedBook } from '../frontier/seed-book.ts';
import type { RevisitBook } from '../frontier/revisit-book.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { FetchResult } from '../common/protocol.ts';

/** The Coordinator's parts a ResultJudge reads and queues writes through (the same objects, shared). */
export interface JudgeParts {
  config: Pick<Config, 'allowPrivate'>;
  scheduler: Scheduler<CrawlJob>;
  frontier: ReturnType<typeof frontierQueries>;
  pages: PageQueries;
  linkTargets: ReturnType<typeof linkTargetQueries>;
  hosts: HostBook;
  seeds: SeedBook;
  intake: LinkIntake;
  writes: WriteBatch;
  revisits: RevisitBook;
  window: FrontierWindow;
  /** A row committed as queued goes to its host's window (Coordinator.schedule). */
  schedule: (row: FrontierRow, now: number) => void;
  /** A page was stored: counted for the flush that commits it. */
  pageStored: () => void;
}

/**
 * Judges each finished job's result for the Coordinator, which owns it: decides what is stored, retried,
 * followed or queued, and queues those writes for the next flush.
 */
export class ResultJudge {
  private readonly config: JudgeParts['config'];
  private readonly scheduler: Scheduler<CrawlJob>;
  private readonly frontier: JudgeParts['frontier'];
  private readonly pages: PageQueries;
  private readonly linkTargets: JudgeParts['linkTargets'];
  private readonly hosts: HostBook;
  private readonly seeds: SeedBook;
  private readonly intake: LinkIntake;
  private readonly writes: WriteBatch;
  private readonly revisits: RevisitBook;
  private readonly window: FrontierWindow;
  private readonly schedule: JudgeParts['schedule'];
  private readonly pageStored: () => void;

  constructor(p: JudgeParts) {
    this.config = p.config;
    this.scheduler = p.scheduler;
    this.frontier = p.frontier;
    this.pages = p.pages;
    this.linkTargets = p.linkTargets;
    this.hosts = p.hosts;
    this.seeds = p.seeds;
    this.intake = p.intake;
    this.writes = p.writes;
    this.revisits = p.revisits;
    this.window = p.window;
    this.schedule = p.schedule;
    this.pageStored = p.pageStored;
  }

  /**
   * What a result means, once its request is over (see Coordinator.onResult): a robots.txt's rules and the
   * sitemaps it lists, a page or sitemap of a removed seed only as an answer of its host, else the page or
   * sitemap itself. `conditional`: the request carried the stored page's validators.
   */
  judge(job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean): void {
    if (job.kind === 'robots') this.queueSitemaps(job.forOrigin, this.hosts.onRobots(job, result, now, conditional), 0);
    else if (!this.seeds.get(job.seedId)) this.onOrphan(job, origin, result, now, conditional);
    else if (job.kind === 'sitemap') this.onSitemap(job, origin, result, now, conditional);
    else this.onPage(job, origin, result, now, conditional);
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
    this.pageStored();
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
  queueSitemaps(origin: string, urls: readonly string[], hops: number, seedId?: number): void {
    if (urls.length === 0) return;
    const seed = seedId !== undefined ? this.seeds.get(seedId) : this.seeds.deepestOn(origin);
    if (seed && seed.depth >= 1 && seed.origin === origin) this.hosts.queueSitemaps(origin, urls, hops, seed.id);
  }

  /**
   * A sitemap's result: a sitemap index queues the sitemaps it lists (one level deep); a urlset's pages are
   * taken on as links of its seed, one step from it. A redirect within the origin (a /sitemap.xml that moved
   * to /sitemap_index.xml) is followed as a sitemap job of its own, up to MAX_REDIRECTS. Statuses mean for
   * the host what they mean for a page (a 429 backs it off); a sitemap that failed is not retried.
   * `conditional`: the request carried what the sitemap answered last time, so a 304 means nothing changed:
   * its pages and their `<lastmod>`s are known already, and an index's sitemaps are read again (each
   * conditionally too), since a sitemap can change while the index that lists it does not.
   */
  private onSitemap(job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean): void {
    this.hosts.sitemapDone(job.url);
    const outcome = pageOutcome(result, conditional);
    this.noteOutcome(origin, outcome, result.status, now);
    if (outcome.kind === 'failed') return;
    if (outcome.kind === 'not-modified') {
      const children = this.hosts.sitemapValidators(job.url)?.children;
      if (children && job.hops < 1) this.queueSitemaps(origin, children, job.hops + 1, job.seedId);
      return;
    }
    if (outcome.kind === 'redirect' && result.location !== null && job.redirects < MAX_REDIRECTS) {
      this.hosts.queueSitemaps(origin, [result.location], job.hops, job.seedId, job.redirects + 1);
    }
    const entries = result.sitemap;
    if (!entries) return; // a redirect, 4xx or empty body: the host's timeline shows the request and its status
    this.hosts.sitemapRead(job.url, {
      etag: result.etag,
      lastModified: result.lastModified,
      children: entries.index ? entries.urls : null,
    });
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
}
