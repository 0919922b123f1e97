/**
 * When a seed is crawled again on its own (CRAWL_REFRESH): a search engine whose pages never change
 * goes stale, so every seed is refreshed some time after its last crawl, as if "Crawl again" had
 * been pressed (pages asked for conditionally, so an unchanged page costs its site a 304). Each site's
 * refresh comes a little later than the period, by an offset of its own (revisit-spread.ts), so that seeds
 * added together are not refreshed together. Pure: the primary reads each seed's crawl times, asks which
 * are due, and checks again every refreshCheckMs.
 */
import type { SeedCrawl } from '../../db/frontier.ts';
import { refreshOffsetMs } from './revisit-spread.ts';

export type { SeedCrawl };

/**
 * Seeds due for a refresh at `now`: their crawl is over and their own page was last fetched at
 * least `refreshMs` (plus their site's offset) ago. A seed still being crawled waits for its crawl to end, so a large site is
 * never refreshed on top of itself. `refreshMs` 0 means never.
 */
export function seedsDueForRefresh(seeds: readonly SeedCrawl[], now: number, refreshMs: number): number[] {
  return seeds.filter((s) => (nextRefreshAt(s, refreshMs) ?? Infinity) <= now).map((s) => s.seedId);
}

/**
 * When a seed will be crawled again on its own: `refreshMs` and its site's offset (`origin`, see
 * revisit-spread.ts) after its page was last fetched; null while
 * its crawl goes on, before its first fetch, or with `refreshMs` 0 (never). What the Seeds view shows.
 */
export function nextRefreshAt(seed: Omit<SeedCrawl, 'seedId'>, refreshMs: number): number | null {
  if (refreshMs <= 0 || seed.pending || seed.lastFetchedAt === null) return null;
  return seed.lastFetchedAt + refreshMs + refreshOffsetMs(seed.origin, refreshMs);
}

/** How often to look for due seeds: a quarter of the interval, between 250 ms and a minute. */
export function refreshCheckMs(refreshMs: number): number {
  return Math.min(60_000, Math.max(250, Math.floor(refreshMs / 4)));
}
