/**
 * Where discovered URLs enter the frontier, inside the transaction of the batch that applies an `enqueue`
 * or `follow-redirect` intent (crawler/coordination/intent-applier.ts): links and sitemap entries already
 * judged by admission.ts, and redirect targets (with loop detection). It keeps the per-host URL budget
 * (CRAWL_MAX_URLS_PER_HOST) and the per-seed host budget (CRAWL_MAX_HOSTS_PER_SEED, host-budget.ts) in step
 * with what the transaction stores: what it counts stays provisional until the transaction committed, the
 * rows it added and what hosts' rows should say go to the batch's BatchEffects (applied after the commit),
 * and the seeds' figures are written in the transaction (`saveSeedHosts`). Its writes go through the
 * transaction's queries (`tx`, db/crawl-store.ts), each awaited.
 */
import type { CrawlQueries } from '../../db/crawl-store.ts';
import type { FrontierRow } from '../../db/frontier.ts';
import { budgetMessage, findRedirectLoop, loopMessage, UrlBudget } from './admission.ts';
import { HostBudget, hostLimitMessage } from './host-budget.ts';
import type { BatchEffects } from './batch-effects.ts';
import type { RedirectedJob } from './frontier-writes.ts';

/** What the intake reads at start (the store, outside any transaction). */
export type IntakeReads = { frontier: Pick<CrawlQueries['frontier'], 'urlCountsBySeedAndOrigin'> } & {
  seedHosts: Pick<CrawlQueries['seedHosts'], 'allSeedHosts'>;
};

/** The intake's limits, and how it names a seed in a host's row. */
export interface IntakeLimits {
  maxUrlsPerHost: number;
  maxHostsPerSeed: number;
  /** The URL of a seed, for the words of a host's row (undefined for one removed meanwhile). */
  seedUrl(seedId: number): string | undefined;
}

/** The frontier's entrance for discovered URLs, with its two budgets (see the module comment). */
export class LinkIntake {
  readonly budget: UrlBudget;
  readonly hostBudget: HostBudget;

  constructor(private readonly limits: IntakeLimits) {
    this.budget = new UrlBudget(limits.maxUrlsPerHost);
    this.hostBudget = new HostBudget(limits.maxHostsPerSeed);
  }

  /** Loads the budgets' stored state (at start): URLs per host and per seed, and the seeds' refusals. */
  async load(store: IntakeReads): Promise<void> {
    const counts = await store.frontier.urlCountsBySeedAndOrigin();
    const seedHosts = await store.seedHosts.allSeedHosts();
    const perOrigin = new Map<string, number>();
    for (const { origin, n } of counts) perOrigin.set(origin, (perOrigin.get(origin) ?? 0) + n);
    this.budget.load([...perOrigin].map(([origin, n]) => ({ origin, n })));
    this.hostBudget.load(
      counts,
      seedHosts.map((r) => ({
        seedId: r.seedId,
        count: r.refused,
        example: r.refusedExample,
        at: r.refusedAt,
      })),
    );
  }

  /**
   * Queues a URL of seed `seedId` discovered on `from` (an origin), unless its seed has reached its
   * hosts and this is a further host, or its host's URL budget is spent (a known URL then only gains an
   * inlink; an unknown one is dropped, and the row of `from` or of the URL's host says why, in `fx`).
   * Returns whether it is queued (its row then in `fx.queued`).
   */
  async enqueue(
    tx: CrawlQueries,
    url: string,
    seedId: number,
    depth: number,
    redirects: number,
    now: number,
    from: string,
    fx: BatchEffects,
  ): Promise<boolean> {
    return (await this.enqueueAll(tx, [url], seedId, depth, redirects, now, from, fx)) === 1;
  }

  /**
   * `enqueue` for each of `urls` (a page's links, in order), with the storage's batch methods: a page's
   * links are a few statements, not one or two per link (db/crawl-store.ts FrontierStore). When both budgets
   * have room for all of them even were they all new, they are added at once (a known one gains an
   * inlink); otherwise which are known is read first, and the budgets decide link by link as `enqueue`
   * would, a known link never using up room. Returns how many were queued.
   */
  async enqueueAll(
    tx: CrawlQueries,
    urls: readonly string[],
    seedId: number,
    depth: number,
    redirects: number,
    now: number,
    from: string,
    fx: BatchEffects,
  ): Promise<number> {
    if (urls.length === 0) return 0;
    const wanted = urls.map((url) => ({ url, origin: new URL(url).origin, seedId, depth, redirects }));
    if (this.roomForAll(wanted, seedId)) return this.added(await tx.frontier.addUrls(wanted, now), fx);
    const known = await tx.frontier.knownUrls(urls);
    const touch: string[] = [];
    const add: typeof wanted = [];
    for (const u of wanted) {
      const isKnown = known.has(u.url);
      if (!this.hostBudget.hasRoom(seedId, u.origin)) {
        if (isKnown) touch.push(u.url);
        else {
          const host = new URL(u.url).host;
          this.hostBudget.refuse(seedId, host, now);
          const message = hostLimitMessage(
            this.hostBudget.limit,
            this.limits.seedUrl(seedId) ?? `seed ${seedId}`,
            host,
          );
          fx.hostNotes.push({ kind: 'trap', origin: from, message });
        }
        continue;
      }
      if (!this.budget.hasRoom(u.origin)) {
        if (isKnown) touch.push(u.url);
        else fx.hostNotes.push({ kind: 'budget-spent', origin: u.origin, message: budgetMessage(this.budget.limit) });
        continue;
      }
      if (isKnown) {
        touch.push(u.url); // as addUrl: a known URL gains an inlink
        continue;
      }
      known.add(u.url); // listed again further on: known by then
      this.budget.add(u.origin);
      this.hostBudget.add(seedId, u.origin);
      add.push(u);
    }
    const rows = add.length > 0 ? await tx.frontier.addUrls(add, now) : [];
    if (touch.length > 0) await tx.frontier.touchUrls(touch); // after the adds: a link listed twice gains its inlink
    for (const row of rows) fx.queued.push(row);
    return rows.length;
  }

