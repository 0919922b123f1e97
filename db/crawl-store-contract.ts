/**
 * The crawler's storage contract, as one suite of tests that every engine's AsyncCrawlStore must pass
 * (called by db/crawl-store-contract.test.ts with SQLite and db/pg/pg-crawl-store.test.ts with PostgreSQL):
 * what the frontier, hosts, pages, link targets, revisits, sitemap jobs, seeds' host counts and the stop mark
 * answer and leave, on a fresh database per test. Writes run in the store's transactions (as the primary
 * writes its batches) unless a test says otherwise; row ids are compared by their order, not their values
 * (PostgreSQL's identities skip the ids of inserts that met a known row).
 */
import { pageContract } from './crawl-contract-pages.ts';
import { recordContract } from './crawl-contract-records.ts';
import { frontierContract } from './crawl-contract-frontier.ts';
import { storePageContract } from './crawl-contract-store-page.ts';
import { contractKit, type CrawlContractFixture } from './crawl-store-contract-kit.ts';

export type { CrawlContractFixture } from './crawl-store-contract-kit.ts';

/** Registers the contract's tests, each on a fixture `open` makes (and closes). */
export function crawlStoreContract(engine: string, open: () => Promise<CrawlContractFixture>): void {
  const kit = contractKit(engine, open);
  frontierContract(kit);
  recordContract(kit);
  pageContract(kit);
  storePageContract(kit);
}
