import type { HostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { BACKOFF, nextBackoffMs, type BackoffRule, type BackoffScope } from './backoff.ts';
import type { Scheduler } from './scheduler.ts';

/** A failed request as its host counts it (the failure of crawler/coordination/page-outcome.ts has this shape). */
export interface HostFailure {
  /** For the host's row (its last error). */
  message: string;
  /** Whether it counts toward the host's error streak (it says something about the host). */
  streak: boolean;
  backoff: BackoffRule;
  /** Why the host is backed off, as /api/domains shows it, and the site's Retry-After if it gave one. */
  backoffReason: string;
  retryAfterMs: number | null;
  /** Whether a backoff holds the host only or its whole politeness group (backoff.ts backoffScope); host if absent. */
  scope?: BackoffScope;
}

/**
 * A host's error streak and backoff, a part of the HostBook: set and cleared in the host's row (which the
 * HostBook stores) and in the scheduler, which holds the host (and, for a 503 or 429, its whole politeness
 * group) until the backoff ends. The rules (how long, after how many errors) are backoff.ts's. Time comes in.
 */
export class HostBackoff {
  /** Groups whose backoff is set in the scheduler, so that a good answer clears it only when there is one. */
  private readonly groupBackedOff = new Set<string>();

  constructor(private readonly scheduler: Scheduler<CrawlJob>) {}

  /**
   * A request to host `h` failed (its row counted the error already): its error streak if the failure
   * counts toward it, and a backoff as the failure's rule says (at once, or once the streak reaches
   * BACKOFF.errorsBeforeBackoff). Returns when the backoff ends, if the host was backed off.
   */
  noteFailure(h: HostRow, now: number, failure: HostFailure): number | undefined {
    if (failure.streak) h.consecutiveErrors++;
    const backOff =
      failure.backoff === 'now' ||
      (failure.backoff === 'after-streak' && h.consecutiveErrors >= BACKOFF.errorsBeforeBackoff);
    return backOff ? this.backOff(h, now, failure.backoffReason, failure.retryAfterMs, failure.scope) : undefined;
  }

  /**
   * Backs host `h` off (Retry-After when given, else the next exponential step), and with `scope` 'group'
   * every host of its politeness group too (a 503 or 429: the server wants less); returns when it may be
   * contacted again. The group's backoff lives in the scheduler only: after a restart each host's own stays.
   */
  backOff(h: HostRow, now: number, reason: string, retryAfterMs: number | null, scope: BackoffScope = 'host'): number {
    h.backoffMs = retryAfterMs ?? nextBackoffMs(h.backoffMs);
    h.backoffUntil = now + h.backoffMs;
    h.backoffReason = reason;
    const source = retryAfterMs !== null ? 'retry-after' : 'backoff';
    this.scheduler.setBackoffUntil(h.origin, h.backoffUntil, source);
    if (scope === 'group') {
      this.scheduler.setGroupBackoffUntil(h.origin, h.backoffUntil, source);
      this.groupBackedOff.add(this.scheduler.groupOf(h.origin));
    }
    return h.backoffUntil;
  }

  /** Host `h` answered well: its error streak and backoff end (and its group's, if one is set). */
  clearBackoff(h: HostRow): void {
    const group = this.scheduler.groupOf(h.origin);
    if (this.groupBackedOff.delete(group)) this.scheduler.setGroupBackoffUntil(h.origin, 0);
    h.consecutiveErrors = 0;
    h.backoffMs = 0;
    h.backoffReason = null;
    if (h.backoffUntil !== 0) {
      h.backoffUntil = 0;
      this.scheduler.setBackoffUntil(h.origin, 0);
    }
  }
}
