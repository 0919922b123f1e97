/**
 * The crawler primary's write intents: every database write a decision asks for, as data (a discriminated
 * union on `kind`). The frontier's (frontier/frontier-writes.ts) and the hosts' (politeness/host-writes.ts)
 * are declared with the parts that ask for them; pages' and the crawl's own are here. Parts return them,
 * never run them: intent-applier.ts writes a batch of them in one transaction (a switch over `kind`, through
 * the db/ query modules of its CrawlStore) and applies what they did to memory once it committed.
 */
import type { FetchedPageRecord } from './page-outcome.ts';
import type { PageAnchor } from '../common/protocol.ts';
import type { FrontierWrite } from '../frontier/frontier-writes.ts';
import type { HostWrite } from '../politeness/host-writes.ts';

/** A write of the pages table, its full-text entries and link targets, or the revisit book. */
export type PageWrite =
  /**
   * A page fetched and parsed: its row as decided (page-outcome.ts pageRecord) stored, stamped with the batch's
   * time (`fetchedAt` is set when the batch is written); its links' anchors gathered, its visit noted.
   */
  | { kind: 'store-page'; record: FetchedPageRecord; anchors: readonly PageAnchor[]; at: number }
  /** A conditional request answered 304: the stored page is current (as of the batch's time), its visit noted. */
  | { kind: 'page-current'; url: string; seedId: number; at: number }
  /** A page answered 404/410: out of search. */
  | { kind: 'page-gone'; url: string; status: number; at: number }
  /** A sitemap's `<lastmod>`s for its admitted entries: remembered, and pages changed since their last request queued again. */
  | { kind: 'sitemap-lastmod'; lastmod: Readonly<Record<string, number>>; urls: readonly string[] };

/** The mark that everything was stored: the last batch of a clean stop (db/crawler-stop.ts). */
export interface CleanStopWrite {
  kind: 'mark-clean-stop';
}

/** Any write the primary queues for its next batch. */
export type WriteIntent = FrontierWrite | HostWrite | PageWrite | CleanStopWrite;
