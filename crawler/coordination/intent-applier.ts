/**
 * The one place the crawler primary's decisions take effect. The parts that decide (result-judge.ts,
 * job-dispatch.ts, crawler/frontier/seed-lifecycle.ts) only read and return data; this applies it:
 *
 * - a Judgement's host decisions at once (a host's health and backoff hold before the next dispatch), and
 *   a DispatchDecision to the scheduler, the windows and the hosts' book;
 * - write intents (write-intents.ts) are queued (write-batch.ts) and written by `flush` in ONE transaction
 *   through the CrawlStore port (db/crawl-store.ts: a switch over `kind`, the SQL in db/ query modules;
 *   full-text entries at the batch's end). What the writes did is gathered in a BatchEffects while the
 *   transaction runs, and applied to memory (windows, budgets, hosts' book) only once it committed
 *   (commit-effects.ts). A
 *   transaction that fails drops its BatchEffects: memory was not changed, so nothing is undone by hand;
 *   the intents stay queued for the next flush.
 *
 * Storage answers Promises (a network engine's round trips), so `flush` and `applyAtOnce` are awaited, and
 * they run one at a time, in call order (`exclusive`): a second flush asked for while one is in flight
 * waits for it, and intents queued meanwhile go to the batch after. The order within a flush: the
 * transaction commits, then memory learns what it did (CommitEffects, synchronously: a committed batch
 * must be known even if what follows fails), then the windows read what they need (FrontierWindow.committed).
 */
import { type CrawlQueries, type CrawlStore, type GroupLeaseRef, leaseKey } from '../../db/crawl-store.ts';
import { type ApplierLeases, WriteFence } from './write-fence.ts';

export type { ApplierLeases } from './write-fence.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { LinkIntake } from '../frontier/link-intake.ts';
import type { SeedWrites } from '../frontier/seed-writes.ts';
import type { SeedBook } from '../frontier/seed-book.ts';
import type { RevisitBook } from '../frontier/revisit-book.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { BatchEffects } from '../frontier/batch-effects.ts';
import { cachedRevisits } from '../frontier/revisit-cache.ts';
import { CommitEffects } from './commit-effects.ts';
import type { ResultJudge } from './result-judge.ts';
import type { DispatchDecision, InFlightJob } from './job-dispatch.ts';
import type { HostDecision, Judgement } from './judgement.ts';
import type { WriteBatch } from './write-batch.ts';
import type { WriteIntent } from './write-intents.ts';
import type { FetchJob } from '../common/protocol.ts';

/** What the applier changes (memory) and writes through (storage): the Coordinator's parts. */
export interface ApplierTargets {
  store: CrawlStore;
  batch: WriteBatch<WriteIntent>;
  scheduler: Scheduler<CrawlJob>;
  window: FrontierWindow;
  hosts: HostBook;
  seeds: SeedBook;
  intake: LinkIntake;
  /** Writes a seed's intents (take in, crawl again, drop, retire, compact) inside the batch's transaction. */
  seedWrites: SeedWrites;
  revisits: RevisitBook;
  /** Asked which sitemaps a seed's host lists are read for it (ResultJudge.sitemapsListed). */
  judge: Pick<ResultJudge, 'sitemapsListed'>;
  /** The jobs in flight, by job id. */
  inFlight: Map<number, InFlightJob>;
  /** A crawler node holding leases (PostgreSQL, issue 29): its writes are fenced, its admitted groups noted. */
  leases?: ApplierLeases;
}

/** The urls whose revisit states a batch reads (revisit-book.ts noteVisit): its pages stored or confirmed, and their seeds' pages. */
export function revisitUrls(writes: readonly WriteIntent[], seeds: SeedBook): string[] {
  const urls = new Set<string>();
  for (const w of writes) {
    if (w.kind !== 'store-page' && w.kind !== 'page-current') continue;
    const [url, seedId] = w.kind === 'store-page' ? [w.record.url, w.record.seedId] : [w.url, w.seedId];
    urls.add(url);
    const seedUrl = seeds.get(seedId)?.url;
    if (seedUrl !== undefined) urls.add(seedUrl);
  }
  return [...urls];
}

