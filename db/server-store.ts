/**
 * The server's storage, as ports: one interface per concept the routes use (seeds, their labels and imports,
 * the Seeds library's listing, bulk actions, pages, sign-in sessions), each method named by intent and
 * answering a Promise, so that an engine over the network (PostgreSQL) and the embedded one (SQLite) serve
 * the routes alike. db/engine.ts picks the implementation, the one place that knows there are two:
 * db/sqlite-server-store.ts delegates to the SQLite query modules, db/pg/pg-server-store.ts is PostgreSQL's.
 * The shapes (SeedRow, StoredPage, ...) are those of the query modules, whichever engine answers.
 */
import type { Scope } from '../shared/enumerations.ts';
import type { ClusterView } from './pg/pg-cluster-view.ts';
import type { StoredPage } from './pages.ts';
import type { BulkAction } from './seed-bulk.ts';
import type { ImportedSeed, ImportOutcome, LabelCount } from './seed-labels.ts';
import type { SeedFilter } from './seed-list.ts';
import type { SeedRow } from './seeds.ts';
import type { SessionRow } from './sessions.ts';

/** A seed as a person submits it (URL already normalized and judged). */
export interface SubmittedSeed {
  url: string;
  origin: string;
  depth: number;
  scope: Scope;
  title?: string;
}

/** Seeds one at a time: what POST and DELETE /api/seeds and the labels route do. */
export interface SeedStore {
  /** Stores a seed, or updates depth and scope of the same URL; says whether it is new (a removed one comes back new). */
  upsertSeed(seed: SubmittedSeed, now: number): Promise<{ seed: SeedRow; created: boolean }>;
  /** One live or removed seed by id, with its crawl counts, or undefined. */
  getSeed(id: number): Promise<SeedRow | undefined>;
  /** The server's half of removing a seed: marks it removed (undefined if there is no such live seed). */
  markSeedRemoved(id: number, now: number): Promise<{ id: number; url: string } | undefined>;
}

/** Labels and bookmark imports (see db/seed-labels.ts for what each keeps and changes). */
export interface SeedLabelStore {
  /** Stores bookmarks as seeds, all or nothing: new URLs become seeds, existing seeds gain the labels. */
  importSeeds(
    list: readonly ImportedSeed[],
    opts: { depth: number; scope: Scope },
    now: number,
  ): Promise<ImportOutcome>;
  /** Sets a live seed's labels to exactly `labels` (the first MAX_LABELS_PER_SEED); false if there is no such live seed. */
  setLabels(seedId: number, labels: readonly string[]): Promise<boolean>;
  /** Adds labels to a seed, keeping those it has (up to MAX_LABELS_PER_SEED in all). */
  addLabels(seedId: number, labels: readonly string[]): Promise<void>;
  /** Every label in use by a live seed, with how many seeds carry it, by name (at most `limit`). */
  listLabels(limit?: number): Promise<LabelCount[]>;
}

/** The Seeds library's listing (see db/seed-list.ts). */
export interface SeedListStore {
  /** One page of the seeds matching `filter`, and how many match in all. */
  findSeeds(filter: SeedFilter): Promise<{ seeds: SeedRow[]; total: number }>;
}

/** One action on many seeds, all or nothing (see db/seed-bulk.ts). */
export interface SeedBulkStore {
  /** Applies `action` to every live seed among `ids`; answers how many live seeds it applied to. */
  applyToSeeds(action: BulkAction, ids: readonly number[], labels: readonly string[], now: number): Promise<number>;
}

/** Pages as the server reads them (the crawler writes them). */
export interface PageStore {
  /** The stored page with this url, or undefined. */
  getPage(url: string): Promise<StoredPage | undefined>;
  /** Stored pages (a removed seed's tombstones not counted), and how many of them are searchable. */
  countPages(): Promise<{ pages: number; indexed: number }>;
}

/** Sign-in sessions, keyed by the SHA-256 of the cookie's token (see db/sessions.ts). */
export interface SessionStore {
  /** Records a new session that lasts until `expiresAt`, dropping those already over. */
  startSession(digest: string, now: number, expiresAt: number): Promise<void>;
  /** The session of `digest` if it is still live at `now`. */
  liveSession(digest: string, now: number): Promise<SessionRow | undefined>;
  /** Ends a session at once (sign-out); says whether there was one. */
  endSession(digest: string): Promise<boolean>;
}

/** Every port the server uses, on one engine. */
export interface ServerStore {
  /** Which engine answers, for the log and the status (never for a branch in a route). */
  readonly engine: 'sqlite' | 'postgres';
  seeds: SeedStore;
  seedLabels: SeedLabelStore;
  seedList: SeedListStore;
  seedBulk: SeedBulkStore;
  pages: PageStore;
  sessions: SessionStore;
  /**
   * The crawler nodes and their politeness leases (issue 29, db/pg/pg-cluster-view.ts), read-only: PostgreSQL's
   * alone; null on SQLite, where one machine runs one crawler and nothing is leased.
   */
  cluster: ClusterView | null;
  /** Lets go of what the store holds of its own (PostgreSQL's pool); the SQLite connection is its opener's to close. */
  close(): Promise<void>;
}
