/**
 * The crawler primary's storage, as one port: the queries its decisions' writes run through, the
 * transaction a batch of them is written in, and the reads it makes between batches. The crawler
 * (crawler/coordination/intent-applier.ts and the parts it routes intents to) talks to storage only
 * through these interfaces, so a second engine (PostgreSQL: network round trips, a pool) plugs in here.
 * Every method answers a Promise. This file is the contract; `sqliteCrawlStore` (db/sqlite-crawl-store.ts)
 * is the SQLite engine, each method the query module's prepared statement of before the port was async
 * (db/frontier.ts, db/pages.ts, ...), answered as a settled Promise: same statements, same transactions.
 *
 * The rules every engine keeps:
 * - Only the primary writes the crawl tables, and it runs one `transaction` or `read` at a time (the
 *   applier serializes them), so nothing interleaves with a batch on its connection.
 * - Inside `transaction`, the writes go through the `tx` it hands out (on PostgreSQL, one pooled client
 *   inside BEGIN/COMMIT); outside, through the store itself (each call its own statement).
 * - A transaction that throws stores nothing, the deferred full-text entries and link targets included,
 *   and the error is thrown on (a storage error: db/storage-error.ts tells the machine's from a bug).
 */
import type { DroppedUrl, FinishedState, FrontierRow, QueueRead, SeedCrawl } from './frontier.ts';
import type { HostRow } from './hosts.ts';
import type { CrawlerStop } from './crawler-stop.ts';
import type { SitemapJobRow, SitemapValidators } from './sitemap-jobs.ts';
import type { PageRecord } from './pages.ts';
import type { LinkOut } from './link-targets.ts';
import type { SeedChange } from './seeds.ts';
import type { SeedHostsRow } from './seed-hosts.ts';
import type { RevisitCandidate, RevisitState } from './revisits.ts';

/** A URL as the frontier takes it in (a link, a redirect target, a seed's own URL). */
export interface NewUrl {
  url: string;
  origin: string;
  seedId: number;
  depth: number;
  redirects: number;
}

