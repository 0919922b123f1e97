/**
 * One host's window over the frontier (frontier-window.ts): its entries, its cursor (the queue position up
 * to which rows were read), and what waits beyond; and the page job of a frontier row.
 */
import type { FrontierRow } from '../../db/frontier.ts';
import type { CrawlJob } from '../common/crawl-job.ts';

/** The cursor of a host that has read nothing yet (next_attempt_at is never negative). */
export const START_AT = -1;

/** A host's window: its page jobs in the scheduler, its cursor, and what waits in the database beyond it. */
export interface HostWindow {
  readonly origin: string;
  /** Page jobs in the scheduler's queue: frontier id → next_attempt_at (the queue position is (at, id)). */
  readonly entries: Map<number, number>;
  tailAt: number;
  tailId: number;
  /** Queued rows may follow the cursor in the database. */
  more: boolean;
  /** The host's URLs waiting to be handed out: entries, rows beyond the cursor, retries not yet written. */
  waiting: number;
  /** Jobs gone back to the queue after the cursor, placed once their write is committed. */
  retries: CrawlJob[];
}

/** The page job of a frontier row; `origin` is the row's (passed when one string can serve every job of the host). */
export function pageJob(row: FrontierRow, origin: string = row.origin): CrawlJob {
  const job: CrawlJob = {
    notBefore: row.nextAttemptAt,
    kind: 'page',
    url: row.url,
    frontierId: row.id,
    seedId: row.seedId,
    depth: row.depth,
    attempts: row.attempts,
    redirects: row.redirects,
    forOrigin: origin,
    hops: 0,
    refetch: row.finishedBefore === 1,
  };
  if (job.refetch && (row.etag !== null || row.lastModified !== null))
    job.validators = { etag: row.etag, lastModified: row.lastModified };
  return job;
}

/** Whether queue position (at, id) comes after the host's cursor. */
export const afterCursor = (h: HostWindow, at: number, id: number): boolean =>
  at > h.tailAt || (at === h.tailAt && id > h.tailId);
