import type { frontierQueries, FrontierRow } from '../../db/frontier.ts';
import type { PageQueries } from '../../db/pages.ts';
import type { seedQueries } from '../../db/seeds.ts';
import type { UrlBudget } from './admission.ts';
import type { HostBudget } from './host-budget.ts';
import type { seedHostQueries } from '../../db/seed-hosts.ts';
import { seedsDueForRefresh } from './refresh.ts';
import type { SeedBook, SeedInfo } from './seed-book.ts';
import type { WriteBatch } from '../coordination/write-batch.ts';

/** Pages of a removed seed taken out of search per batch (about 0.2 ms each at 18 KB of text). */
export const RETIRE_CHUNK = 500;

/** What the seeds' life touches in the coordinator: its queries, its write batch, and two of its moves. */
export interface SeedLifecycleParts {
  seeds: SeedBook;
  seedsDb: ReturnType<typeof seedQueries>;
  frontier: ReturnType<typeof frontierQueries>;
  pages: PageQueries;
  writes: WriteBatch;
  budget: UrlBudget;
  /** The per-seed host budget, and where its figures are stored. */
  hostBudget: HostBudget;
  seedHosts: ReturnType<typeof seedHostQueries>;
  /** CRAWL_REFRESH in ms (0: never). */
  refreshMs: number;
  /** Puts a frontier row in its host's queue. */
  schedule(row: FrontierRow, now: number): void;
  /** Queues the sitemaps the seed's host lists, read for this seed (if its robots.txt is known). */
  readSitemaps(seed: SeedInfo): void;
  /** One bounded step of giving the removed pages' space back (db/search-compaction.ts); false once there is nothing left. */
  compactSearchIndexStep(): boolean;
  /**
   * A periodic refresh's choice: queues again the seed's pages that are due for their revisit
   * (frontier/revisit-book.ts), returning their rows. Without it a refresh queues them all.
   */
  requeueDue?(seed: SeedInfo, now: number): FrontierRow[];
}

/**
 * A seed's life as the crawler primary sees it: added (its URL queued), submitted again or due for its
 * refresh (everything it found within its depth queued again), removed (its work undone). The server
 * only writes the seeds table; this reads what changed there and acts on it.
 */
export class SeedLifecycle {
  /** Pages of removed seeds taken out of search, and URLs deleted per host, by the batch being written. */
  private pagesRetired = 0;
  private droppedUrls: Array<{ origin: string; n: number }> = [];
  private droppedSeeds: number[] = [];

  constructor(private readonly p: SeedLifecycleParts) {}

  /**
   * Reads seeds users added, changed or removed. A new seed's URL is queued; a seed submitted again
   * while running is crawled again, with every URL it found within its depth (conditionally where the
   * stored page has validators); at start (`recrawl` false) known seeds are only loaded, so a restart
   * does not re-fetch every seed.
   */
  sync(now: number, recrawl: boolean): void {
    const { changed, removed } = this.p.seeds.apply(this.p.seedsDb.seedsChangedSince(this.p.seeds.cursor));
    for (const s of removed) this.remove(s);
    for (const s of changed) {
      const added = this.p.frontier.addUrl({ url: s.url, origin: s.origin, seedId: s.id, depth: 0, redirects: 0 }, now);
      if (added) {
        this.p.budget.record(s.origin);
        this.p.hostBudget.record(s.id, s.origin);
        this.p.schedule(added, now);
        this.p.readSitemaps(s); // a host whose robots.txt is known already (else when it arrives)
      } else if (recrawl) {
        this.recrawl(s, now); // submitted again
      }
    }
  }

  /**
   * Queues again every seed due for its periodic refresh (CRAWL_REFRESH, see crawler/frontier/refresh.ts): its
   * page and its sitemaps, and of the pages it found only those due for their revisit (requeueDue); returns how many were.
   */
  refresh(now: number): number {
    let queued = 0;
    for (const id of seedsDueForRefresh(this.p.frontier.seedCrawls(), now, this.p.refreshMs)) {
      const seed = this.p.seeds.get(id);
      if (seed) queued += this.recrawl(seed, now, false) ? 1 : 0;
    }
    return queued;
  }

  /** The batch committed: the URL budget forgets the deleted URLs; returns the pages it took out of search. */
  committed(): number {
    this.p.budget.forget(this.droppedUrls);
    for (const id of this.droppedSeeds) this.p.hostBudget.forgetSeed(id);
    const retired = this.pagesRetired;
    this.droppedUrls = [];
    this.droppedSeeds = [];
    this.pagesRetired = 0;
    return retired;
  }

  /** The batch rolled back: what it counted is counted again when its writes run again. */
  rolledBack(): void {
    this.droppedUrls = [];
    this.droppedSeeds = [];
    this.pagesRetired = 0;
  }

  /**
   * A seed the person removed (gone from the SeedBook already, so the coordinator drops its queued jobs
   * as they come up and does not store its results in flight): the next batch deletes its URLs, takes
   * its pages out of search and deletes its row. Other seeds' URLs and pages stay, even on the same host.
   */
  private remove(s: SeedInfo): void {
    this.p.writes.push(() => {
      this.droppedUrls.push(...this.p.frontier.dropSeed(s.id));
      this.p.seedHosts.forgetSeedHosts(s.id);
      this.droppedSeeds.push(s.id);
    });
    this.retire(s.id);
  }

  /**
   * Takes RETIRE_CHUNK pages of a removed seed out of search in the next batch, and the next chunk in
   * the batch after, so that a seed of 100,000 pages never holds the primary in one long transaction;
   * the seed row goes once its last page did. It stops if the seed was submitted again meanwhile (the
   * pages its new crawl stores are its own). (A batch that rolls back runs again, queueing its follow-up
   * twice: harmless, a chunk of nothing deletes nothing twice.)
   */
  private retire(seedId: number): void {
    this.p.writes.push(() => {
      if (!this.p.seedsDb.isRemoved(seedId)) return;
      const n = this.p.pages.retireSeedPages(seedId, RETIRE_CHUNK);
      this.pagesRetired += n;
      if (n === RETIRE_CHUNK) this.retire(seedId);
      else {
        this.p.seedsDb.deleteRemovedSeed(seedId);
        this.compact();
      }
    });
    this.p.writes.markUrgent();
  }

  /**
   * The removed pages' entries in the full-text indexes are merged away, one bounded step per batch, so
   * their space is used again (and a crawl paused for CRAWL_MAX_DB_SIZE can resume).
   */
  private compact(): void {
    this.p.writes.push(() => {
      if (this.p.compactSearchIndexStep()) this.compact();
    });
  }

  /**
   * A seed crawled again: the seed and every URL it found within its depth are queued again (`all`: it was
   * submitted again, a person asked) or only those due for their revisit (a periodic refresh), and its
   * sitemaps read again. False if nothing of it was finished (its crawl is still going).
   */
  private recrawl(s: SeedInfo, now: number, all = true): boolean {
    const seedRow = this.p.frontier.requeueUrl(s.url, 0, s.id);
    if (seedRow) this.p.schedule(seedRow, now);
    const rows = all || !this.p.requeueDue ? this.p.frontier.requeueSeed(s.id, s.depth) : this.p.requeueDue(s, now);
    for (const row of rows) this.p.schedule(row, now);
    this.p.readSitemaps(s);
    return seedRow !== undefined || rows.length > 0;
  }
}
