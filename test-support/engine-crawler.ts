/**
 * The crawler harness on either storage engine, for the suites that run once per engine (issue 28): SQLite in
 * DATA_DIR (startCrawler, unchanged) or PostgreSQL in a throwaway cluster (one per test file, a fresh database
 * per crawler). The primary is the same real process with its real cluster of workers; DATABASE_URL reaches
 * it in its environment, as the server gives it. The test's reads go to the engine's record, so every helper
 * answers a Promise on both engines, and `rows` runs SQL both engines understand.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import type pg from 'pg';
import { migratePg } from '../db/pg/migrate-pg.ts';
import { pgSeedStore } from '../db/pg/pg-seeds.ts';
import { openPgPool } from '../db/pg/pool.ts';
import type { SeedStore } from '../db/server-store.ts';
import { sqliteServerStore } from '../db/sqlite-server-store.ts';
import type { Scope } from '../shared/enumerations.ts';
import {
  type CrawlerHarness,
  type CrawlerProcess,
  type FrontierState,
  isIdle,
  startCrawler,
  startCrawlerProcess,
} from './crawler-harness.ts';
import { startTestPostgres, type TestPostgres } from './postgres.ts';
import { waitFor } from './wait-for.ts';

/** Lantern's two storage engines, the subjects of a two-engine suite. */
export const ENGINES = ['sqlite', 'postgres'] as const;
export type Engine = (typeof ENGINES)[number];

/** A crawler harness whose reads and writes of the record go to its engine (see the file's comment). */
export interface EngineCrawler
  extends Pick<
    CrawlerHarness,
    | 'dataDir'
    | 'primary'
    | 'messages'
    | 'domain'
    | 'workerPids'
    | 'workerByConnection'
    | 'kill'
    | 'restart'
    | 'diagnosis'
  > {
  readonly engine: Engine;
  /** Adds a seed the way the server does (writes the seed through the engine's seed store, then tells the primary). */
  addSeed(url: string, opts?: { depth?: number; scope?: Scope }): Promise<void>;
  /** Removes a seed as DELETE /api/seeds/:id does (marks it and tells the primary); false if there is none. */
  removeSeed(url: string): Promise<boolean>;
  /** Counts of frontier URLs by state, over every host or only `origin`'s. */
  states(origin?: string): Promise<Record<string, number>>;
  /**
   * Waits until nothing is queued or leased (and at least `minDone` URLs are finished), over every host or only
   * `origin`'s; fails when the counts by state stay unchanged for `timeoutMs` (default 30 s: a stalled crawl), or
   * after 10 x `timeoutMs` in all. Polls every `intervalMs` (default waitFor's; a benchmark polls less often, as
   * each poll is a query the engine answers).
   */
  waitIdle(opts?: { minDone?: number; timeoutMs?: number; origin?: string; intervalMs?: number }): Promise<void>;
  /** The frontier row of a URL, if the crawler knows it. */
  frontier(url: string): Promise<FrontierState | undefined>;
  /**
   * Rows of a query both engines understand, with `?` for its parameters (quote camel-case aliases:
   * `AS "lastError"`); counts come back as numbers on both.
   */
  rows<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** The pages stored: how many rows, how many distinct URLs (equal when no page is stored twice). */
  storedCounts(): Promise<{ n: number; d: number }>;
  /** Stops the primary and removes the DATA_DIR (the PostgreSQL database goes with the file's cluster). */
  close(): Promise<void>;
}

/**
 * The crawler harnesses of one test file: `start` on either engine (resolves once the primary has started), the
 * file's PostgreSQL cluster stopped after it.
 */
export interface EngineCrawlers {
  /** Starts a crawler on `engine` with `env` added to the harness's defaults (see startCrawlerProcess). */
  start(engine: Engine, env?: Record<string, string>): Promise<EngineCrawler>;
  /** The file's PostgreSQL cluster, started on first use (for tests that halt and resume it). */
  postgres(): Promise<TestPostgres>;
}

/**
 * The harnesses of one test file. Call it at the top level of the file: it registers the `after` hook that
 * stops the file's cluster (started on the first PostgreSQL crawler, not at all by a file run on SQLite only).
 */
export function engineCrawlers(): EngineCrawlers {
  let cluster: Promise<TestPostgres> | undefined;
  after(async () => {
    if (cluster !== undefined) (await cluster).stop();
  });
  const postgres = () => {
    cluster ??= startTestPostgres();
    return cluster;
  };
  return {
    postgres,
    start: async (engine, env = {}) =>
      startEngineCrawler(engine, env, engine === 'postgres' ? await (await postgres()).createDatabase() : undefined),
  };
}

/**
 * A crawler on `engine`, not bound to a test file (benchmarks use it; a test file uses engineCrawlers): on
 * PostgreSQL at `postgresUrl`, an empty database of a running cluster, migrated here. Resolves once the primary
 * has started; `close` stops it and removes its DATA_DIR.
 */
export async function startEngineCrawler(
  engine: Engine,
  env: Record<string, string> = {},
  postgresUrl?: string,
): Promise<EngineCrawler> {
  if (engine === 'postgres' && postgresUrl === undefined)
    throw new Error('engine-crawler: a crawler on PostgreSQL needs the URL of an empty database');
  const crawler = engine === 'sqlite' ? onSqlite(startCrawler(env)) : await onPostgres(postgresUrl!, env);
  await started(crawler);
  return crawler;
}

