/**
 * What a worker's result means, a part of the Coordinator: the Coordinator ends the request (the host's
 * clock, its window, its timeline) and hands the result here to be judged. A page is stored and its links
 * taken on, retried, failed or followed as a redirect; a sitemap queues the sitemaps or pages it lists; an
 * answer tells its host whether it failed (backoff) or not. Which links and redirect targets are taken on is
 * judged by admission.ts, within the limits of url-traps.ts (CRAWL_LIMITS). The judge only reads: it returns
 * a Judgement (judgement.ts: host decisions and write intents), which intent-applier.ts applies. Time comes
 * in as arguments.
 */
import { BACKOFF, backoffScope, retryDelayMs } from '../politeness/backoff.ts';
import { EMPTY_PAGE, isEmptyPage, NOT_MODIFIED, pageOutcome, pageRecord, type PageOutcome } from './page-outcome.ts';
import { CRAWL_LIMITS } from '../common/url-traps.ts';
import { admitLinks, judgeRedirect, MAX_REDIRECTS, trapMessage } from '../frontier/admission.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { SeedBook } from '../frontier/seed-book.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { FetchResult } from '../common/protocol.ts';
import type { HostDecision, Judgement } from './judgement.ts';
import type { WriteIntent } from './write-intents.ts';

/** What a ResultJudge reads (never changes): the seeds, the hosts' rows and sitemaps, the queues' sizes. */
export interface JudgeReads {
  /** URL policy: whether redirects to private addresses are followed (ALLOW_PRIVATE). */
  allowPrivate: boolean;
  /** The per-host URL budget (CRAWL_MAX_URLS_PER_HOST), a limit of admission. */
  maxUrlsPerHost: number;
  seeds: Pick<SeedBook, 'get' | 'deepestOn'>;
  hosts: Pick<HostBook, 'known' | 'sitemapValidators'>;
  scheduler: Pick<Scheduler<CrawlJob>, 'hasQueued'>;
  window: Pick<FrontierWindow, 'waiting'>;
}

/** A Judgement being built for one result. */
class Verdict implements Judgement {
  readonly now: HostDecision[] = [];
  readonly writes: WriteIntent[] = [];
  urgent = false;
}

/**
 * Judges each finished job's result for the Coordinator: decides what is stored, retried, followed or
 * queued, and returns it as data (see the module comment).
 */
export class ResultJudge {
  constructor(private readonly reads: JudgeReads) {}

  /**
   * What a result means, once its request is over (see Coordinator.onResult): a robots.txt's rules (and
   * then the sitemaps they list: see sitemapsListed), a page or sitemap of a removed seed only as an answer
   * of its host, else the page or sitemap itself. `conditional`: the request carried the stored page's validators.
   */
  judge(job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean): Judgement {
    const v = new Verdict();
    if (job.kind === 'robots') v.now.push({ kind: 'robots-read', job, result, conditional });
    else if (!this.reads.seeds.get(job.seedId)) this.onOrphan(v, job, origin, result, conditional);
    else if (job.kind === 'sitemap') this.onSitemap(v, job, origin, result, now, conditional);
    else this.onPage(v, job, origin, result, now, conditional);
    return v;
  }

