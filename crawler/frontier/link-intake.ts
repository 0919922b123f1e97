/**
 * Where discovered URLs enter the frontier, inside the coordinator's flush transaction: links and
 * sitemap entries already judged by admission.ts, and redirect targets (with loop detection). It keeps
 * the per-host URL budget (CRAWL_MAX_URLS_PER_HOST) in step with what the transaction stores: the rows
 * it added are handed back for scheduling only once the transaction committed.
 */
import type { frontierQueries, FrontierRow } from '../../db/frontier.ts';
import { budgetMessage, findRedirectLoop, loopMessage, UrlBudget } from './admission.ts';

/** The frontier queries the intake uses. */
type Frontier = ReturnType<typeof frontierQueries>;

/** What the intake tells the hosts' book (crawler/politeness/host-book.ts), which alone changes a host's row. */
export interface HostNotes {
  noteError(origin: string, message: string): void;
  noteBudgetSpent(origin: string, message: string): void;
}

export class LinkIntake {
  readonly budget: UrlBudget;
  private newRows: FrontierRow[] = [];

  constructor(private readonly frontier: Frontier, private readonly hosts: HostNotes, maxUrlsPerHost: number) {
    this.budget = new UrlBudget(maxUrlsPerHost);
  }

  /**
   * Queues a discovered URL unless its host's URL budget is spent (a known URL then only gains an
   * inlink; an unknown one is dropped and the host's row says why). Returns whether it is queued.
   */
  enqueue(url: string, seedId: number, depth: number, redirects: number, now: number): boolean {
    const origin = new URL(url).origin;
    if (!this.budget.hasRoom(origin)) {
      if (!this.frontier.touchUrl(url)) this.hosts.noteBudgetSpent(origin, budgetMessage(this.budget.limit));
      return false;
    }
    const row = this.frontier.addUrl({ url, origin, seedId, depth, redirects }, now);
    if (!row) return false;
    this.budget.add(origin);
    this.newRows.push(row);
    return true;
  }

  /**
   * A URL answered with a redirect to `target` (already judged acceptable): the target becomes a URL of
   * its own, unless it closes a redirect loop (every URL of the loop fails with a message saying so,
   * also the row of the job's host, `forOrigin`) or the budget is spent; a target already known only gains an inlink.
   */
  followRedirect(
    job: { url: string; frontierId: number; seedId: number; depth: number; redirects: number; forOrigin: string }, target: string, now: number,
  ): void {
    const loop = findRedirectLoop(job.url, target, (url) => this.frontier.redirectTarget(url));
    if (loop) {
      const message = loopMessage(loop);
      this.hosts.noteError(job.forOrigin, message);
      this.frontier.finishRedirect(job.frontierId, target, message, now, 'failed');
      for (const url of new Set(loop)) if (url !== job.url) this.frontier.failRedirectLoop(url, message);
      return;
    }
    if (this.frontier.touchUrl(target)) {
      this.frontier.finishRedirect(job.frontierId, target, `redirects to ${target} (already known)`, now);
      return;
    }
    if (!this.enqueue(target, job.seedId, job.depth, job.redirects + 1, now)) {
      const why = budgetMessage(this.budget.limit).replace(/^stopped following links: /, '');
      this.frontier.finishUrl(job.frontierId, 'failed', `redirects to ${target}, not followed: ${why}`, now);
      return;
    }
    this.frontier.finishRedirect(job.frontierId, target, `redirects to ${target}`, now);
  }

  /** The transaction committed: the budget keeps what it counted; returns the rows added, to schedule. */
  commit(): FrontierRow[] {
    this.budget.commit();
    const rows = this.newRows;
    this.newRows = [];
    return rows;
  }

  /** The transaction rolled back: nothing it added exists, nor counts. */
  rollback(): void {
    this.newRows = [];
    this.budget.rollback();
  }
}
