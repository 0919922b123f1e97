/** Each fetched page's revisit state on PostgreSQL: db/revisits.ts's methods, each answering a Promise, on a PgRunner. */
import type { RevisitCandidate, RevisitState } from '../revisits.ts';
import type { PgRunner } from './pg-runner.ts';
import { statement } from './pool.ts';

const STATE = `interval_ms AS "intervalMs", checked_at AS "checkedAt", visited_at AS "visitedAt",
  content_hash AS "contentHash", changed_count AS "changedCount", unchanged_count AS "unchangedCount",
  sitemap_lastmod AS "sitemapLastmod"`;

const GET = statement('crawl.revisits.get', `SELECT ${STATE} FROM revisits WHERE url = $1`);
const GET_MANY = statement('crawl.revisits.get-many', `SELECT url, ${STATE} FROM revisits WHERE url = ANY ($1)`);
const SAVE = statement(
  'crawl.revisits.save',
  `INSERT INTO revisits (url, interval_ms, checked_at, visited_at, content_hash, changed_count, unchanged_count, sitemap_lastmod)
   VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
   ON CONFLICT (url) DO UPDATE SET interval_ms = excluded.interval_ms, checked_at = excluded.checked_at,
     visited_at = excluded.visited_at, content_hash = excluded.content_hash, changed_count = excluded.changed_count,
     unchanged_count = excluded.unchanged_count, sitemap_lastmod = excluded.sitemap_lastmod`,
);
const LASTMOD = statement('crawl.revisits.lastmod', 'UPDATE revisits SET sitemap_lastmod = $1 WHERE url = $2');
const CHECKED = statement('crawl.revisits.checked', 'UPDATE revisits SET checked_at = $1 WHERE url = $2');
const CANDIDATES = statement(
  'crawl.revisits.candidates',
  `SELECT f.id, f.url, ${STATE.replace(/(\w+) AS/g, 'r.$1 AS')} FROM frontier f LEFT JOIN revisits r ON r.url = f.url
   WHERE f.seed_id = $1 AND f.depth <= $2 AND f.state IN ('done', 'failed', 'skipped')`,
);

/** The revisit queries on `db` (each method as db/revisits.ts documents it). */
export function pgRevisitQueries(db: PgRunner) {
  return {
    /** A page's revisit state, if it was ever fetched since revisits exist. */
    async revisitOf(url: string): Promise<RevisitState | undefined> {
      return (await db.rows<RevisitState>(GET, [url]))[0];
    },
    /** The revisit states of `urls` that have one, by url: a batch's pages read in one round trip. */
    async revisitsOf(urls: readonly string[]): Promise<Map<string, RevisitState>> {
      const out = new Map<string, RevisitState>();
      if (urls.length === 0) return out;
      for (const { url, ...st } of await db.rows<RevisitState & { url: string }>(GET_MANY, [urls])) out.set(url, st);
      return out;
    },
    /** Writes a page's revisit state. */
    saveRevisit(url: string, st: RevisitState): Promise<void> {
      return db.write(SAVE, [
        url,
        st.intervalMs,
        st.checkedAt,
        st.visitedAt,
        st.contentHash,
        st.changedCount,
        st.unchangedCount,
        st.sitemapLastmod,
      ]);
    },
    /** Records the `<lastmod>` a sitemap gave a page that has a revisit state. */
    noteSitemapLastmod(url: string, ms: number): Promise<void> {
      return db.write(LASTMOD, [ms, url]);
    },
    /** Sets when a page was last judged. */
    markChecked(url: string, at: number): Promise<void> {
      return db.write(CHECKED, [at, url]);
    },
    /** The finished URLs of a seed within `maxDepth`, each with its revisit state: what a refresh chooses from. */
    async refreshCandidates(seedId: number, maxDepth: number): Promise<RevisitCandidate[]> {
      const found = await db.rows<
        { id: number; url: string; intervalMs: number | null } & Omit<RevisitState, 'intervalMs'>
      >(CANDIDATES, [seedId, maxDepth]);
      return found.map(({ id, url, ...st }) => ({
        id,
        url,
        state: st.intervalMs === null ? undefined : (st as RevisitState),
      }));
    },
  };
}