  private onPage(v: Verdict, job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean) {
    const outcome = pageOutcome(result, conditional);
    if (outcome.kind === 'failed') {
      const attempts = job.attempts + 1;
      const failure = { ...outcome, scope: backoffScope(result.status) };
      if (outcome.retry && attempts < BACKOFF.maxAttempts) {
        const retry = { job, attempts, earliest: now + retryDelayMs(attempts), message: outcome.message };
        v.now.push({ kind: 'host-failed', origin, failure, retry });
      } else {
        v.now.push({ kind: 'host-failed', origin, failure });
        v.writes.push(finish(job, 'failed', outcome.message, now));
      }
      return;
    }
    v.now.push({ kind: 'host-answered', origin });
    switch (outcome.kind) {
      case 'redirect':
        this.onRedirect(v, job, result, now);
        return;
      case 'http-error': // an error of the host's row, as on its timeline
        v.now.push({ kind: 'host-error', origin, message: `${job.url} answered HTTP ${outcome.status}` });
        v.writes.push(finish(job, 'done', `HTTP ${outcome.status}`, now));
        if (outcome.gone) v.writes.push({ kind: 'page-gone', url: job.url, status: outcome.status, at: now });
        return;
      case 'not-modified': // the stored page is still the current one: nothing to parse, store or follow
        v.now.push({ kind: 'host-fetched', origin });
        v.writes.push({ kind: 'page-current', url: job.url, seedId: job.seedId, at: now });
        v.writes.push(finish(job, 'done', NOT_MODIFIED, now));
        return;
      case 'not-html':
        v.now.push({ kind: 'host-fetched', origin });
        v.writes.push(finish(job, 'done', outcome.why, now));
        return;
    }
    v.now.push({ kind: 'host-fetched', origin });
    const { page } = outcome;
    const host = this.reads.hosts.known(origin)?.host ?? new URL(origin).host;
    // The row as data; the batch that writes it stamps its fetched_at with the batch's time (when it became searchable).
    const record = pageRecord({ url: job.url, origin, host, seedId: job.seedId }, result, page, now);
    const links = admitLinks(
      page.links,
      { depth: job.depth, nofollow: page.nofollow, seed: this.reads.seeds.get(job.seedId) },
      this.limits(),
    );
    v.urgent = this.urgent(links.follow, origin);
    if (links.trapExample)
      v.now.push({ kind: 'host-trap', origin, message: trapMessage(links.trapped, links.trapExample) });
    v.writes.push({ kind: 'store-page', record, anchors: page.anchors ?? [], at: now });
    v.writes.push(finish(job, 'done', isEmptyPage(page) ? EMPTY_PAGE : null, now));
    if (links.follow.length > 0)
      v.writes.push({
        kind: 'enqueue',
        urls: links.follow,
        seedId: job.seedId,
        depth: job.depth + 1,
        from: origin,
        at: now,
      });
  }

  /**
   * A result whose seed was removed while it was in flight: the host learns from it as from any answer
   * (a 429 still backs it off), but nothing is stored or followed.
   */
  private onOrphan(v: Verdict, job: CrawlJob, origin: string, result: FetchResult, conditional: boolean) {
    if (job.kind === 'sitemap') v.now.push({ kind: 'sitemap-done', url: job.url });
    this.noteOutcome(v, origin, pageOutcome(result, conditional), result.status);
  }

  /**
   * What an answer tells its host, whatever was asked: a failure counts against it (error, streak, backoff
   * as the outcome says; a 503 or 429 holds the host's whole politeness group), anything else clears its backoff.
   */
  private noteOutcome(v: Verdict, origin: string, outcome: PageOutcome, status: number | null): void {
    if (outcome.kind === 'failed')
      v.now.push({ kind: 'host-failed', origin, failure: { ...outcome, scope: backoffScope(status) } });
    else v.now.push({ kind: 'host-answered', origin });
  }

