/**
 * The writes of a seed's life (the intents seed-lifecycle.ts decides: frontier-writes.ts), run inside the
 * transaction of the batch that applies them (crawler/coordination/intent-applier.ts routes them here):
 * a seed taken in (its URL queued, or everything it found queued again when it was submitted again), a
 * seed crawled again, a removed seed's URLs deleted and its pages taken out of search, the full-text
 * indexes compacted after. Each of these reads what it writes (a seed's URL known already, a chunk that
 * came back full), so it runs here, through the transaction's queries (`tx`, db/crawl-store.ts, each
 * awaited), and never decides for
 * another batch except by its follow-up intents. What it did is gathered in the batch's BatchEffects,
 * applied to memory only once the transaction committed: nothing in memory changes while a batch may
 * still roll back.
 */
import { FINISHED_STATES, type FrontierRow } from '../../db/frontier.ts';
import type { CrawlQueries } from '../../db/crawl-store.ts';
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

/** What a seed's writes read: the seed book (read only), and a refresh's choice; they write through the transaction's `tx`. */
export interface SeedWriteParts {
  seeds: Pick<SeedBook, 'get' | 'isRemoving'>;
  /**
   * A periodic refresh's choice: queues again the seed's pages that are due for their revisit
   * (frontier/revisit-book.ts), returning their rows. Without it a refresh queues them all.
   */
  requeueDue?(tx: CrawlQueries, seed: SeedInfo, now: number): Promise<FrontierRow[]>;
}

/** The seeds' intents, written (see the module comment). */
export class SeedWrites {
  constructor(private readonly parts: SeedWriteParts) {}

  /**
   * Writes one of the seeds' intents inside the applier's transaction at `now` (the commit's time);
   * what it did goes to `fx`, applied once the transaction committed (see the module comment).
   */
  async write(tx: CrawlQueries, w: FrontierWrite, now: number, fx: BatchEffects): Promise<void> {
    switch (w.kind) {
      case 'take-in-seeds':
        await this.takeInChunk(tx, w.seeds, w.from, w.recrawl, now, fx);
        return;
      case 'recrawl-seed':
        if (await this.recrawl(tx, w.seed, w.at, fx, w.all)) fx.recrawled++;
        return;
      case 'requeue-seed-chunk':
        await this.requeueLater(tx, w.seed, w.from, fx);
        return;
      case 'drop-seed-urls':
        await this.dropUrls(tx, w.seedId, fx);
        return;
      case 'retire-seed-pages':
        await this.retire(tx, w.seedId, fx);
        return;
      case 'compact-search':
        if (await tx.compactSearchIndexStep()) fx.followUps.push({ kind: 'compact-search' });
        return;
      default:
        throw new Error(`seed-writes: ${w.kind} is not a seed's write; the applier must route it elsewhere`);
    }
  }

  /**
   * Takes in SEED_CHUNK seeds of a change from `from` on, and queues the next chunk for the next batch; a
   * seed removed or changed again meanwhile is left to what came after (and a restart reads every seed
   * again, so none is lost to one). A new seed's URL is queued; one submitted again while known is crawled
   * again (`recrawl`). (A batch that rolls back runs again: a seed's URL queued already is not queued again.)
   */
  private async takeInChunk(
    tx: CrawlQueries,
    seeds: readonly SeedInfo[],
    from: number,
    recrawl: boolean,
    now: number,
    fx: BatchEffects,
  ): Promise<void> {
    const to = Math.min(seeds.length, from + SEED_CHUNK);
    for (let i = from; i < to; i++) {
      const s = seeds[i];
      if (this.parts.seeds.get(s.id)?.updatedAt !== s.updatedAt) continue;
      if (this.parts.seeds.isRemoving(s.id)) fx.revived.push(s.id); // back before its URLs were all deleted: they are its own again
      const added = await tx.frontier.addUrl(
        { url: s.url, origin: s.origin, seedId: s.id, depth: 0, redirects: 0 },
        now,
      );
      if (added) {
        fx.counted.push({ seedId: s.id, origin: s.origin });
        fx.queued.push(added);
        fx.sitemapsOf.push(s); // a host whose robots.txt is known already (else when it arrives)
      } else if (recrawl) {
        await this.recrawl(tx, s, now, fx); // submitted again
      }
    }
    if (to < seeds.length) fx.followUps.push({ kind: 'take-in-seeds', seeds, from: to, recrawl });
  }

