/**
 * Spreading the periodic refresh (CRAWL_REFRESH) so that a site owner never sees it as a block. Two rules:
 *
 *  - Each site's refresh has its own offset: a site's seeds are refreshed `refreshOffsetMs` later than the
 *    period alone says, a share of the period (up to REFRESH_OFFSET_SHARE) chosen by a stable hash of the
 *    site's origin. Seeds added together (an import of 10,000 bookmarks) stop coming due in the same second,
 *    and a site's offset stays the same from one refresh to the next, so its refresh still comes about once
 *    a period (a little more than one: the revisit rule counts in cycles of 1 to 1.5 periods, revisit.ts).
 *  - One refresh's due pages of a site are spread over a window (REVISIT_SPREAD_SHARE of the period) instead
 *    of being queued for now: the k-th of n pages may start no sooner than `(k + jitter) / n` of the window,
 *    the jitter a stable hash of the site. So the revisit load reaches the site evenly over hours, one
 *    request every window / n, not as n requests at the full allowed rate. The seed's own page (and its
 *    sitemaps) come at once, and "Crawl again" is never spread.
 *
 * Pure: a stable hash instead of a random source, so a site's offsets and a page's place are the same at
 * every run and tests can state them.
 */

/** The most a site's refresh is offset, as a share of the refresh period (a quarter: 42 h of a week). */
export const REFRESH_OFFSET_SHARE = 0.25;
/** The window one refresh's due pages are spread over, as a share of the refresh period (42 h of a week). */
export const REVISIT_SPREAD_SHARE = 0.25;

/** A number in [0, 1) fixed by `key` (FNV-1a, 32 bits): a stable stand-in for a random draw. */
export function stableFraction(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // A last avalanche step, so that keys differing in their last character do not land side by side.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return (h >>> 0) / 0x1_0000_0000;
}

/** How much later than the period alone a site's seeds are refreshed (ms, in [0, REFRESH_OFFSET_SHARE × period)). */
export function refreshOffsetMs(site: string, refreshMs: number): number {
  if (refreshMs <= 0) return 0;
  return Math.floor(stableFraction(`refresh:${site}`) * REFRESH_OFFSET_SHARE * refreshMs);
}

/**
 * When each of one refresh's due pages of a site (`site`, in the order given) may be asked for: one per n-th
 * of a window of REVISIT_SPREAD_SHARE of the period from `now`, all shifted by a jitter of the site's own
 * (less than one n-th), so that the site sees them evenly spaced, `window / n` apart, and sites refreshed
 * in the same check do not start in step. Ascending, every time in [now, now + window).
 */
export function spreadRevisits(site: string, urls: readonly string[], now: number, refreshMs: number): number[] {
  const window = Math.max(0, REVISIT_SPREAD_SHARE * refreshMs);
  const n = urls.length;
  const jitter = stableFraction(`revisit:${site}`);
  return urls.map((_, k) => now + Math.floor(((k + jitter) / n) * window));
}