/** Applies decisions and write intents (see the module comment). */
export class IntentApplier {
  /** What memory learns once a batch committed (commit-effects.ts). */
  private readonly afterCommit: CommitEffects;
  /** The last flush or write at once asked for: the next one starts once it settled (see `exclusive`). */
  private tail: Promise<unknown> = Promise.resolve();
  /** Flushes and writes at once asked for and not yet settled. */
  private running = 0;
  /** The leases a crawler node's writes are made under (write-fence.ts). */
  private readonly fence: WriteFence;
  /** The lease the writes being queued now are made under (see `judged`). */
  private judging: GroupLeaseRef | undefined;

  constructor(private readonly targets: ApplierTargets) {
    this.afterCommit = new CommitEffects(targets);
    this.fence = new WriteFence(targets.leases);
  }

  /**
   * A result judged: its host decisions at once, its writes queued for the next batch (urgent if it says so),
   * fenced by `fence`, the lease its request was sent under.
   */
  judged(j: Judgement, now: number, fence?: GroupLeaseRef): void {
    this.judging = fence;
    try {
      for (const d of j.now) this.decideHost(d, now);
      for (const w of j.writes) this.push(w, fence);
    } finally {
      this.judging = undefined;
    }
    if (j.urgent) this.targets.batch.markUrgent();
  }

  /** Queues one write for the next batch, fenced by `fence` when given (its batch drops it if the lease was lost). */
  push(w: WriteIntent, fence?: GroupLeaseRef, quiet = false): void {
    if (quiet) this.targets.batch.pushQuiet(w);
    else this.targets.batch.push(w);
    if (fence !== undefined) this.fence.tag(w, fence);
  }

  /** Fenced writes of `group` queued and not yet committed: its lease is not released meanwhile. */
  unsettled(group: string): number {
    return this.fence.unsettled(group);
  }

  /** Queues writes for the next batch (`urgent`: asks for it at once). */
  queue(writes: readonly WriteIntent[], urgent = false): void {
    for (const w of writes) this.targets.batch.push(w);
    if (urgent) this.targets.batch.markUrgent();
  }

  /**
   * Applies what dispatch decided for a job the scheduler released: the job to hand out, 'next' to ask the
   * scheduler again, or undefined to stop this dispatch call (see Coordinator.dispatch).
   */
  dispatched(origin: string, job: CrawlJob, d: DispatchDecision, now: number): FetchJob | 'next' | undefined {
    const { scheduler, window, hosts, batch } = this.targets;
    if (job.kind === 'page') window.taken(origin, job, d.kind !== 'drop');
    switch (d.kind) {
      case 'drop':
        // Its seed was removed: dropped without contacting the host.
        scheduler.complete(origin, -Infinity);
        window.readyAgain(origin);
        if (job.kind === 'sitemap') hosts.sitemapDone(job.url);
        // A removed seed of 100,000 queued URLs is passed over a bounded part per call (WINDOW.passOverPerStep):
        // the dispatch loop comes back on its next turn, and other events (results, flushes) go between.
        return window.passOverSpent ? undefined : 'next';
      case 'robots-expired':
        scheduler.complete(origin, -Infinity);
        if (job.kind === 'page') window.putBack(origin, job);
        else scheduler.add(origin, job, job.kind === 'robots');
        hosts.needRobots(origin, 0);
        return 'next';
      case 'later':
        // The host's turn ended on robots checks (see HostBook.robotsVerdict): the job waits for its next
        // turn, other hosts go first, and the primary's loop gets to other events before more dispatch.
        scheduler.complete(origin, now);
        scheduler.add(origin, job);
        return undefined;
      case 'disallowed':
        scheduler.complete(origin, -Infinity);
        window.readyAgain(origin);
        if (d.write) batch.push(d.write);
        else hosts.sitemapDone(job.url);
        return 'next';
      case 'send':
        // The row stays 'queued' on disk until its lease's batch; the window reads a host's queue from its
        // start only after a commit (FrontierWindow.committed), when every lease queued before it is written.
        {
          const fence = this.targets.leases?.fenceOf(origin);
          const sendBy = this.targets.leases?.sendBy(origin);
          if (sendBy !== undefined) d.out.sendBy = sendBy; // the worker writes it by then or not at all
          if (d.lease) this.push(d.lease, fence, true);
          hosts.recordStart(origin, now);
          this.targets.inFlight.set(d.out.jobId, fence === undefined ? d.inFlight : { ...d.inFlight, fence });
        }
        return d.out;
    }
  }

