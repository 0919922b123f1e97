/**
 * What the crawler's storage contract (db/crawl-store-contract.ts) is written with: the fixture an engine's
 * runner makes, the contract's clock, hosts and page record, and the helpers every part of it uses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { AsyncCrawlModules, AsyncCrawlStore } from './async-crawl-store.ts';
import type { FrontierRow } from './frontier.ts';
import type { PageRecord } from './pages.ts';

/** A fresh database of one engine, with its store and plain SQL to look at what it left. */
export interface CrawlContractFixture {
  store: AsyncCrawlStore;
  /** Rows of one SQL statement without parameters (literal values only: both engines take it). */
  rows(sql: string): Promise<Array<Record<string, unknown>>>;
  close(): Promise<void>;
}

/** The contract's clock and hosts. */
export const T0 = 1_700_000_000_000;
export const O = 'https://example.org';
export const O2 = 'https://other.example.org';
export const O3 = 'https://third.example.org';
/** A URL on `origin`. */
export const U = (path: string, origin = O) => `${origin}/${path}`;
/** Rows sorted by a key (engines answer unordered rows in their own order). */
export const byKey = <T>(rows: T[], key: (r: T) => string) => [...rows].sort((a, b) => key(a).localeCompare(key(b)));

/** A page record as the crawler hands it over. */
export function page(url: string, seedId: number | null, extra: Partial<PageRecord> = {}): PageRecord {
  return {
    url,
    finalUrl: url,
    origin: new URL(url).origin,
    host: new URL(url).host,
    seedId,
    status: 200,
    contentType: 'text/html',
    title: 'Title',
    description: 'About it',
    headings: ['One', 'Two'],
    body: 'The body text',
    lang: 'en',
    canonical: null,
    fetchedAt: T0,
    etag: null,
    lastModified: null,
    contentHash: 'h1',
    noindex: false,
    nofollow: false,
    noarchive: false,
    nosnippet: false,
    indexed: true,
    ...extra,
  };
}

/** The helpers a part of the contract registers its tests with (see contractKit). */
export type ContractKit = ReturnType<typeof contractKit>;

/**
 * The helpers for one engine: `withStore` registers a test on a fresh fixture; `seed` stores a seed; `add`
 * adds URLs in one transaction, answering their rows by path; `one` reads one row; `write` runs a batch.
 */
export function contractKit(engine: string, open: () => Promise<CrawlContractFixture>) {
  const withStore = (name: string, body: (f: CrawlContractFixture, s: AsyncCrawlStore) => Promise<void>) =>
    test(`${engine}: ${name}`, async () => {
      const f = await open();
      try {
        await body(f, f.store);
      } finally {
        await f.close();
      }
    });
  const seed = async (s: AsyncCrawlStore, path: string, origin = O) =>
    (await s.seeds.upsertSeed({ url: U(path, origin), origin, depth: 3, scope: 'host' }, T0)).seed.id;
  /** Adds URLs in one transaction, answering their rows by path. */
  const add = async (s: AsyncCrawlStore, seedId: number, paths: string[], depth = 1, origin = O) => {
    const out: Record<string, FrontierRow> = {};
    await s.transaction(async (tx) => {
      for (const p of paths) {
        const row = await tx.frontier.addUrl({ url: U(p, origin), origin, seedId, depth, redirects: 0 }, T0);
        assert.ok(row !== undefined, `${p} is new`);
        out[p] = row;
      }
    });
    return out;
  };
  const one = async (f: CrawlContractFixture, sql: string) => (await f.rows(sql))[0];
  const write = (s: AsyncCrawlStore, w: (tx: AsyncCrawlModules) => Promise<unknown>) =>
    s.transaction(async (tx) => void (await w(tx)));
  return { withStore, seed, add, one, write };
}