  /** Whether both budgets have room for every one of `wanted`, were they all new. */
  private roomForAll(wanted: ReadonlyArray<{ origin: string }>, seedId: number): boolean {
    const perOrigin = new Map<string, number>();
    for (const { origin } of wanted) perOrigin.set(origin, (perOrigin.get(origin) ?? 0) + 1);
    let newHosts = 0;
    for (const [origin, n] of perOrigin) {
      if (this.budget.count(origin) + n > this.budget.limit) return false;
      if (!this.hostBudget.knows(seedId, origin)) newHosts++;
    }
    return this.hostBudget.count(seedId) + newHosts <= this.hostBudget.limit;
  }

  /** Rows inserted by a batch that fit the budgets: counted, and queued in `fx`. */
  private added(rows: readonly FrontierRow[], fx: BatchEffects): number {
    for (const row of rows) {
      this.budget.add(row.origin);
      this.hostBudget.add(row.seedId, row.origin);
      fx.queued.push(row);
    }
    return rows.length;
  }

  /** Writes the figures of every seed whose hosts or refusals changed (the last write of a transaction). */
  async saveSeedHosts(tx: CrawlQueries): Promise<void> {
    for (const f of this.hostBudget.changed()) {
      await tx.seedHosts.saveSeedHosts({
        seedId: f.seedId,
        hosts: f.hosts,
        refused: f.refused.count,
        refusedExample: f.refused.example,
        refusedAt: f.refused.at,
      });
    }
  }

  /**
   * A URL answered with a redirect to `target` (already judged acceptable): the target becomes a URL of
   * its own, unless it closes a redirect loop (every URL of the loop fails with a message saying so,
   * also the row of the job's host, `forOrigin`) or the budget is spent; a target already known only gains an inlink.
   */
  async followRedirect(
    tx: CrawlQueries,
    job: RedirectedJob,
    target: string,
    now: number,
    fx: BatchEffects,
  ): Promise<void> {
    const loop = await findRedirectLoop(job.url, target, (url) => tx.frontier.redirectTarget(url));
    if (loop) {
      const message = loopMessage(loop);
      fx.hostNotes.push({ kind: 'error', origin: job.forOrigin, message });
      await tx.frontier.finishRedirect(job.frontierId, target, message, now, 'failed');
      for (const url of new Set(loop)) if (url !== job.url) await tx.frontier.failRedirectLoop(url, message);
      return;
    }
    if (await tx.frontier.touchUrl(target)) {
      await tx.frontier.finishRedirect(job.frontierId, target, `redirects to ${target} (already known)`, now);
      return;
    }
    if (!(await this.enqueue(tx, target, job.seedId, job.depth, job.redirects + 1, now, job.forOrigin, fx))) {
      const why = this.hostBudget.hasRoom(job.seedId, new URL(target).origin)
        ? budgetMessage(this.budget.limit).replace(/^stopped following links: /, '')
        : `the crawl of its seed has reached ${this.hostBudget.limit.toLocaleString('en-US')} hosts (the limit per seed, CRAWL_MAX_HOSTS_PER_SEED)`;
      await tx.frontier.finishUrl(job.frontierId, 'failed', `redirects to ${target}, not followed: ${why}`, now);
      return;
    }
    await tx.frontier.finishRedirect(job.frontierId, target, `redirects to ${target}`, now);
  }

  /**
   * A batch's transaction begins: the budgets count from their committed figures (what a transaction that
   * did not commit counted provisionally is not carried into this one).
   */
  begin(): void {
    this.budget.rollback();
    this.hostBudget.rollback();
  }

  /** The batch's transaction committed: the budgets keep what it counted. */
  committed(): void {
    this.budget.commit();
    this.hostBudget.commit();
  }
}
