import { FINISHED_STATES, type frontierQueries, type FrontierRow } from '../../db/frontier.ts';
import type { PageQueries } from '../../db/pages.ts';
import type { seedQueries } from '../../db/seeds.ts';
import type { seedHostQueries } from '../../db/seed-hosts.ts';
import { seedsDueForRefresh } from './refresh.ts';
import type { SeedBook, SeedInfo } from './seed-book.ts';
import type { FrontierWrite, RequeueCursor } from './frontier-writes.ts';
import type { BatchEffects } from './batch-effects.ts';

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

/** What the seeds' life reads and writes: the seed book, and the queries its writes run through. */
export interface SeedLifecycleParts {
  seeds: SeedBook;
  seedsDb: Pick<ReturnType<typeof seedQueries>, 'seedsChangedSince' | 'isRemoved' | 'deleteRemovedSeed'>;
  frontier: Pick<
    ReturnType<typeof frontierQueries>,
    'addUrl' | 'requeueUrl' | 'requeueSeedChunk' | 'dropSeedChunk' | 'seedCrawls'
  >;
  pages: Pick<PageQueries, 'retireSeedPages'>;
  seedHosts: Pick<ReturnType<typeof seedHostQueries>, 'forgetSeedHosts'>;
  /** CRAWL_REFRESH in ms (0: never). */
  refreshMs: number;
  /** One bounded step of giving the removed pages' space back (db/search-compaction.ts); false once there is nothing left. */
  compactSearchIndexStep(): boolean;
  /**
   * A periodic refresh's choice: queues again the seed's pages that are due for their revisit
   * (frontier/revisit-book.ts), returning their rows. Without it a refresh queues them all.
   */
  requeueDue?(seed: SeedInfo, now: number): FrontierRow[];
}

/** What a sync of the seeds decided: seeds removed (their jobs leave the queues at once), and writes. */
export interface SeedSync {
  removed: SeedInfo[];
  /** Written in the sync's own transaction (the first SEED_CHUNK seeds taken in). */
  atOnce: FrontierWrite[];
  /** Queued for the next batch (a removed seed's URLs and pages, a chunk per batch), which is then urgent. */
  queued: FrontierWrite[];
}

/**
 * A seed's life as the crawler primary sees it: added (its URL queued), submitted again or due for its
 * refresh (everything it found within its depth queued again), removed (its work undone). The server
 * only writes the seeds table; this reads what changed there and decides, as write intents
 * (frontier-writes.ts). The writes of those intents that span chunks are written here (`write`), inside the
 * transaction of the batch that applies them, and what they did is gathered in its BatchEffects for after
 * the commit: nothing in memory changes while a batch may still roll back.
 */
export class SeedLifecycle {
  /** Removed seeds whose URLs are still being deleted. */
  private readonly removing = new Set<number>();

  private readonly seeds: SeedBook;
  private readonly seedsDb: SeedLifecycleParts['seedsDb'];
  private readonly frontier: SeedLifecycleParts['frontier'];
  private readonly pages: SeedLifecycleParts['pages'];
  private readonly seedHosts: SeedLifecycleParts['seedHosts'];
  private readonly refreshMs: number;
  private readonly compactSearchIndexStep: () => boolean;
  private readonly requeueDue: SeedLifecycleParts['requeueDue'];

  constructor(parts: SeedLifecycleParts) {
    this.seeds = parts.seeds;
    this.seedsDb = parts.seedsDb;
    this.frontier = parts.frontier;
    this.pages = parts.pages;
    this.seedHosts = parts.seedHosts;
    this.refreshMs = parts.refreshMs;
    this.compactSearchIndexStep = parts.compactSearchIndexStep;
    this.requeueDue = parts.requeueDue;
  }

