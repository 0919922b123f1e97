/**
 * A seed's life as the crawler primary sees it: added (its URL queued), submitted again or due for its
 * refresh (everything it found within its depth queued again), removed (its work undone). The server
 * only writes the seeds table; this reads what changed there and decides, as write intents
 * (frontier-writes.ts). It writes nothing: the applier (crawler/coordination/intent-applier.ts) writes the
 * intents, those of a seed through seed-writes.ts.
 */
import type { CrawlQueries } from '../../db/crawl-store.ts';
import { seedsDueForRefresh } from './refresh.ts';
import type { SeedBook, SeedInfo } from './seed-book.ts';
import type { FrontierWrite } from './frontier-writes.ts';

/** What the seeds' life reads: the seed book (it takes the changed rows in), and the seeds' and seeds' crawls' queries. */
export interface SeedLifecycleParts {
  seeds: SeedBook;
  seedsDb: Pick<CrawlQueries['seeds'], 'seedsChangedSince'>;
  frontier: Pick<CrawlQueries['frontier'], 'seedCrawls'>;
  /** CRAWL_REFRESH in ms (0: never). */
  refreshMs: number;
  /**
   * Several crawler nodes read the seeds (PostgreSQL, issue 29): a seed new to this node is taken in without a
   * recrawl (another node may have taken it in already); only one submitted again while known is crawled again.
   */
  shared?: boolean;
}

/** What a sync of the seeds decided: seeds removed (their jobs leave the queues at once), and writes. */
export interface SeedSync {
  removed: SeedInfo[];
  /** Written at once, in a transaction of their own (the first SEED_CHUNK seeds taken in: seed-writes.ts). */
  atOnce: FrontierWrite[];
  /** Queued for the next batch (a removed seed's URLs and pages, a chunk per batch), which is then urgent. */
  queued: FrontierWrite[];
}

/** The decisions of a seed's life (see the module comment). */
export class SeedLifecycle {
  constructor(private readonly parts: SeedLifecycleParts) {}

  /**
   * Reads seeds users added, changed or removed. A new seed's URL is queued; a seed submitted again
   * while running is crawled again, with every URL it found within its depth (conditionally where the
   * stored page has validators); at start (`recrawl` false) known seeds are only loaded, so a restart
   * does not re-fetch every seed. SEED_CHUNK seeds are taken in at once, the rest a chunk per batch.
   */
  async sync(recrawl: boolean): Promise<SeedSync> {
    const { seeds, seedsDb } = this.parts;
    const rows = await seedsDb.seedsChangedSince(seeds.cursor);
    const knew = new Set(rows.filter((r) => seeds.get(r.id) !== undefined).map((r) => r.id));
    const { changed, removed } = seeds.apply(rows);
    const queued: FrontierWrite[] = [];
    for (const s of removed)
      queued.push({ kind: 'drop-seed-urls', seedId: s.id }, { kind: 'retire-seed-pages', seedId: s.id });
    const atOnce: FrontierWrite[] = [];
    const fresh = this.parts.shared ? changed.filter((s) => !knew.has(s.id)) : [];
    const again = this.parts.shared ? changed.filter((s) => knew.has(s.id)) : changed;
    if (fresh.length > 0) atOnce.push({ kind: 'take-in-seeds', seeds: fresh, from: 0, recrawl: false });
    if (again.length > 0) atOnce.push({ kind: 'take-in-seeds', seeds: again, from: 0, recrawl });
    return { removed, atOnce, queued };
  }

  /**
   * Queues again every seed due for its periodic refresh (CRAWL_REFRESH, see crawler/frontier/refresh.ts): its
   * page and its sitemaps, and of the pages it found only those due for their revisit (seed-writes.ts).
   */
  async refresh(now: number): Promise<FrontierWrite[]> {
    const due: FrontierWrite[] = [];
    for (const id of seedsDueForRefresh(await this.parts.frontier.seedCrawls(), now, this.parts.refreshMs)) {
      const seed = this.parts.seeds.get(id);
      if (seed) due.push({ kind: 'recrawl-seed', seed, all: false, at: now });
    }
    return due;
  }
}
