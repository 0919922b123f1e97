/**
 * Each fetched page's revisit state (db/migrations/0015-revisits.sql; the rule is
 * crawler/frontier/revisit.ts), as the crawler primary reads and writes it.
 */
import type { Database } from 'better-sqlite3';

/** A page's revisit state, as stored (the rule that changes it: crawler/frontier/revisit.ts). */
export interface RevisitState {
  intervalMs: number;
  /** Last time the page was judged: a request, or a sitemap lastmod standing for one. */
  checkedAt: number;
  /** Last request to it. */
  visitedAt: number;
  /** The hash of the text seen at that request (null when only a 304 was seen since this table exists). */
  contentHash: string | null;
  changedCount: number;
  unchangedCount: number;
  /** The lastmod its sitemap gave when last read (ms), if any. */
  sitemapLastmod: number | null;
}

/** A finished frontier URL of a seed, with its revisit state if it has one: a candidate for a refresh. */
export interface RevisitCandidate {
  id: number;
  url: string;
  state: RevisitState | undefined;
}

const STATE = `interval_ms AS intervalMs, checked_at AS checkedAt, visited_at AS visitedAt, content_hash AS contentHash,
  changed_count AS changedCount, unchanged_count AS unchangedCount, sitemap_lastmod AS sitemapLastmod`;

/** Prepared statements for revisits, created once per connection (the crawler primary's). */
export function revisitQueries(db: Database) {
  const get = db.prepare<[string], RevisitState>(`SELECT ${STATE} FROM revisits WHERE url = ?`);
  const getMany = db.prepare<[string], RevisitState & { url: string }>(
    `SELECT url, ${STATE} FROM revisits WHERE url IN (SELECT value FROM json_each(?))`,
  );
  const save = db.prepare(
    `INSERT INTO revisits (url, interval_ms, checked_at, visited_at, content_hash, changed_count, unchanged_count, sitemap_lastmod)
     VALUES (@url, @intervalMs, @checkedAt, @visitedAt, @contentHash, @changedCount, @unchangedCount, @sitemapLastmod)
     ON CONFLICT (url) DO UPDATE SET interval_ms = excluded.interval_ms, checked_at = excluded.checked_at,
       visited_at = excluded.visited_at, content_hash = excluded.content_hash, changed_count = excluded.changed_count,
       unchanged_count = excluded.unchanged_count, sitemap_lastmod = excluded.sitemap_lastmod`,
  );
  const lastmod = db.prepare<[number, string]>(`UPDATE revisits SET sitemap_lastmod = ? WHERE url = ?`);
  const checked = db.prepare<[number, string]>(`UPDATE revisits SET checked_at = ? WHERE url = ?`);
  // The frontier's finished URLs of a seed within a depth, as frontierQueries.requeueSeed picks them.
  const candidates = db.prepare<
    [number, number],
    { id: number; url: string; intervalMs: number | null } & Omit<RevisitState, 'intervalMs'>
  >(
    `SELECT f.id, f.url, ${STATE.replace(/(\w+) AS/g, 'r.$1 AS')} FROM frontier f LEFT JOIN revisits r ON r.url = f.url
     WHERE f.seed_id = ? AND f.depth <= ? AND f.state IN ('done', 'failed', 'skipped')`,
  );

  return {
    /** A page's revisit state, if it was ever fetched since revisits exist. */
    revisitOf(url: string): RevisitState | undefined {
      return get.get(url);
    },
    /** The revisit states of `urls` that have one, by url: a batch's pages read at once. */
    revisitsOf(urls: readonly string[]): Map<string, RevisitState> {
      const out = new Map<string, RevisitState>();
      for (const { url, ...st } of getMany.all(JSON.stringify(urls))) out.set(url, st);
      return out;
    },
    /** Writes a page's revisit state. */
    saveRevisit(url: string, st: RevisitState): void {
      save.run({ url, ...st });
    },
    /** Records the `<lastmod>` a sitemap gave a page that has a revisit state. */
    noteSitemapLastmod(url: string, ms: number): void {
      lastmod.run(ms, url);
    },
    /** Sets when a page was last judged (a seed's page: when its crawl started, from which its pages count). */
    markChecked(url: string, at: number): void {
      checked.run(at, url);
    },
    /** The finished URLs of a seed within `maxDepth`, each with its revisit state: what a refresh chooses from. */
    refreshCandidates(seedId: number, maxDepth: number): RevisitCandidate[] {
      return candidates.all(seedId, maxDepth).map(({ id, url, ...st }) => ({
        id,
        url,
        state: st.intervalMs === null ? undefined : (st as RevisitState),
      }));
    },
  };
}
