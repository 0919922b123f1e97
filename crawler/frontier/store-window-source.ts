/** Where a FrontierWindow reads the frontier when the primary runs: its CrawlStore (db/crawl-store.ts). */
import type { CrawlStore } from '../../db/crawl-store.ts';
import type { WindowSource } from './frontier-window.ts';

/** The window's source on a CrawlStore: its frontier's reads, in the store's read transactions. */
export function storeWindowSource(store: Pick<CrawlStore, 'frontier' | 'read'>): WindowSource {
  return {
    queuedAfterMany: (reads) => store.frontier.queuedAfterMany(reads),
    queuedCount: (origin) => store.frontier.queuedCount(origin),
    read: (reads) => store.read(reads),
  };
}
