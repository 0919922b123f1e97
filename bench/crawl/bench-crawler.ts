/**
 * The crawler a benchmark crawl drives, on either storage engine: the real primary with its real workers, on
 * SQLite in its DATA_DIR (the test harness's startCrawler) or on PostgreSQL at a database of a throwaway cluster
 * (DATABASE_URL in the primary's environment, as the server passes it; the schema migrated first, as the server
 * does before it forks the crawler). Seeds are written and the record is read through the engine itself, so the
 * benchmark counts what the engine stored. (test-support/engine-crawler.ts does the same for tests, bound to
 * node:test's `after`; a benchmark is no test file, so this is its own small copy.)
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { type HarnessMessage, isIdle, startCrawler, startCrawlerProcess } from '../../test-support/crawler-harness.ts';
import { waitFor } from '../../test-support/wait-for.ts';

/** Lantern's two storage engines. */
export type BenchEngine = 'sqlite' | 'postgres';

/** What a benchmark crawl needs of a crawler, the same on both engines. */
export interface BenchCrawler {
  readonly engine: BenchEngine;
  /** The current primary process (its children are the workers). */
  readonly primary: ChildProcess;
  /** What the primary sent (snapshots with the server's rows). */
  readonly messages: HarnessMessage[];
  /** Adds a seed as the server does (through the engine's seed store), then tells the primary. */
  addSeed(url: string, opts: { depth: number }): Promise<void>;
  /** Waits until nothing is queued or leased and at least `minDone` URLs are finished. */
  waitIdle(opts: { minDone: number; timeoutMs: number }): Promise<void>;
  /** Pages stored for these origins and when the last of them was stored (its `fetched_at`, Date.now() ms). */
  storedPages(origins: readonly string[]): Promise<{ count: number; lastStoredAt: number }>;
  /** Stops the primary and removes its DATA_DIR (a PostgreSQL database stays with its cluster). */
  close(): Promise<void>;
}

const STATES = 'SELECT state, COUNT(*) AS n FROM frontier GROUP BY state';

/** The crawler on SQLite: the harness's own, its file read directly. */
export function sqliteBenchCrawler(env: Record<string, string>): BenchCrawler {
  const h = startCrawler(env);
  return {
    engine: 'sqlite',
    get primary() {
      return h.primary;
    },
    messages: h.messages,
    async addSeed(url, opts) {
      h.addSeed(url, opts);
    },
    waitIdle: (opts) => h.waitIdle(opts),
    async storedPages(origins) {
      const marks = origins.map(() => '?').join(',');
      const row = h.db
        .prepare(`SELECT COUNT(*) AS n, MAX(fetched_at) AS last FROM pages WHERE origin IN (${marks})`)
        .get(...origins) as { n: number; last: number | null };
      return { count: row.n, lastStoredAt: row.last ?? NaN };
    },
    close: () => h.close(),
  };
}

/** The crawler on PostgreSQL at `url` (an empty database; migrated here before the primary starts). */
export async function postgresBenchCrawler(url: string, env: Record<string, string>): Promise<BenchCrawler> {
  const pool = openPgPool(url, { max: 2 });
  await migratePg(pool);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-pg-'));
  const proc = startCrawlerProcess(dataDir, { ...env, DATABASE_URL: url });
  const seeds = pgSeedStore(pool);
  const rows = async <T extends pg.QueryResultRow>(sql: string, params: unknown[] = []) =>
    (await pool.query<T>(sql, params)).rows;
  return {
    engine: 'postgres',
    get primary() {
      return proc.primary;
    },
    messages: proc.messages,
    async addSeed(seedUrl, opts) {
      const u = new URL(seedUrl);
      await seeds.upsertSeed({ url: u.href, origin: u.origin, depth: opts.depth, scope: 'host' }, Date.now());
      if (proc.primary.connected) proc.primary.send({ type: 'seeds-changed' });
    },
    async waitIdle(opts) {
      let last: Record<string, number> = {};
      await waitFor(
        async () => {
          last = {};
          for (const r of await rows<{ state: string; n: number }>(STATES)) last[r.state] = Number(r.n);
          return isIdle(last, opts.minDone);
        },
        {
          timeoutMs: opts.timeoutMs,
          intervalMs: 100, // each poll is a query the server answers, its CPU counted as PostgreSQL's
          message: () =>
            `bench-crawler: the crawl on PostgreSQL to finish (states at the deadline ${JSON.stringify(last)}${proc.diagnosis()})`,
        },
      );
    },
    async storedPages(origins) {
      const [r] = await rows<{ n: number; last: number | null }>(
        'SELECT COUNT(*) AS n, MAX(fetched_at) AS last FROM pages WHERE origin = ANY($1)',
        [origins],
      );
      return { count: Number(r?.n ?? 0), lastStoredAt: r?.last ?? NaN };
    },
    async close() {
      try {
        await proc.stop();
      } finally {
        await pool.end();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  };
}
