/**
 * The frontier's write intents: what a decision of the crawler primary asks of the frontier, the seeds and
 * their pages' removal, as data. Parts that decide (result-judge.ts, job-dispatch.ts, seed-lifecycle.ts)
 * return them; one applier (crawler/coordination/intent-applier.ts) writes them in the next batch's
 * transaction and applies what they did to memory only once it committed. `at` is the decision's time
 * (a row's finish, a lease); what the batch stamps with its commit's time says so.
 */
import type { FinishedState } from '../../db/frontier.ts';
import type { SeedInfo } from './seed-book.ts';

/** Where a seed's crawl again has got to: the finished state being queued again, and the last id done. */
export interface RequeueCursor {
  state: number;
  afterId: number;
}

/** A job that answered with a redirect, as following it needs it (see LinkIntake.followRedirect). */
export interface RedirectedJob {
  url: string;
  frontierId: number;
  seedId: number;
  depth: number;
  redirects: number;
  forOrigin: string;
}

/** One write the frontier side of a decision asks for (see the module comment). */
export type FrontierWrite =
  /** A page job handed out: its row is leased to this run (rides the next batch quietly). */
  | { kind: 'lease-url'; frontierId: number; owner: string; at: number }
  /** A URL's life ends: done, failed or skipped; `countAttempt` false for one never requested. */
  | {
      kind: 'finish-url';
      frontierId: number;
      state: FinishedState;
      note: string | null;
      at: number;
      countAttempt: boolean;
    }
  /** A URL is tried again at `notBefore`. */
  | { kind: 'retry-url'; frontierId: number; attempts: number; notBefore: number; error: string }
  /** A leased URL goes back to the queue (its worker died with a removed seed's job, or the crawl stops). */
  | { kind: 'return-lease'; frontierId: number }
  /** Links (or a sitemap's entries) of seed `seedId` found on `from`, already admitted: queued within the budgets. */
  | { kind: 'enqueue'; urls: readonly string[]; seedId: number; depth: number; from: string; at: number }
  /** A redirect judged acceptable: its target becomes a URL of its own, unless it closes a loop. */
  | { kind: 'follow-redirect'; job: RedirectedJob; target: string; at: number }
  /** Seeds of a long change (an import) taken in from `from` on, a chunk per batch (SEED_CHUNK). */
  | { kind: 'take-in-seeds'; seeds: readonly SeedInfo[]; from: number; recrawl: boolean }
  /** A removed seed's URLs deleted, a chunk per batch (URL_CHUNK). */
  | { kind: 'drop-seed-urls'; seedId: number }
  /** A removed seed's pages taken out of search, a chunk per batch (RETIRE_CHUNK, RETIRE_BYTES). */
  | { kind: 'retire-seed-pages'; seedId: number }
  /** One bounded step of giving removed pages' space in the full-text indexes back. */
  | { kind: 'compact-search' }
  /** A seed crawled again: its page and what it found queued again (`all`), or only those due (a refresh). */
  | { kind: 'recrawl-seed'; seed: SeedInfo; all: boolean; at: number }
  /** The next chunk of a seed's crawl again (unless the seed was removed meanwhile). */
  | { kind: 'requeue-seed-chunk'; seed: SeedInfo; from: RequeueCursor };
