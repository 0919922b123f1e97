/**
 * The storage a database-backed part of the frontier benchmark (primary-parts.ts) runs the primary on, on
 * either engine: a copy of the generated crawl of its own (SQLite: the file copied into a fresh DATA_DIR;
 * PostgreSQL: a database made from the generated one as a template), the crawl store opened as the primary
 * opens it (db/engine.ts openCrawlStorage: SQLite's file, or a pool of 4 connections and the migrations
 * checked; here with PostgreSQL's round trips counted), and the few statements the benchmark itself runs
 * around the primary (the restart's unclean stop, the seed removed as the server removes it, its count and
 * its row looked for).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3, { type Database } from 'better-sqlite3';
import type pg from 'pg';
import type { CrawlStore } from '../../db/crawl-store.ts';
import { sqliteCrawlStore } from '../../db/sqlite-crawl-store.ts';
import { DB_FILE, openDatabase } from '../../db/open.ts';
import { seedQueries } from '../../db/seeds.ts';
import { pgSeedStore } from '../../db/pg/pg-seeds.ts';
import { migratePg } from '../../db/pg/migrate-pg.ts';
import { pgCrawlStore } from '../../db/pg/pg-crawl-store.ts';
import { openPgPool } from '../../db/pg/pool.ts';
import { copyOfDatabase } from './frontier-db.ts';
import { copyOfPgDatabase } from './frontier-pg.ts';

/** The engines the benchmark runs the primary on. */
export type Engine = 'sqlite' | 'postgres';
/** Every engine, in the order the benchmark runs them (the --engine default). */
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** The crawl store opened on a part's copy, with its round trips counted (PostgreSQL's transactions; 0 on SQLite). */
export interface OpenedStore {
  readonly store: CrawlStore;
  /** Round trips of the store's transactions (write batches and reads) so far, as pgCrawlStore reports them. */
  roundTrips(): number;
  close(): Promise<void>;
}

/** A part's copy of the generated crawl (see the module comment). */
export interface PartStorage {
  readonly engine: Engine;
  /** The DATA_DIR the primary's configuration names (SQLite's file is in it; on PostgreSQL it stays empty). */
  readonly dataDir: string;
  /** DATABASE_URL: null on SQLite, the copy's URL on PostgreSQL. */
  readonly databaseUrl: string | null;
  /** Runs statements of the benchmark's own on the copy, in order, on a connection closed afterwards (before the primary opens it). */
  exec(statements: readonly string[]): Promise<void>;
  /** The first column of the first row `sql` answers, or undefined if it answers no row (SQLite: once opened). */
  value(sql: string): Promise<unknown>;
  /** The server's half of removing a seed (SeedStore.markSeedRemoved), beside the primary (SQLite: once opened). */
  removeSeed(id: number, now: number): Promise<void>;
  /** Opens the crawl store on the copy as the primary does (db/engine.ts openCrawlStorage). */
  open(): Promise<OpenedStore>;
  /** Closes what `exec` and `value` opened and removes the copy. */
  dispose(): Promise<void>;
}

/**
 * A copy of the generated crawl at `source` (the SQLite file, or the PostgreSQL template database's URL) for
 * part `name`.
 */
export async function partStorage(engine: Engine, source: string, name: string): Promise<PartStorage> {
  return engine === 'sqlite' ? sqlitePart(source) : postgresPart(source, name);
}