/**
 * Waits until the primary said `started`: its start (on PostgreSQL a pool, the migrations and the crawl state
 * read in many round trips) takes seconds on a loaded machine, and a test's own waits should time the crawl,
 * not the start. Seeds added after it reach the primary as the server's do (`seeds-changed`).
 */
async function started(crawler: EngineCrawler): Promise<void> {
  await waitFor(() => crawler.messages.some((m) => m.type === 'started'), {
    timeoutMs: 120_000,
    message: () => `the crawler primary on ${crawler.engine} to start${crawler.diagnosis()}`,
  });
}

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (the queries the tests write have no `?` in a string). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

const STORED = 'SELECT COUNT(*) AS n, COUNT(DISTINCT url) AS d FROM pages';
const FRONTIER_ROW =
  'SELECT url, state, attempts, last_error AS "lastError", redirects, depth FROM frontier WHERE url = ?';

/** The SQLite harness with the two-engine helpers: the same process and file, the reads answered as Promises. */
function onSqlite(h: CrawlerHarness): EngineCrawler {
  const seeds = sqliteServerStore(h.db).seeds;
  return withRecord('sqlite', h, {
    seeds,
    rows: async <T>(sql: string, params: readonly unknown[] = []) => h.db.prepare(sql).all(...params) as T[],
    close: () => h.close(),
  });
}

/** A primary on PostgreSQL at `url` (migrated first, as the server does before it forks the crawler). */
async function onPostgres(url: string, env: Record<string, string>): Promise<EngineCrawler> {
  const pool = openPgPool(url, { max: 2 });
  await migratePg(pool);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-crawl-pg-'));
  const proc = startCrawlerProcess(dataDir, { ...env, DATABASE_URL: url });
  return withRecord('postgres', Object.assign(proc, { dataDir }), {
    seeds: pgSeedStore(pool),
    rows: async <T>(sql: string, params: readonly unknown[] = []) =>
      (await pool.query<T & pg.QueryResultRow>(numbered(sql), params as unknown[])).rows as T[],
    async close() {
      try {
        await proc.stop();
      } finally {
        await pool.end();
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  });
}

/** How a harness reaches its engine's record. */
interface RecordAccess {
  seeds: SeedStore;
  rows<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/** The two-engine helpers over a primary process (`proc`) and its engine's record. */
function withRecord(
  engine: Engine,
  proc: Omit<CrawlerProcess, 'stop'> & { dataDir: string },
  record: RecordAccess,
): EngineCrawler {
  const states = async (origin?: string) => {
    const rows = await record.rows<{ state: string; n: number }>(
      origin === undefined
        ? 'SELECT state, COUNT(*) AS n FROM frontier GROUP BY state'
        : 'SELECT state, COUNT(*) AS n FROM frontier WHERE origin = ? GROUP BY state',
      origin === undefined ? [] : [origin],
    );
    const out: Record<string, number> = {};
    for (const r of rows) out[r.state] = r.n;
    return out;
  };
  const tell = () => {
    if (proc.primary.connected) proc.primary.send({ type: 'seeds-changed' });
  };
  return {
    engine,
    dataDir: proc.dataDir,
    get primary() {
      return proc.primary;
    },
    messages: proc.messages,
    domain: proc.domain,
    workerPids: proc.workerPids,
    workerByConnection: proc.workerByConnection,
    kill: proc.kill,
    restart: proc.restart,
    diagnosis: proc.diagnosis,
    async addSeed(url, opts = {}) {
      const u = new URL(url);
      await record.seeds.upsertSeed(
        { url: u.href, origin: u.origin, depth: opts.depth ?? 2, scope: opts.scope ?? 'host' },
        Date.now(),
      );
      tell();
    },
    async removeSeed(url) {
      const [found] = await record.rows<{ id: number }>('SELECT id FROM seeds WHERE url = ?', [new URL(url).href]);
      const removed = found !== undefined && (await record.seeds.markSeedRemoved(found.id, Date.now())) !== undefined;
      if (removed) tell();
      return removed;
    },
    states,
    async waitIdle(opts = {}) {
      let last: Record<string, number> = {};
      await waitFor(
        async () => {
          last = await states(opts.origin);
          return isIdle(last, opts.minDone);
        },
        {
          timeoutMs: opts.timeoutMs ?? 30_000,
          intervalMs: opts.intervalMs,
          progress: () => JSON.stringify(last), // a slow crawl that moves is no failure; a stalled one is
          message: () =>
            `crawl${opts.origin ? ` of ${opts.origin}` : ''} on ${engine} to finish (states at the deadline ${JSON.stringify(last)}${proc.diagnosis()})`,
        },
      );
    },
    async frontier(url) {
      return (await record.rows<FrontierState>(FRONTIER_ROW, [url]))[0];
    },
    rows: record.rows,
    async storedCounts() {
      const [r] = await record.rows<{ n: number; d: number }>(STORED);
      return { n: Number(r?.n ?? 0), d: Number(r?.d ?? 0) };
    },
    close: record.close,
  };
}
