/**
 * Revisits that cost the site little: how long the periodic refresh (CRAWL_REFRESH) leaves each page
 * alone. Pure: a page's state and what a visit found go in, the next state and the decision come out.
 *
 *  - Each page has its own interval, starting at the refresh period. A page unchanged at a visit (a 304,
 *    or the same text) waits twice as long next time, up to the ceiling (CRAWL_REVISIT_MAX); a page that
 *    changed waits half as long, never less than the refresh period. So a page that never changes is
 *    asked for at the 1st, 3rd, 7th, 15th ... refresh, while one that changes every time is asked each time.
 *  - The refresh runs once a period, so a page is due at a refresh when its interval, counted in
 *    refreshes from the start of the crawl that last asked for it (its seed's page), has passed, give or
 *    take half a refresh (the pages of one crawl are fetched over minutes or hours after the seed's
 *    page, all counted from its start). Counted in refreshes, because a refresh comes a little later than the
 *    period (it is checked once a minute, or a quarter of the period): the time since the seed's page was
 *    last fetched is the length of this cycle (`cycleMs`, taken between 1 and 1.5 periods), and an interval
 *    of n periods is due after n such cycles, not n periods, so lateness never piles up into a visit early.
 *  - A sitemap `<lastmod>` older than the last request vouches for the page: a page due whose sitemap says
 *    it has not changed since is skipped, as if visited unchanged (its interval doubles), but never for
 *    longer than the ceiling since its last real request (sitemaps go stale): once a sitemap stood in for
 *    a request, the refresh at that deadline asks for the page even when its interval is not over. A `<lastmod>` newer than the
 *    last request says the page changed: it is asked for at once, due or not.
 */
import type { RevisitState } from '../../db/revisits.ts';

export type { RevisitState };

/** The revisit rule's settings: the refresh period (the shortest interval) and the ceiling. */
export interface RevisitSettings {
  /** CRAWL_REFRESH (ms): the refresh runs once per this period; 0 (never) leaves intervals unused. */
  refreshMs: number;
  /** CRAWL_REVISIT_MAX (ms): the longest interval, and the longest a sitemap may stand for a request. */
  maxMs: number;
}

/** What a visit found: the page's text as last seen (`hash`), or a 304 (`unchanged`). */
export type VisitFinding = { kind: 'fetched'; hash: string } | { kind: 'not-modified' };

/** What the refresh does with a page: ask for it, leave it, or skip it because its sitemap vouches for it. */
export type RevisitDecision = 'due' | 'not-due' | 'sitemap-unchanged';

/** The shortest interval: the refresh period (or the ceiling when the refresh never runs). */
function floorMs(s: RevisitSettings): number {
  return s.refreshMs > 0 ? s.refreshMs : s.maxMs;
}

/** The longest interval: the ceiling, never below the shortest. */
function ceilingMs(s: RevisitSettings): number {
  return Math.max(s.maxMs, floorMs(s));
}

/** The interval after a visit that found the page unchanged (`changed` false) or changed. */
export function nextInterval(previousMs: number, changed: boolean, s: RevisitSettings): number {
  return changed
    ? Math.max(floorMs(s), Math.floor(previousMs / 2))
    : Math.min(ceilingMs(s), Math.max(floorMs(s), previousMs * 2));
}

/**
 * A page's state after a request at `now`: the first visit starts at the refresh period; later ones
 * double or halve the interval as the page stayed or changed. A 304 is unchanged; a fetched text is
 * unchanged when its hash equals the last one seen. `crawlStart`: when the crawl the request belongs to
 * began (its seed's page was fetched), from which the interval is counted, so that every page of one
 * crawl is due at the same refresh however long the crawl took; `now` when not given.
 */
export function afterVisit(
  prev: RevisitState | undefined,
  found: VisitFinding,
  now: number,
  s: RevisitSettings,
  crawlStart = now,
): RevisitState {
  const checkedAt = Math.min(now, crawlStart);
  const hash = found.kind === 'fetched' ? found.hash : (prev?.contentHash ?? null);
  if (!prev || !visited(prev)) {
    return {
      intervalMs: floorMs(s),
      checkedAt,
      visitedAt: now,
      contentHash: hash,
      changedCount: 0,
      unchangedCount: 0,
      sitemapLastmod: prev?.sitemapLastmod ?? null,
    };
  }
  const changed = found.kind === 'fetched' && prev.contentHash !== null && prev.contentHash !== found.hash;
  return {
    ...prev,
    intervalMs: nextInterval(prev.intervalMs, changed, s),
    checkedAt,
    visitedAt: now,
    contentHash: hash,
    changedCount: prev.changedCount + (changed ? 1 : 0),
    unchangedCount: prev.unchangedCount + (changed ? 0 : 1),
  };
}

/**
 * The state of a page its sitemap lists before it was ever fetched (a sitemap is read before most pages
 * of a first crawl): only the `<lastmod>`, so that the refresh after the first visit can use it.
 */
export function listedOnly(lastmod: number): RevisitState {
  return {
    intervalMs: 0,
    checkedAt: 0,
    visitedAt: 0,
    contentHash: null,
    changedCount: 0,
    unchangedCount: 0,
    sitemapLastmod: lastmod,
  };
}

/** Whether the page was ever fetched (a listedOnly state, with no interval yet, was not). */
function visited(st: RevisitState): boolean {
  return st.intervalMs > 0;
}

/** Whether the page's sitemap says it has not changed since its last request, and may still stand for one. */
function vouched(st: RevisitState, now: number, s: RevisitSettings): boolean {
  return st.sitemapLastmod !== null && st.sitemapLastmod <= st.visitedAt && now - st.visitedAt < ceilingMs(s);
}

/**
 * What the refresh at `now` does with a page (see the module comment); a page never judged is due.
 * `cycleMs`: the time since the seed's page was last fetched (the refresh period when unknown).
 */
export function revisitDecision(
  st: RevisitState | undefined,
  now: number,
  s: RevisitSettings,
  cycleMs = floorMs(s),
): RevisitDecision {
  if (!st || !visited(st)) return 'due';
  const floor = floorMs(s);
  const cycle = Math.min(1.5 * floor, Math.max(floor, cycleMs));
  // A sitemap stood in for a request since the last one (a skip moves checkedAt past visitedAt): its
  // doubled interval must not carry the page past the ceiling since that request, so the first refresh
  // at (or half a refresh before) that deadline asks for it, whatever the interval or the sitemap says.
  if (st.checkedAt > st.visitedAt && now + cycle / 2 >= st.visitedAt + ceilingMs(s)) return 'due';
  if (st.checkedAt + (st.intervalMs / floor) * cycle > now + cycle / 2) return 'not-due';
  return vouched(st, now, s) ? 'sitemap-unchanged' : 'due';
}

/** A page skipped at `now` because its sitemap vouched for it: judged unchanged without a request. */
export function afterSitemapSkip(st: RevisitState, now: number, s: RevisitSettings): RevisitState {
  return { ...st, intervalMs: nextInterval(st.intervalMs, false, s), checkedAt: now };
}

/** Whether a sitemap's `<lastmod>` says the page changed after its last request (so it is asked for at once). */
export function sitemapSaysChanged(st: RevisitState | undefined, lastmod: number): boolean {
  return st !== undefined && visited(st) && lastmod > st.visitedAt;
}
