/**
 * What a batch's writes did that memory must learn, gathered while its transaction runs and applied only
 * once it committed (crawler/coordination/commit-effects.ts). A batch that rolls back is simply dropped
 * with its BatchEffects: nothing in memory was changed, so nothing needs undoing.
 */
import type { DroppedUrl, FrontierRow } from '../../db/frontier.ts';
import type { FrontierWrite } from './frontier-writes.ts';
import type { SeedInfo } from './seed-book.ts';

/** A note for a host's row, from links taken in (see LinkIntake's HostNotes). */
export interface HostNote {
  kind: 'error' | 'trap' | 'budget-spent';
  origin: string;
  message: string;
}

/** The effects of one batch's writes (see the module comment). */
export class BatchEffects {
  /** Rows committed as queued: each goes to its host's window (and its host is seen). */
  readonly queued: FrontierRow[] = [];
  /** URLs new per seed and host written outside the intake (a seed's own URL): counted in both budgets. */
  readonly counted: Array<{ seedId: number; origin: string }> = [];
  /** Seeds taken in or crawled again: the sitemaps their host lists are read. */
  readonly sitemapsOf: SeedInfo[] = [];
  /** Removed seeds submitted again before their URLs were all deleted: their URLs are theirs again. */
  readonly revived: number[] = [];
  /** URLs of removed seeds deleted. */
  readonly deleted: Array<{ seedId: number; rows: DroppedUrl[] }> = [];
  /** Removed seeds whose URLs are all deleted. */
  readonly gone: number[] = [];
  /** Notes for hosts' rows, from links and redirects taken in. */
  readonly hostNotes: HostNote[] = [];
  /** Writes the next batch goes on with (the next chunk of a long seed change). */
  readonly followUps: FrontierWrite[] = [];
  /** Pages stored, and pages of removed seeds taken out of search. */
  pagesStored = 0;
  pagesRetired = 0;
  /** Seeds crawled again that had something to queue (a refresh's count). */
  recrawled = 0;
  /** Whether the follow-ups ask for the next batch at once. */
  urgent = false;
}