function sqlitePart(file: string): PartStorage {
  const copy = copyOfDatabase(file);
  // The primary's connection, once opened: the benchmark's reads and the seed's removal run on it (one process,
  // one thread: another connection's write would wait for a transaction this very thread holds open).
  let db: Database | undefined;
  const opened = () => {
    if (db === undefined) throw new Error('part-storage: open the store before reading through it');
    return db;
  };
  return {
    engine: 'sqlite',
    dataDir: copy.dataDir,
    databaseUrl: null,
    async exec(statements) {
      const own = new BetterSqlite3(path.join(copy.dataDir, DB_FILE));
      try {
        for (const sql of statements) own.prepare(sql).run();
      } finally {
        own.close();
      }
    },
    async value(sql) {
      const row = opened().prepare(sql).raw().get() as unknown[] | undefined;
      return row?.[0];
    },
    async removeSeed(id, now) {
      seedQueries(opened()).markSeedRemoved(id, now);
    },
    async open() {
      // As openCrawlStorage opens it (db/engine.ts), keeping the connection for `value` and `removeSeed`.
      const primaryDb = openDatabase(copy.dataDir);
      db = primaryDb;
      return {
        store: sqliteCrawlStore(primaryDb),
        roundTrips: () => 0,
        close: async () => {
          primaryDb.close();
        },
      };
    },
    async dispose() {
      if (db?.open) db.close();
      copy.dispose();
    },
  };
}

async function postgresPart(templateUrl: string, name: string): Promise<PartStorage> {
  const copy = await copyOfPgDatabase(templateUrl, `lantern_frontier_${name.replace(/\W/g, '_')}`);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'lantern-frontier-part-'));
  let pool: pg.Pool | undefined;
  const own = () => {
    pool ??= openPgPool(copy.url, { max: 1 });
    return pool;
  };
  return {
    engine: 'postgres',
    dataDir,
    databaseUrl: copy.url,
    async exec(statements) {
      for (const sql of statements) await own().query(sql);
      await own().end();
      pool = undefined;
    },
    async value(sql) {
      const { rows } = await own().query({ text: sql, rowMode: 'array' });
      return (rows[0] as unknown[] | undefined)?.[0];
    },
    async removeSeed(id, now) {
      await pgSeedStore(own()).markSeedRemoved(id, now);
    },
    async open() {
      // As openCrawlStorage opens it (a pool of 4, the migrations checked), with the transactions' round trips counted.
      const storePool = openPgPool(copy.url, { max: 4 });
      let trips = 0;
      try {
        await migratePg(storePool);
      } catch (err) {
        await storePool.end();
        throw err;
      }
      const store = pgCrawlStore(storePool, {
        onTransaction: (r) => {
          trips += r.roundTrips;
        },
      });
      return { store, roundTrips: () => trips, close: () => storePool.end() };
    },
    async dispose() {
      await pool?.end();
      await copy.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** One storage method's calls over a span: how many, and their wall time in all (ms). */
export interface StoreCalls {
  call: string;
  n: number;
  ms: number;
}

/**
 * Times every method of `store`'s query modules (module.method), called on the store or on the modules a
 * transaction or read hands out (PostgreSQL's are new for each), until `stop` is called; answers the calls
 * by time spent, most first. What the restart's start spends its time on, engine by engine.
 */
export function timeStoreCalls(store: CrawlStore): { stop(): StoreCalls[] } {
  const calls = new Map<string, StoreCalls>();
  let on = true;
  const timed = new WeakSet<object>();
  const wrapModules = (modules: object) => {
    for (const [name, mod] of Object.entries(modules)) {
      if (typeof mod !== 'object' || mod === null || timed.has(mod)) continue;
      timed.add(mod);
      const fns = mod as Record<string, unknown>;
      for (const [key, fn] of Object.entries(fns)) {
        if (typeof fn !== 'function') continue;
        const call = `${name}.${key}`;
        fns[key] = async (...args: unknown[]) => {
          const t0 = performance.now();
          try {
            return await fn.apply(mod, args);
          } finally {
            if (on) {
              const c = calls.get(call) ?? { call, n: 0, ms: 0 };
              c.n++;
              c.ms += performance.now() - t0;
              calls.set(call, c);
            }
          }
        };
      }
    }
  };
  wrapModules(store);
  const read = store.read.bind(store);
  const transaction = store.transaction.bind(store);
  store.read = (reads) =>
    read((tx) => {
      wrapModules(tx);
      return reads(tx);
    });
  store.transaction = (write) =>
    transaction((tx) => {
      wrapModules(tx);
      return write(tx);
    });
  return {
    stop() {
      on = false;
      return [...calls.values()].sort((a, b) => b.ms - a.ms);
    },
  };
}