  /**
   * Reads seeds users added, changed or removed. A new seed's URL is queued; a seed submitted again
   * while running is crawled again, with every URL it found within its depth (conditionally where the
   * stored page has validators); at start (`recrawl` false) known seeds are only loaded, so a restart
   * does not re-fetch every seed. SEED_CHUNK seeds are taken in at once, the rest a chunk per batch.
   */
  sync(recrawl: boolean): SeedSync {
    const { changed, removed } = this.seeds.apply(this.seedsDb.seedsChangedSince(this.seeds.cursor));
    const queued: FrontierWrite[] = [];
    for (const s of removed) {
      this.removing.add(s.id);
      queued.push({ kind: 'drop-seed-urls', seedId: s.id }, { kind: 'retire-seed-pages', seedId: s.id });
    }
    const atOnce: FrontierWrite[] =
      changed.length > 0 ? [{ kind: 'take-in-seeds', seeds: changed, from: 0, recrawl }] : [];
    return { removed, atOnce, queued };
  }

  /**
   * Queues again every seed due for its periodic refresh (CRAWL_REFRESH, see crawler/frontier/refresh.ts): its
   * page and its sitemaps, and of the pages it found only those due for their revisit (requeueDue).
   */
  refresh(now: number): FrontierWrite[] {
    const due: FrontierWrite[] = [];
    for (const id of seedsDueForRefresh(this.frontier.seedCrawls(), now, this.refreshMs)) {
      const seed = this.seeds.get(id);
      if (seed) due.push({ kind: 'recrawl-seed', seed, all: false, at: now });
    }
    return due;
  }

  /**
   * Writes one of the seeds' intents inside the applier's transaction at `now` (the commit's time);
   * what it did goes to `fx`, applied once the transaction committed (see the class comment).
   */
  write(w: FrontierWrite, now: number, fx: BatchEffects): void {
    switch (w.kind) {
      case 'take-in-seeds':
        this.takeInChunk(w.seeds, w.from, w.recrawl, now, fx);
        return;
      case 'recrawl-seed':
        if (this.recrawl(w.seed, w.at, fx, w.all)) fx.recrawled++;
        return;
      case 'requeue-seed-chunk':
        this.requeueLater(w.seed, w.from, fx);
        return;
      case 'drop-seed-urls':
        this.dropUrls(w.seedId, fx);
        return;
      case 'retire-seed-pages':
        this.retire(w.seedId, fx);
        return;
      case 'compact-search':
        if (this.compactSearchIndexStep()) fx.followUps.push({ kind: 'compact-search' });
        return;
      default:
        throw new Error(`seed-lifecycle: ${w.kind} is not a seed's write; the applier routes it elsewhere`);
    }
  }

  /**
   * The batch that deleted a removed seed's last URLs committed: nothing of it is left to delete; false if
   * it came back meanwhile.
   */
  forgetRemoved(seedId: number): void {
    this.removing.delete(seedId);
  }

  /**
   * Takes in SEED_CHUNK seeds of a change from `from` on, and queues the next chunk for the next batch; a
   * seed removed or changed again meanwhile is left to what came after (and a restart reads every seed
   * again, so none is lost to one). A new seed's URL is queued; one submitted again while known is crawled
   * again (`recrawl`). (A batch that rolls back runs again: a seed's URL queued already is not queued again.)
   */
  private takeInChunk(seeds: readonly SeedInfo[], from: number, recrawl: boolean, now: number, fx: BatchEffects) {
    const to = Math.min(seeds.length, from + SEED_CHUNK);
    for (let i = from; i < to; i++) {
      const s = seeds[i];
      if (this.seeds.get(s.id)?.updatedAt !== s.updatedAt) continue;
      if (this.removing.has(s.id)) fx.revived.push(s.id); // back before its URLs were all deleted: they are its own again
      const added = this.frontier.addUrl({ url: s.url, origin: s.origin, seedId: s.id, depth: 0, redirects: 0 }, now);
      if (added) {
        fx.counted.push({ seedId: s.id, origin: s.origin });
        fx.queued.push(added);
        fx.sitemapsOf.push(s); // a host whose robots.txt is known already (else when it arrives)
      } else if (recrawl) {
        this.recrawl(s, now, fx); // submitted again
      }
    }
    if (to < seeds.length) fx.followUps.push({ kind: 'take-in-seeds', seeds, from: to, recrawl });
  }