  /** Applies one host decision at `now` (judgement.ts). */
  private decideHost(d: HostDecision, now: number): void {
    const { hosts } = this.targets;
    switch (d.kind) {
      case 'robots-read': {
        const listed = this.targets.judge.sitemapsListed(
          d.job.forOrigin,
          hosts.onRobots(d.job, d.result, now, d.conditional),
          0,
        );
        if (listed) this.decideHost(listed, now);
        return;
      }
      case 'host-failed': {
        const until = hosts.noteFailure(d.origin, now, d.failure);
        if (!d.retry) return;
        const { job, attempts, earliest, message } = d.retry;
        const at = Math.max(until ?? 0, earliest);
        this.targets.window.retry(d.origin, { ...job, attempts, notBefore: at });
        this.push(
          { kind: 'retry-url', frontierId: job.frontierId, attempts, notBefore: at, error: message },
          this.judging,
        );
        return;
      }
      case 'host-answered':
        hosts.noteAnswered(d.origin);
        return;
      case 'host-fetched':
        hosts.noteFetched(d.origin);
        return;
      case 'host-error':
        hosts.noteError(d.origin, d.message);
        return;
      case 'host-trap':
        hosts.noteTrap(d.origin, d.message);
        return;
      case 'sitemap-done':
        hosts.sitemapDone(d.url);
        return;
      case 'queue-sitemaps':
        hosts.queueSitemaps(d.origin, d.urls, d.hops, d.seedId, d.redirects);
        return;
      case 'sitemap-read':
        hosts.sitemapRead(d.url, d.read);
        return;
    }
  }

  /** Whether a flush or a write at once is in flight (its transaction or its reads not settled yet). */
  get busy(): boolean {
    return this.running > 0;
  }

  /**
   * Runs `step` once every flush and write at once asked for before it settled, so that the primary never
   * runs two transactions at once (db/crawl-store.ts); resolves or rejects as `step` does.
   */
  private exclusive<T>(step: () => Promise<T>): Promise<T> {
    this.running++;
    const run = this.tail.then(step, step).finally(() => this.running--);
    this.tail = run.catch(() => undefined); // the next step waits for this one, not for its success
    return run;
  }

  /**
   * Writes the queued intents in one transaction at `now` (pages are stamped with it), then applies what
   * they did: rows queued go to their hosts' windows, budgets and hosts' rows follow, the next chunks of
   * long seed changes are queued, then windows that ran low are refilled. Resolves to pages stored or
   * retired. If the transaction fails, it rejects, the intents stay queued, and memory is as it was.
   */
  flush(now: number): Promise<number> {
    return this.exclusive(async () => {
      const { batch, window, store } = this.targets;
      if (!batch.pending) {
        await window.committed(); // nothing to commit: everything written is, and windows may read on
        return 0;
      }
      const fx = new BatchEffects();
      let dropped = new Map<string, { lease: GroupLeaseRef; writes: number }>();
      let committed: readonly WriteIntent[] = [];
      await batch.commit(now, (writes) => {
        // The batch took its hosts' row writes: a host that changes from here on queues another (HostBook.taken).
        for (const w of writes) if (w.kind === 'save-host') this.targets.hosts.taken(w.row.origin);
        return store.transaction(async (batchTx) => {
          this.targets.intake.begin();
          dropped = new Map();
          const lost = await this.fence.lost(batchTx, writes);
          // The batch's pages' revisit states in one read, not two per page (frontier/revisit-cache.ts).
          const revisits = await cachedRevisits(batchTx.revisits, revisitUrls(writes, this.targets.seeds));
          const tx = { ...batchTx, revisits };
          for (const w of writes) {
            const fence = this.fence.of(w);
            if (fence !== undefined && lost.has(leaseKey(fence))) {
              const d = dropped.get(leaseKey(fence)) ?? { lease: fence, writes: 0 };
              d.writes++;
              dropped.set(leaseKey(fence), d);
              continue; // written under a lease this node lost: its URL stays queued for the new owner
            }
            await this.write(tx, w, now, fx);
          }
          await this.targets.intake.saveSeedHosts(tx); // the seeds' host counts, as the batch left them
          await this.fence.noteWork(tx, fx);
          committed = writes;
        });
      });
      this.fence.settled(committed);
      for (const d of dropped.values()) this.targets.leases?.dropped(d.lease, d.writes);
      this.afterCommit.apply(fx);
      this.fence.noted(fx);
      await window.committed();
      return fx.pagesStored + fx.pagesRetired;
    });
  }