/** The URL frontier (db/frontier.ts): the queue of URLs per host, their leases and their ends. */
export interface FrontierStore {
  /** Adds a URL if it is new (returning its row); a known URL just gains an inlink. */
  addUrl(u: NewUrl, now: number): Promise<FrontierRow | undefined>;
  /** A link to a URL the frontier may already hold: if known, it gains an inlink (true); else nothing happens (false). */
  touchUrl(url: string): Promise<boolean>;
  /**
   * Batch (added for a network engine: one statement for a page's links): which of `urls` the frontier
   * holds. The link intake asks it once per page whose links may meet a budget's limit, then decides.
   */
  knownUrls(urls: readonly string[]): Promise<Set<string>>;
  /** Batch of touchUrl: each known URL of `urls` gains an inlink, once per time it is listed; unknown ones are left alone. */
  touchUrls(urls: readonly string[]): Promise<void>;
  /**
   * Batch of addUrl at `now`, in order: answers the rows of the URLs inserted, in the order given; a URL
   * known already gains an inlink instead (as addUrl). A page's new links: one statement on a network engine.
   */
  addUrls(rows: readonly NewUrl[], now: number): Promise<FrontierRow[]>;
  /**
   * A host's queued URLs after (`nextAttemptAt`, `id`) in its queue order (due at once first in the order
   * found, then retries by next_attempt_at), at most `limit`. A row finished before carries its stored
   * page's validators (FrontierRow.etag / lastModified), so a conditional re-fetch needs no read at dispatch.
   */
  queuedAfter(origin: string, nextAttemptAt: number, id: number, limit: number): Promise<FrontierRow[]>;
  /**
   * Batch of queuedAfter (added for a network engine: the window's start and refills read many hosts at
   * once): for each of `reads`, the rows queuedAfter answers for it, one list per read in the order given.
   * One statement on PostgreSQL; the prepared statements in a loop on SQLite, in process.
   */
  queuedAfterMany(reads: readonly QueueRead[]): Promise<FrontierRow[][]>;
  /** How many queued URLs one host has. */
  queuedCount(origin: string): Promise<number>;
  /** Puts every leased URL back in the queue (at start: their worker or primary is gone); answers how many. */
  returnAllLeases(): Promise<number>;
  /** Marks a URL as handed to a worker by crawler run `owner`. */
  leaseUrl(id: number, owner: string, now: number): Promise<void>;
  /** Returns one leased URL to the queue (its worker died, or the crawl is stopping). */
  returnLease(id: number): Promise<void>;
  /** Ends a URL's life: done, failed or skipped, with a note; `countAttempt` adds one to its attempts. */
  finishUrl(
    id: number,
    state: 'done' | 'failed' | 'skipped',
    error: string | null,
    now: number,
    countAttempt?: boolean,
  ): Promise<void>;
  /** Ends a URL that redirected to `target`, remembering the target: done, or failed (a redirect loop). */
  finishRedirect(id: number, target: string, note: string, now: number, state?: 'done' | 'failed'): Promise<void>;
  /** Where a URL redirected to the last time it was fetched, if it did. */
  redirectTarget(url: string): Promise<string | undefined>;
  /** Marks a URL that redirected as part of a redirect loop: failed, with `message`. */
  failRedirectLoop(url: string, message: string): Promise<void>;
  /** Schedules another attempt of a URL at `nextAttemptAt`. */
  retryUrl(id: number, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  /** Queues a finished URL again (a re-submitted seed) with this depth and seed, returning its row if it was finished. */
  requeueUrl(url: string, depth: number, seedId: number): Promise<FrontierRow | undefined>;
  /** Queues again up to `limit` finished URLs in `state` of `seedId` within `maxDepth`, ids after `afterId`, in id order. */
  requeueSeedChunk(
    seedId: number,
    maxDepth: number,
    state: FinishedState,
    afterId: number,
    limit: number,
  ): Promise<FrontierRow[]>;
  /** Queues one finished URL again, keeping its seed and depth; its row if it was finished. */
  requeueFinished(id: number): Promise<FrontierRow | undefined>;
  /** As requeueFinished, due no sooner than `at` (a periodic refresh's spread). */
  requeueFinishedAt(id: number, at: number): Promise<FrontierRow | undefined>;
  /** Per seed: when its own URL was last finished, and whether URLs it found are still to do. */
  seedCrawls(): Promise<SeedCrawl[]>;
  /** Deletes up to `limit` URLs of a removed seed (leased ones too), returning them. */
  dropSeedChunk(seedId: number, limit: number): Promise<DroppedUrl[]>;
  /** One URL's row and state, if known. */
  urlByUrl(url: string): Promise<(FrontierRow & { state: string }) | undefined>;
  /** How many URLs each seed owns on each host (at start: the per-host URL and per-seed host budgets). */
  urlCountsBySeedAndOrigin(): Promise<Array<{ seedId: number; origin: string; n: number }>>;
  /** URL counts by host and state, in one scan (at start: each host's queued URLs for its window). */
  countsByOrigin(): Promise<Array<{ origin: string; state: string; n: number }>>;
}

/** Pages as the crawler writes them (db/pages.ts); new pages' full-text entries are written at the end of `transaction`. */
export interface CrawlPageStore {
  /** Inserts or replaces (by url, keeping the row id) a page, bumping its seq; answers its id. */
  upsertPage(p: PageRecord): Promise<number>;
  /**
   * Stores a page as upsertPage does and gathers its content links as gatherLinks does with its id, answering
   * nothing: the crawler stores a page for its links, not for its id, and an engine across a network holds
   * the write and reads the ids where the links are written (PostgreSQL: no round trip per page).
   */
  storePage(p: PageRecord, links: readonly LinkOut[]): Promise<void>;
  /** A page that answered 404/410: out of search, status updated, seq bumped. */
  markPageGone(url: string, status: number, fetchedAt: number): Promise<void>;
  /** A conditional re-fetch answered 304: the stored page is current as of `fetchedAt`. */
  markPageCurrent(url: string, fetchedAt: number): Promise<void>;
  /** Takes up to `limit` pages (or `maxBytes` of their text) of a removed seed out of search; answers how many. */
  retireSeedPages(seedId: number, limit: number, maxBytes?: number): Promise<number>;
}

/** Link targets (db/link-targets.ts): what links say of a URL. */
export interface CrawlLinkTargetStore {
  /** Gathers the content links of stored page `sourceId`, written at the end of the transaction (each target once). */
  gatherLinks(sourceId: number, links: readonly LinkOut[]): Promise<void>;
}

/** Hosts' rows (db/hosts.ts): robots status and rules, clocks, backoff, counts. */
export interface CrawlHostStore {
  /** Every known host (at start). */
  allHosts(): Promise<HostRow[]>;
  /** Writes a host's state (all but its robots.txt file). */
  saveHost(h: HostRow, now: number): Promise<void>;
  /** Writes a known host's robots.txt body and compiled rules. */
  saveRobotsFile(origin: string, body: string | null, rules: string | null): Promise<void>;
}

/** Sitemap jobs not over, and what each sitemap last answered (db/sitemap-jobs.ts). */
export interface CrawlSitemapJobStore {
  /** Records a queued sitemap job (nothing if its seed is gone). */
  rememberSitemapJob(job: SitemapJobRow): Promise<void>;
  /** The job is over: a restart does not read it again. */
  forgetSitemapJob(url: string): Promise<void>;
  /** Jobs not over when the crawler last stopped, in the order they were queued (at start). */
  pendingSitemapJobs(): Promise<SitemapJobRow[]>;
  /** Every sitemap's last validators, by URL (at start: the primary keeps them in memory for dispatch). */
  allSitemapValidators(): Promise<Map<string, SitemapValidators>>;
  /** Keeps what a sitemap answered for its next read; one that sent neither validator is forgotten. */
  rememberSitemapValidators(url: string, v: SitemapValidators): Promise<void>;
}

/** The seeds table as the crawler reads it (the server writes it; db/seeds.ts). */
export interface CrawlSeedStore {
  /** Seeds added, changed or removed at or after `updatedAt`. */
  seedsChangedSince(updatedAt: number): Promise<SeedChange[]>;
  /** Whether a seed is marked removed (false once deleted, or submitted again). */
  isRemoved(id: number): Promise<boolean>;
  /** Deletes a removed seed's row once none of its URLs and pages is left, unless it was submitted again. */
  deleteRemovedSeed(id: number): Promise<void>;
}

/** Each seed's count of hosts and refused links (db/seed-hosts.ts). */
export interface CrawlSeedHostStore {
  /** Writes one seed's figures. */
  saveSeedHosts(row: SeedHostsRow): Promise<void>;
  /** Every seed's figures (at start). */
  allSeedHosts(): Promise<SeedHostsRow[]>;
  /** Forgets a seed's figures (its removal is over). */
  forgetSeedHosts(seedId: number): Promise<void>;
}

/** How the crawler last stopped (db/crawler-stop.ts). */
export interface CrawlStopStore {
  /** The last stop: clean (everything stored) or not, and when hosts were last contacted. */
  lastStop(): Promise<CrawlerStop>;
  /** A run started: the next start treats a stop without the clean mark as a crash. */
  markRunning(contactedBy: number | null): Promise<void>;
  /** Everything is stored (the last batch of a clean stop). */
  markCleanStop(): Promise<void>;
}

/** Each fetched page's revisit state (db/revisits.ts). */
export interface CrawlRevisitStore {
  /** A page's revisit state, if it was ever fetched. */
  revisitOf(url: string): Promise<RevisitState | undefined>;
  /** The revisit states of `urls` that have one, by url (a batch's pages, read at once). */
  revisitsOf(urls: readonly string[]): Promise<Map<string, RevisitState>>;
  /** Writes a page's revisit state. */
  saveRevisit(url: string, st: RevisitState): Promise<void>;
  /** Remembers the lastmod its sitemap gave a page. */
  noteSitemapLastmod(url: string, ms: number): Promise<void>;
  /** Marks when a page (a seed's) was last judged. */
  markChecked(url: string, at: number): Promise<void>;
  /** A seed's finished URLs within `maxDepth`, with their revisit states: a refresh's candidates. */
  refreshCandidates(seedId: number, maxDepth: number): Promise<RevisitCandidate[]>;
}

/** A politeness group's lease as a crawler node holds it (db/pg/pg-leases.ts HeldLease): the group and its epoch. */
export interface GroupLeaseRef {
  group: string;
  epoch: number;
}

/** A lease's key in sets and maps: `group@epoch`. */
export const leaseKey = (l: GroupLeaseRef): string => `${l.group}@${l.epoch}`;

/**
 * The politeness leases as a batch and a take touch them (issue 29, db/pg/pg-group-work.ts): PostgreSQL's only.
 * SQLite has one crawler per DATA_DIR, so no leases, and its store has none of these.
 */
export interface CrawlLeaseStore {
  /** Marks these groups as having queued work, so that some node takes them. */
  noteWork(groups: readonly string[]): Promise<void>;
  /** Of `leases`, those `node` still holds at their epoch (by leaseKey), locked until the transaction ends (the fence). */
  stillHeld(node: string, leases: readonly GroupLeaseRef[]): Promise<Set<string>>;
  /** Puts the leased URLs of these origins back in the queue (their groups were just taken); answers how many. */
  returnLeasesOf(origins: readonly string[]): Promise<number>;
  /** The origins with queued or leased URLs that may belong to these groups (a superset in 'domain' mode). */
  originsOf(groups: readonly string[], mode: 'host' | 'domain'): Promise<GroupOrigin[]>;
  /**
   * The robots.txt Crawl-delay any node recorded for these origins (`hosts.crawl_delay_ms`, a duration: valid on
   * any node's clock), by origin; origins without one are left out.
   */
  crawlDelaysOf(origins: readonly string[]): Promise<Map<string, number>>;
}

/** An origin with URLs waiting, as a node that takes its group reads it. */
export interface GroupOrigin {
  origin: string;
  /** URLs queued. */
  queued: number;
  /** URLs leased (by a node that held the group before, or this one before it lost it). */
  leased: number;
}

/** The queries of the crawl tables, on the store (one statement each) or on a transaction (`tx`). */
export interface CrawlQueries {
  frontier: FrontierStore;
  pages: CrawlPageStore;
  linkTargets: CrawlLinkTargetStore;
  hosts: CrawlHostStore;
  sitemapJobs: CrawlSitemapJobStore;
  seeds: CrawlSeedStore;
  seedHosts: CrawlSeedHostStore;
  stops: CrawlStopStore;
  revisits: CrawlRevisitStore;
  /** One bounded step of merging removed pages' entries out of the full-text indexes; false once none are left. */
  compactSearchIndexStep(): Promise<boolean>;
  /** The politeness leases (PostgreSQL only; see CrawlLeaseStore). */
  leases?: CrawlLeaseStore;
}

/** The crawler primary's storage (see the module comment). */
export interface CrawlStore extends CrawlQueries {
  /**
   * Runs `write` in one transaction, its statements through `tx`; the full-text entries and link targets
   * of the pages it stored are written at its end (migration 0018). Resolves once committed; if `write`
   * or the commit throws, nothing of it is stored and the error is thrown on.
   */
  transaction(write: (tx: CrawlQueries) => Promise<void>): Promise<void>;
  /** Runs `reads` in one read transaction (many small reads that see one state), answering what it answers. */
  read<T>(reads: (q: CrawlQueries) => Promise<T>): Promise<T>;
}

/** Two transactions at once on the primary's connection: a bug of the caller (see the module comment's rules). */
export class CrawlStoreBusyError extends Error {
  constructor() {
    super(
      'crawl-store: a transaction is already open on the primary connection; the primary runs one transaction or read at a time (IntentApplier serializes them), so this is a bug of the caller',
    );
    this.name = 'CrawlStoreBusyError';
  }
}