  /**
   * Deletes URL_CHUNK URLs of a removed seed, and queues the next chunk for the batch after; it stops if
   * the seed was submitted again meanwhile (the URLs left are its own again).
   */
  private async dropUrls(tx: CrawlQueries, seedId: number, fx: BatchEffects): Promise<void> {
    if (!(await tx.seeds.isRemoved(seedId))) return;
    const rows = await tx.frontier.dropSeedChunk(seedId, URL_CHUNK);
    fx.deleted.push({ seedId, rows });
    if (rows.length === URL_CHUNK) {
      fx.followUps.push({ kind: 'drop-seed-urls', seedId });
      return;
    }
    fx.gone.push(seedId);
    await tx.seedHosts.forgetSeedHosts(seedId);
    await tx.seeds.deleteRemovedSeed(seedId); // unless pages of it are still leaving search (then the last chunk of those does)
  }

  /**
   * Takes a chunk of a removed seed's pages out of search (RETIRE_CHUNK pages, or RETIRE_BYTES of their
   * text, whichever comes first), and queues the next chunk for the batch after, until a chunk finds none,
   * so that a seed of 100,000 pages never holds the primary in one long transaction; the seed row goes
   * once its last page did, and the full-text indexes are compacted then, a step per batch. It stops if
   * the seed was submitted again meanwhile (the pages its new crawl stores are its own).
   */
  private async retire(tx: CrawlQueries, seedId: number, fx: BatchEffects): Promise<void> {
    if (!(await tx.seeds.isRemoved(seedId))) return;
    const n = await tx.pages.retireSeedPages(seedId, RETIRE_CHUNK, RETIRE_BYTES);
    fx.pagesRetired += n;
    if (n > 0) {
      fx.followUps.push({ kind: 'retire-seed-pages', seedId });
      fx.urgent = true;
    } else {
      await tx.seeds.deleteRemovedSeed(seedId);
      fx.followUps.push({ kind: 'compact-search' });
    }
  }

  /**
   * A seed crawled again: the seed and every URL it found within its depth are queued again (`all`: it was
   * submitted again, a person asked; the seed and a first chunk at once, the rest a chunk per batch) or
   * only those due for their revisit (a periodic refresh), and its sitemaps read again. False if nothing
   * of it was finished (its crawl is still going).
   */
  private async recrawl(tx: CrawlQueries, s: SeedInfo, now: number, fx: BatchEffects, all = true): Promise<boolean> {
    const seedRow = await tx.frontier.requeueUrl(s.url, 0, s.id);
    if (seedRow) fx.queued.push(seedRow);
    let rows: FrontierRow[];
    if (!all && this.parts.requeueDue) {
      rows = await this.parts.requeueDue(tx, s, now);
    } else {
      const first = await this.requeueChunk(tx, s, { state: 0, afterId: 0 });
      rows = first.rows;
      if (first.next) fx.followUps.push({ kind: 'requeue-seed-chunk', seed: s, from: first.next });
    }
    for (const row of rows) fx.queued.push(row);
    fx.sitemapsOf.push(s);
    return seedRow !== undefined || rows.length > 0;
  }

  /** Queues the next chunk of a seed's crawl again (unless the seed was removed meanwhile), and the next after. */
  private async requeueLater(tx: CrawlQueries, s: SeedInfo, from: RequeueCursor, fx: BatchEffects): Promise<void> {
    if (!this.parts.seeds.get(s.id)) return;
    const { rows, next } = await this.requeueChunk(tx, s, from);
    for (const row of rows) fx.queued.push(row);
    if (next) fx.followUps.push({ kind: 'requeue-seed-chunk', seed: s, from: next });
  }

  /** Queues again up to URL_CHUNK finished URLs of the seed from `from` on, state by state; `next`: where to go on, if anything may be left. */
  private async requeueChunk(
    tx: CrawlQueries,
    s: SeedInfo,
    from: RequeueCursor,
  ): Promise<{ rows: FrontierRow[]; next: RequeueCursor | undefined }> {
    const rows: FrontierRow[] = [];
    let { state, afterId } = from;
    while (state < FINISHED_STATES.length) {
      for (const row of await tx.frontier.requeueSeedChunk(
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
