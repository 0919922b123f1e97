/**
 * The crawler a benchmark crawl drives, on either storage engine: the tests' two-engine crawler
 * (test-support/engine-crawler.ts: the real primary with its real workers, on SQLite in its DATA_DIR or on
 * PostgreSQL at a database of a throwaway cluster), plus the one read a benchmark needs of the record: how many
 * pages were stored, and when the last one was. Seeds are written and the record is read through the engine
 * itself, so the benchmark counts what the engine stored.
 */
import { type Engine, type EngineCrawler, startEngineCrawler } from '../../test-support/engine-crawler.ts';

/** Lantern's two storage engines. */
export type BenchEngine = Engine;

/** What a benchmark crawl needs of a crawler, the same on both engines. */
export interface BenchCrawler extends EngineCrawler {
  /** Pages stored for these origins and when the last of them was stored (its `fetched_at`, Date.now() ms). */
  storedPages(origins: readonly string[]): Promise<{ count: number; lastStoredAt: number }>;
}

/** Each poll for the crawl's end is a query the engine answers: on PostgreSQL its CPU counts as the server's. */
const IDLE_POLL_MS = 100;

/** A benchmark's crawler on `engine` (on PostgreSQL at `postgresUrl`, an empty database; migrated first). */
export async function startBenchCrawler(
  engine: BenchEngine,
  env: Record<string, string>,
  postgresUrl?: string,
): Promise<BenchCrawler> {
  const crawler = await startEngineCrawler(engine, env, postgresUrl);
  const waitIdle = crawler.waitIdle;
  return Object.assign(crawler, {
    waitIdle: (opts: Parameters<EngineCrawler['waitIdle']>[0] = {}) => waitIdle({ intervalMs: IDLE_POLL_MS, ...opts }),
    async storedPages(origins: readonly string[]) {
      const marks = origins.map(() => '?').join(',');
      const [row] = await crawler.rows<{ n: number; last: number | string | null }>(
        `SELECT COUNT(*) AS n, MAX(fetched_at) AS last FROM pages WHERE origin IN (${marks})`,
        origins,
      );
      return { count: Number(row?.n ?? 0), lastStoredAt: row?.last == null ? NaN : Number(row.last) };
    },
  });
}
