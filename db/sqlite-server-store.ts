/**
 * The server's storage ports (db/server-store.ts) on the SQLite file in DATA_DIR: each method runs the query
 * module's prepared statement of today (db/seeds.ts, db/seed-labels.ts, ...) and answers its result as a
 * settled Promise. better-sqlite3 is synchronous, so nothing else changes: same statements, same
 * transactions, same answers as before the ports existed.
 */
import type { Database } from 'better-sqlite3';
import { pageQueries } from './pages.ts';
import { seedBulkQueries } from './seed-bulk.ts';
import { seedLabelQueries } from './seed-labels.ts';
import { seedListQueries } from './seed-list.ts';
import { seedQueries } from './seeds.ts';
import type { ServerStore } from './server-store.ts';
import { sessionQueries } from './sessions.ts';

/**
 * The server's ports on one SQLite connection; a thrown error becomes the Promise's rejection (an async
 * method), so callers see the same on both engines.
 */
export function sqliteServerStore(db: Database): ServerStore {
  const seeds = seedQueries(db);
  const labels = seedLabelQueries(db);
  const list = seedListQueries(db);
  const bulk = seedBulkQueries(db);
  const pages = pageQueries(db);
  const sessions = sessionQueries(db);
  return {
    engine: 'sqlite',
    seeds: {
      upsertSeed: async (seed, now) => seeds.upsertSeed(seed, now),
      getSeed: async (id) => seeds.getSeed(id),
      markSeedRemoved: async (id, now) => seeds.markSeedRemoved(id, now),
    },
    seedLabels: {
      importSeeds: async (seedList, opts, now) => labels.importSeeds(seedList, opts, now),
      setLabels: async (seedId, names) => labels.setLabels(seedId, names),
      addLabels: async (seedId, names) => labels.addLabels(seedId, names),
      listLabels: async (limit) => labels.listLabels(limit),
    },
    seedList: { findSeeds: async (filter) => list.findSeeds(filter) },
    seedBulk: { applyToSeeds: async (action, ids, names, now) => bulk.applyToSeeds(action, ids, names, now) },
    pages: {
      getPage: async (url) => pages.getPage(url),
      countPages: async () => pages.countPages(),
    },
    sessions: {
      startSession: async (digest, now, expiresAt) => sessions.startSession(digest, now, expiresAt),
      liveSession: async (digest, now) => sessions.liveSession(digest, now),
      endSession: async (digest) => sessions.endSession(digest),
    },
    cluster: null, // one machine, one crawler: no nodes to list, nothing leased
    async close() {},
  };
}
