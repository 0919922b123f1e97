import { FINISHED_STATES, type DroppedUrl, type frontierQueries, type FrontierRow } from '../../db/frontier.ts';
import type { PageQueries } from '../../db/pages.ts';
import type { seedQueries } from '../../db/seeds.ts';
import type { UrlBudget } from './admission.ts';
import type { HostBudget } from './host-budget.ts';
import type { seedHostQueries } from '../../db/seed-hosts.ts';
import { seedsDueForRefresh } from './refresh.ts';
import type { SeedBook, SeedInfo } from './seed-book.ts';
import type { WriteBatch } from '../coordination/write-batch.ts';
import type { FrontierWindow } from './frontier-window.ts';

/** Pages of a removed seed taken out of search per batch, at most (short pages: see RETIRE_BYTES). */
export const RETIRE_CHUNK = 500;

/**
 * The searchable text (bytes of body and identifiers) of a removed seed's pages taken out of search per
 * batch, at most: taking a page out of the full-text indexes tokenizes its text again, so a chunk costs
 * its text, not its count of pages. Measured on this 2-core machine: 500 pages of 28 KB with a wide
 * vocabulary took 0.8-1.3 s of CPU in one batch (1.4-2.9 ms a page), a stall of every other host's
 * dispatch; pages of ordinary prose about 0.2 ms per 18 KB. 512 KB is about 25 ms of CPU at the worst.
 */
export const RETIRE_BYTES = 512 * 1024;

/**
 * URLs of a removed seed deleted per batch, and URLs of a seed crawled again queued again per batch, so
 * that a seed of 100,000 URLs never holds the primary (and every other host's dispatch) in one long
 * statement: a row costs about 75 µs of CPU to delete from the frontier and its indexes at 1,000,000
 * URLs on a busy 2-core machine (`npm run bench:frontier`, docs/benchmarks.md). The batches holding
 * chunks are not urgent: a chunk rides each flush (PRIMARY_TIMING.flushMs apart). Urgent, they were
 * flushed after every result, one dispatch per chunk: removing 100,000 URLs took 18 s during which other
 * hosts got 512 jobs instead of about 40,000 (bench:frontier, fake workers answering at once).
 */
export const URL_CHUNK = 200;

/**
 * Seeds new or submitted again taken in per batch: an import of 10,000 bookmarks (50,000 at most) is
 * read at once into the SeedBook, but its URLs are queued a chunk at once and a chunk per batch
 * after, not in one step of the primary's thread (measured on the loaded 2-core machine: 10,000 seeds in
 * one step took 0.5 s of CPU, 1.4 s of wall time, while no other host was dispatched; a chunk of 200 new
 * hosts' seeds took 30-50 ms, so a chunk is 100).
 */
export const SEED_CHUNK = 100;

/** Where a seed's crawl again has got to: the finished state being queued again, and the last id done. */
interface RequeueCursor {
  state: number;
  afterId: number;
}