  /** A removed seed came back (its revival committed): its URLs being deleted are its own again. */
  revive(seedId: number): boolean {
    return this.removing.delete(seedId);
  }

  /**
   * Deletes URL_CHUNK URLs of a removed seed, and queues the next chunk for the batch after; it stops if
   * the seed was submitted again meanwhile (the URLs left are its own again).
   */
  private dropUrls(seedId: number, fx: BatchEffects): void {
    if (!this.seedsDb.isRemoved(seedId)) return;
    const rows = this.frontier.dropSeedChunk(seedId, URL_CHUNK);
    fx.deleted.push({ seedId, rows });
    if (rows.length === URL_CHUNK) {
      fx.followUps.push({ kind: 'drop-seed-urls', seedId });
      return;
    }
    fx.gone.push(seedId);
    this.seedHosts.forgetSeedHosts(seedId);
    this.seedsDb.deleteRemovedSeed(seedId); // unless pages of it are still leaving search (then the last chunk of those does)
  }

  /**
   * Takes a chunk of a removed seed's pages out of search (RETIRE_CHUNK pages, or RETIRE_BYTES of their
   * text, whichever comes first), and queues the next chunk for the batch after, until a chunk finds none,
   * so that a seed of 100,000 pages never holds the primary in one long transaction; the seed row goes
   * once its last page did, and the full-text indexes are compacted then, a step per batch. It stops if
   * the seed was submitted again meanwhile (the pages its new crawl stores are its own).
   */
  private retire(seedId: number, fx: BatchEffects): void {
    if (!this.seedsDb.isRemoved(seedId)) return;
    const n = this.pages.retireSeedPages(seedId, RETIRE_CHUNK, RETIRE_BYTES);
    fx.pagesRetired += n;
    if (n > 0) {
      fx.followUps.push({ kind: 'retire-seed-pages', seedId });
      fx.urgent = true;
    } else {
      this.seedsDb.deleteRemovedSeed(seedId);
      fx.followUps.push({ kind: 'compact-search' });
    }
  }

  /**
   * A seed crawled again: the seed and every URL it found within its depth are queued again (`all`: it was
   * submitted again, a person asked; the seed and a first chunk at once, the rest a chunk per batch) or
   * only those due for their revisit (a periodic refresh), and its sitemaps read again. False if nothing
   * of it was finished (its crawl is still going).
   */
  private recrawl(s: SeedInfo, now: number, fx: BatchEffects, all = true): boolean {
    const seedRow = this.frontier.requeueUrl(s.url, 0, s.id);
    if (seedRow) fx.queued.push(seedRow);
    let rows: FrontierRow[];
    if (!all && this.requeueDue) {
      rows = this.requeueDue(s, now);
    } else {
      const first = this.requeueChunk(s, { state: 0, afterId: 0 });
      rows = first.rows;
      if (first.next) fx.followUps.push({ kind: 'requeue-seed-chunk', seed: s, from: first.next });
    }
    for (const row of rows) fx.queued.push(row);
    fx.sitemapsOf.push(s);
    return seedRow !== undefined || rows.length > 0;
  }

  /** Queues the next chunk of a seed's crawl again (unless the seed was removed meanwhile), and the next after. */
  private requeueLater(s: SeedInfo, from: RequeueCursor, fx: BatchEffects): void {
    if (!this.seeds.get(s.id)) return;
    const { rows, next } = this.requeueChunk(s, from);
    for (const row of rows) fx.queued.push(row);
    if (next) fx.followUps.push({ kind: 'requeue-seed-chunk', seed: s, from: next });
  }

  /** Queues again up to URL_CHUNK finished URLs of the seed from `from` on, state by state; `next`: where to go on, if anything may be left. */
  private requeueChunk(s: SeedInfo, from: RequeueCursor): { rows: FrontierRow[]; next: RequeueCursor | undefined } {
    const rows: FrontierRow[] = [];
    let { state, afterId } = from;
    while (state < FINISHED_STATES.length) {
      for (const row of this.frontier.requeueSeedChunk(
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