  /**
   * The sitemaps a host lists, as jobs of its own queue (see HostBook.queueSitemaps), or nothing. Their
   * entries count as links of a seed on that origin (`seedId`, else the one of greatest depth), so a seed of
   * depth 0, or a host no seed names, reads none. Also what the applier asks once a robots.txt was read,
   * and once a seed was taken in (its host's robots.txt known already).
   */
  sitemapsListed(
    origin: string,
    urls: readonly string[],
    hops: number,
    seedId?: number,
  ): Extract<HostDecision, { kind: 'queue-sitemaps' }> | undefined {
    if (urls.length === 0) return undefined;
    const seed = seedId !== undefined ? this.reads.seeds.get(seedId) : this.reads.seeds.deepestOn(origin);
    if (!seed || seed.depth < 1 || seed.origin !== origin) return undefined;
    return { kind: 'queue-sitemaps', origin, urls, hops, seedId: seed.id, redirects: 0 };
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
  private onSitemap(v: Verdict, job: CrawlJob, origin: string, result: FetchResult, now: number, conditional: boolean) {
    v.now.push({ kind: 'sitemap-done', url: job.url });
    const outcome = pageOutcome(result, conditional);
    this.noteOutcome(v, origin, outcome, result.status);
    if (outcome.kind === 'failed') return;
    const listed = (urls: readonly string[]) => {
      const d = job.hops < 1 ? this.sitemapsListed(origin, urls, job.hops + 1, job.seedId) : undefined;
      if (d) v.now.push(d);
    };
    if (outcome.kind === 'not-modified') {
      const children = this.reads.hosts.sitemapValidators(job.url)?.children;
      if (children) listed(children);
      return;
    }
    if (outcome.kind === 'redirect' && result.location !== null && job.redirects < MAX_REDIRECTS) {
      v.now.push({
        kind: 'queue-sitemaps',
        origin,
        urls: [result.location],
        hops: job.hops,
        seedId: job.seedId,
        redirects: job.redirects + 1,
      });
    }
    const entries = result.sitemap;
    if (!entries) return; // a redirect, 4xx or empty body: the host's timeline shows the request and its status
    const read = {
      etag: result.etag,
      lastModified: result.lastModified,
      children: entries.index ? entries.urls : null,
    };
    v.now.push({ kind: 'sitemap-read', url: job.url, read });
    if (entries.index) {
      listed(entries.urls);
      return;
    }
    const links = admitLinks(
      entries.urls,
      { depth: 0, nofollow: false, seed: this.reads.seeds.get(job.seedId) },
      this.limits(),
    );
    // Pages whose <lastmod> is newer than their last request changed: asked for again (revisit.ts).
    if (entries.lastmod) v.writes.push({ kind: 'sitemap-lastmod', lastmod: entries.lastmod, urls: links.follow });
    if (links.follow.length === 0) return;
    v.urgent = this.urgent(links.follow, origin);
    v.writes.push({ kind: 'enqueue', urls: links.follow, seedId: job.seedId, depth: 1, from: origin, at: now });
  }

  /** Whether `urls`, found on `origin`, lead to a host with nothing queued (the batch is then urgent). */
  private urgent(urls: readonly string[], origin: string): boolean {
    const idle = (host: string) => !this.reads.scheduler.hasQueued(host) && this.reads.window.waiting(host) === 0;
    return urls.some((url) => idle(url.startsWith(`${origin}/`) ? origin : new URL(url).origin));
  }

  /** The limits of admission: CRAWL_LIMITS with the configured per-host URL budget. */
  private limits() {
    return { ...CRAWL_LIMITS, maxUrlsPerHost: this.reads.maxUrlsPerHost };
  }

  private onRedirect(v: Verdict, job: CrawlJob, result: FetchResult, now: number): void {
    const decision = judgeRedirect({
      location: result.location,
      refusal: result.locationRefusal,
      redirects: job.redirects,
      depth: job.depth,
      seed: this.reads.seeds.get(job.seedId),
      policy: { allowPrivate: this.reads.allowPrivate },
      limits: this.limits(),
    });
    if (!decision.ok) {
      v.now.push({ kind: 'host-error', origin: job.forOrigin, message: `${job.url}: ${decision.error}` });
      v.writes.push(finish(job, 'failed', decision.error, now));
      return;
    }
    v.writes.push({ kind: 'follow-redirect', job, target: decision.url, at: now });
  }
}

/** The write that ends a requested page job's URL. */
function finish(job: CrawlJob, state: 'done' | 'failed', note: string | null, at: number): WriteIntent {
  return { kind: 'finish-url', frontierId: job.frontierId, state, note, at, countAttempt: true };
}