  /**
   * Writes intents at once, in a transaction of their own (not with the queued batch: a seed sync's first
   * chunk, a refresh), after any flush in flight, then applies what they did. Resolves to the effects.
   */
  applyAtOnce(writes: readonly WriteIntent[], now: number): Promise<BatchEffects> {
    const fx = new BatchEffects();
    if (writes.length === 0) return Promise.resolve(fx);
    return this.exclusive(async () => {
      await this.targets.store.transaction(async (tx) => {
        for (const w of writes) await this.write(tx, w, now, fx);
        await this.fence.noteWork(tx, fx);
      });
      this.afterCommit.apply(fx);
      this.fence.noted(fx);
      return fx;
    });
  }

  /** Writes one intent through `tx` at `now`; what it did goes to `fx` (see the module comment). */
  private async write(tx: CrawlQueries, w: WriteIntent, now: number, fx: BatchEffects): Promise<void> {
    const { intake, revisits, seeds } = this.targets;
    switch (w.kind) {
      case 'lease-url':
        await tx.frontier.leaseUrl(w.frontierId, w.owner, w.at);
        return;
      case 'finish-url':
        await tx.frontier.finishUrl(w.frontierId, w.state, w.note, w.at, w.countAttempt);
        return;
      case 'retry-url':
        await tx.frontier.retryUrl(w.frontierId, w.attempts, w.notBefore, w.error);
        return;
      case 'return-lease':
        await tx.frontier.returnLease(w.frontierId);
        return;
      case 'enqueue':
        await intake.enqueueAll(tx, w.urls, w.seedId, w.depth, 0, w.at, w.from, fx); // a page's links, a few statements
        return;
      case 'follow-redirect':
        await intake.followRedirect(tx, w.job, w.target, w.at, fx);
        return;
      case 'take-in-seeds':
      case 'recrawl-seed':
      case 'requeue-seed-chunk':
      case 'drop-seed-urls':
      case 'retire-seed-pages':
      case 'compact-search':
        await this.targets.seedWrites.write(tx, w, now, fx);
        return;
      case 'save-host':
        await tx.hosts.saveHost(w.row, w.at ?? now);
        return;
      case 'save-robots':
        await tx.hosts.saveRobotsFile(w.origin, w.body, w.rules);
        return;
      case 'remember-sitemap':
        await tx.sitemapJobs.rememberSitemapJob(w.job);
        return;
      case 'forget-sitemap':
        await tx.sitemapJobs.forgetSitemapJob(w.url);
        return;
      case 'sitemap-validators':
        await tx.sitemapJobs.rememberSitemapValidators(w.url, w.read);
        return;
      case 'commit-wanted':
        return;
      case 'store-page': {
        const { record } = w;
        // Stamped with the batch's time; its links are written at the transaction's end (no id awaited here).
        await tx.pages.storePage({ ...record, fetchedAt: now }, w.anchors);
        const found = { kind: 'fetched', hash: record.contentHash } as const;
        await revisits.noteVisit(tx, record.url, found, w.at, seeds.get(record.seedId)?.url);
        fx.pagesStored++;
        return;
      }
      case 'page-current':
        await tx.pages.markPageCurrent(w.url, now);
        await revisits.noteVisit(tx, w.url, { kind: 'not-modified' }, w.at, seeds.get(w.seedId)?.url);
        return;
      case 'page-gone':
        await tx.pages.markPageGone(w.url, w.status, w.at);
        return;
      case 'sitemap-lastmod':
        // Pages whose <lastmod> is newer than their last request changed: queued again (revisit.ts).
        for (const row of await revisits.noteSitemap(tx, w.lastmod, w.urls)) fx.queued.push(row);
        return;
      case 'mark-clean-stop':
        await tx.stops.markCleanStop();
        return;
    }
  }
}
