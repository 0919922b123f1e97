/**
 * Where a FrontierWindow (frontier-window.ts) reads the frontier: the few reads it makes (WindowSource), and
 * those reads on the primary's CrawlStore (db/crawl-store.ts).
 */
import type { FrontierRow, QueueRead } from '../../db/frontier.ts';
import type { CrawlStore } from '../../db/crawl-store.ts';

/** Where the window reads the frontier (db/crawl-store.ts FrontierStore). */
export interface WindowSource {
  /** For each read, its host's queued rows after (`nextAttemptAt`, `id`) in its queue order, at most `limit`. */
  queuedAfterMany(reads: readonly QueueRead[]): Promise<FrontierRow[][]>;
  /** How many queued rows one host has. */
  queuedCount(origin: string): Promise<number>;
  /** Runs `read` in one read transaction (many small reads at once). */
  read(read: () => Promise<void>): Promise<void>;
}

/** The window's source on a CrawlStore: its frontier's reads, in the store's read transactions. */
export function storeWindowSource(store: Pick<CrawlStore, 'frontier' | 'read'>): WindowSource {
  return {
    queuedAfterMany: (reads) => store.frontier.queuedAfterMany(reads),
    queuedCount: (origin) => store.frontier.queuedCount(origin),
    read: (reads) => store.read(reads),
  };
}