/** What to do with what a seed's intake queued: at once, or once the batch that wrote it committed. */
interface AfterQueue {
  /** A frontier row queued. */
  place(row: FrontierRow): void;
  /** The seed's sitemaps to read. */
  sitemaps(seed: SeedInfo): void;
  /** A URL of seed `seedId` new on `origin` (the URL budget, and the seed's host budget). */
  count(seedId: number, origin: string): void;
}

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
  /** The frontier's window (told of a seed removed, of its URLs deleted, and of a removed seed that came back). */
  window: Pick<FrontierWindow, 'seedRemoved' | 'deleted' | 'revived' | 'forgetSeed'>;
  /** CRAWL_REFRESH in ms (0: never). */
  refreshMs: number;
  /** Puts a frontier row (committed as queued) in its host's queue. */
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
  /** What the batch being written did: pages of removed seeds taken out of search, URLs deleted, URLs queued (again), seeds whose URLs are all gone. */
  private pagesRetired = 0;
  private deleted: Array<{ seedId: number; rows: DroppedUrl[] }> = [];
  private requeued: FrontierRow[] = [];
  /** Seeds taken in by the batch being written: their sitemaps are read once it committed. */
  private sitemapsOf: SeedInfo[] = [];
  /** Hosts (and seeds) of URLs the batch being written queued, counted in the budgets once it committed. */
  private added: Array<{ seedId: number; origin: string }> = [];
  private gone: number[] = [];
  /** Removed seeds whose URLs are still being deleted. */
  private readonly removing = new Set<number>();

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
    for (const s of changed.slice(0, SEED_CHUNK)) this.takeIn(s, now, recrawl, this.atOnce(now));
    if (changed.length > SEED_CHUNK) this.takeInLater(changed, SEED_CHUNK, recrawl);
  }

  /** What is queued in a step of its own (not in a batch): scheduled, counted and its sitemaps read at once. */
  private atOnce(now: number): AfterQueue {
    return {
      place: (row) => this.p.schedule(row, now),
      sitemaps: (seed) => this.p.readSitemaps(seed),
      count: (seedId, origin) => this.record(seedId, origin),
    };
  }

  /** A URL of `seedId` new on `origin`, in both budgets. */
  private record(seedId: number, origin: string): void {
    this.p.budget.record(origin);
    this.p.hostBudget.record(seedId, origin);
  }

  /**
   * A seed new or submitted again: its URL queued (a new one), or its crawl again (`recrawl`: one submitted
   * again while known). `then` says what to do with what it queued: at once, or once its batch committed.
   */
  private takeIn(s: SeedInfo, now: number, recrawl: boolean, then: AfterQueue): void {
    if (this.removing.delete(s.id)) this.p.window.revived(s.id); // back before its URLs were all deleted: they are its own again
    const added = this.p.frontier.addUrl({ url: s.url, origin: s.origin, seedId: s.id, depth: 0, redirects: 0 }, now);
    if (added) {
      then.count(s.id, s.origin);
      then.place(added);
      then.sitemaps(s); // a host whose robots.txt is known already (else when it arrives)
    } else if (recrawl) {
      this.recrawl(s, now, then); // submitted again
    }
  }

  /**
   * Takes in SEED_CHUNK seeds of a long change (an import) from `from` on in the next batch, and the rest a
   * chunk per batch after; a seed removed or changed again meanwhile is left to what came after (and a
   * restart reads every seed again, so none is lost to one). What they queued is scheduled, counted and
   * their sitemaps read once the batch committed. (A batch that rolls back runs again, queueing its
   * follow-up twice: a seed's URL queued already is not queued again.)
   */
  private takeInLater(seeds: readonly SeedInfo[], from: number, recrawl: boolean): void {
    this.p.writes.push((now) => {
      const later: AfterQueue = {
        place: (row) => this.requeued.push(row),
        sitemaps: (seed) => this.sitemapsOf.push(seed),
        count: (seedId, origin) => this.added.push({ seedId, origin }),
      };
      const to = Math.min(seeds.length, from + SEED_CHUNK);
      for (let i = from; i < to; i++) {
        const s = seeds[i];
        if (this.p.seeds.get(s.id)?.updatedAt === s.updatedAt) this.takeIn(s, now, recrawl, later);
      }
      if (to < seeds.length) this.takeInLater(seeds, to, recrawl);
    });
  }

  /**
   * Queues again every seed due for its periodic refresh (CRAWL_REFRESH, see crawler/frontier/refresh.ts): its
   * page and its sitemaps, and of the pages it found only those due for their revisit (requeueDue); returns how many were.
   */
  refresh(now: number): number {
    let queued = 0;
    for (const id of seedsDueForRefresh(this.p.frontier.seedCrawls(), now, this.p.refreshMs)) {
      const seed = this.p.seeds.get(id);
      if (seed) queued += this.recrawl(seed, now, this.atOnce(now), false) ? 1 : 0;
    }
    return queued;
  }

  /**
   * The batch committed: the URL budget and the window forget the deleted URLs, the URLs queued again
   * join their hosts' queues; returns the pages it took out of search.
   */
  committed(now: number): number {
    const perOrigin = new Map<string, number>();
    for (const { seedId, rows } of this.deleted) {
      for (const r of rows) perOrigin.set(r.origin, (perOrigin.get(r.origin) ?? 0) + 1);
      this.p.window.deleted(seedId, rows);
    }
    this.p.budget.forget([...perOrigin].map(([origin, n]) => ({ origin, n })));
    for (const { seedId, origin } of this.added) this.record(seedId, origin);
    for (const row of this.requeued) this.p.schedule(row, now);
    for (const seed of this.sitemapsOf) this.p.readSitemaps(seed);
    for (const id of this.gone) {
      this.removing.delete(id);
      this.p.window.forgetSeed(id);
      this.p.hostBudget.forgetSeed(id);
    }
    const retired = this.pagesRetired;
    this.rolledBack();
    return retired;
  }

  /** The batch rolled back: what it counted is counted again when its writes run again. */
  rolledBack(): void {
    this.deleted = [];
    this.requeued = [];
    this.sitemapsOf = [];
    this.added = [];
    this.gone = [];
    this.pagesRetired = 0;
  }

  /**
   * A seed the person removed (gone from the SeedBook already, so its queued jobs leave the hosts' queues
   * and the coordinator does not store its results in flight): the next batches delete its URLs and take
   * its pages out of search, a chunk of each per batch, and the last of them deletes its row. Other seeds'
   * URLs and pages stay, even on the same host.
   */
  private remove(s: SeedInfo): void {
    this.removing.add(s.id);
    this.p.window.seedRemoved(s.id); // its jobs leave the hosts' queues now
    this.dropUrls(s.id);
    this.retire(s.id);
  }

  /**
   * Deletes URL_CHUNK URLs of a removed seed in the next batch, and the next chunk in the batch after; it
   * stops if the seed was submitted again meanwhile (the URLs left are its own again).
   */
  private dropUrls(seedId: number): void {
    this.p.writes.push(() => {
      if (!this.p.seedsDb.isRemoved(seedId)) return;
      const rows = this.p.frontier.dropSeedChunk(seedId, URL_CHUNK);
      this.deleted.push({ seedId, rows });
      if (rows.length === URL_CHUNK) {
        this.dropUrls(seedId);
        return;
      }
      this.gone.push(seedId);
      this.p.seedHosts.forgetSeedHosts(seedId);
      this.p.seedsDb.deleteRemovedSeed(seedId); // unless pages of it are still leaving search (then the last chunk of those does)
    });
  }

  /**
   * Takes a chunk of a removed seed's pages out of search in the next batch (RETIRE_CHUNK pages, or
   * RETIRE_BYTES of their text, whichever comes first), and the next chunk in the batch after, until a
   * chunk finds none, so that a seed of 100,000 pages never holds the primary in one long transaction;
   * the seed row goes once its last page did. It stops if the seed was submitted again meanwhile (the
   * pages its new crawl stores are its own). (A batch that rolls back runs again, queueing its follow-up
   * twice: harmless, a chunk of nothing deletes nothing twice.)
   */
  private retire(seedId: number): void {
    this.p.writes.push(() => {
      if (!this.p.seedsDb.isRemoved(seedId)) return;
      const n = this.p.pages.retireSeedPages(seedId, RETIRE_CHUNK, RETIRE_BYTES);
      this.pagesRetired += n;
      if (n > 0) this.retire(seedId);
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
   * submitted again, a person asked; the seed and a first chunk at once, the rest a chunk per batch) or
   * only those due for their revisit (a periodic refresh), and its sitemaps read again. False if nothing
   * of it was finished (its crawl is still going).
   */
  private recrawl(s: SeedInfo, now: number, then: AfterQueue = this.atOnce(now), all = true): boolean {
    const seedRow = this.p.frontier.requeueUrl(s.url, 0, s.id);
    if (seedRow) then.place(seedRow);
    let rows: FrontierRow[];
    if (!all && this.p.requeueDue) {
      rows = this.p.requeueDue(s, now);
    } else {
      const first = this.requeueChunk(s, { state: 0, afterId: 0 });
      rows = first.rows;
      if (first.next) this.requeueLater(s, first.next);
    }
    for (const row of rows) then.place(row);
    then.sitemaps(s);
    return seedRow !== undefined || rows.length > 0;
  }

  /** Queues the next chunk of a seed's crawl again in the next batch (unless the seed was removed meanwhile), and so on. */
  private requeueLater(s: SeedInfo, from: RequeueCursor): void {
    this.p.writes.push(() => {
      if (!this.p.seeds.get(s.id)) return;
      const { rows, next } = this.requeueChunk(s, from);
      for (const row of rows) this.requeued.push(row);
      if (next) this.requeueLater(s, next);
    });
  }

  /** Queues again up to URL_CHUNK finished URLs of the seed from `from` on, state by state; `next`: where to go on, if anything may be left. */
  private requeueChunk(s: SeedInfo, from: RequeueCursor): { rows: FrontierRow[]; next: RequeueCursor | undefined } {
    const rows: FrontierRow[] = [];
    let { state, afterId } = from;
    while (state < FINISHED_STATES.length) {
      for (const row of this.p.frontier.requeueSeedChunk(
        s.id,
        s.depth,
        FINISHED_STATES[state],
        afterId,
        URL_CHUNK - rows.length,
      )) {
        rows.push(row);
        afterId = Math.max(afterId, row.id);
      }
      if (rows.length === URL_CHUNK) return { rows, next: { state, afterId } };
      state++;
      afterId = 0;
    }
    return { rows, next: undefined };
  }
}
