/**
 * Jobs that come back to the queue without a result to judge, a part of the Coordinator: a job whose worker died
 * (`abandoned`: tried again, or failed after its last attempt), a job its worker did not send because its send limit
 * had passed (`unsent`: back as it was), and every job in flight when the crawl stops (`returnAll`). Each decides
 * the host's clock, the windows and the write intents; it never reads storage. Time comes in as arguments.
 */
import type { GroupLeaseRef } from '../../db/crawl-store.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { SeedBook } from '../frontier/seed-book.ts';
import { BACKOFF } from '../politeness/backoff.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { Scheduler } from '../politeness/scheduler.ts';
import type { InFlightJob } from './job-dispatch.ts';
import type { WriteIntent } from './write-intents.ts';

/** What a JobReturns changes: the Coordinator's parts. */
export interface JobReturnParts {
  scheduler: Pick<Scheduler<CrawlJob>, 'complete' | 'effectiveDelay' | 'add'>;
  window: Pick<FrontierWindow, 'readyAgain' | 'droppedInFlight' | 'retry' | 'putBack'>;
  hosts: Pick<HostBook, 'noteAbandoned' | 'sitemapDone' | 'sitemapReturned'>;
  seeds: Pick<SeedBook, 'get'>;
  /** Queues a write for the next batch, fenced by the lease its job was sent under (IntentApplier.push). */
  push(w: WriteIntent, fence: GroupLeaseRef | undefined): void;
}

/** Puts jobs back (see the module comment). */
export class JobReturns {
  constructor(private readonly parts: JobReturnParts) {}

  /**
   * A worker died with this job: the host's request is over, the URL goes back to the queue. When the
   * site saw its connection close is not known here (its server notices in its own time), so the
   * host's clock counts the request as ending one delay later: the host waits twice its delay.
   */
  abandoned(entry: InFlightJob, now: number, reason: string): void {
    const { scheduler, window, hosts } = this.parts;
    const { job, origin, fence } = entry;
    const push = (w: WriteIntent) => this.parts.push(w, fence);
    scheduler.complete(origin, now + scheduler.effectiveDelay(origin).ms);
    window.readyAgain(origin); // an empty window is read on by the next flush (see FrontierWindow.readyAgain)
    hosts.noteAbandoned(origin, now);
    const attempts = job.attempts + 1;
    if (job.kind === 'page' && !this.parts.seeds.get(job.seedId)) {
      // Its seed was removed: not tried again, but its row goes back to the queue (deleted with its seed's, or its own again should the seed come back).
      window.droppedInFlight(origin, job);
      push({ kind: 'return-lease', frontierId: job.frontierId });
      return;
    }
    if (job.kind !== 'robots' && attempts >= BACKOFF.maxAttempts) {
      if (job.kind === 'page')
        push({
          kind: 'finish-url',
          frontierId: job.frontierId,
          state: 'failed',
          note: reason,
          at: now,
          countAttempt: true,
        });
      else hosts.sitemapDone(job.url);
      return;
    }
    if (job.kind === 'page') {
      window.retry(origin, { ...job, attempts, notBefore: now });
      push({ kind: 'retry-url', frontierId: job.frontierId, attempts, notBefore: now, error: reason });
      return;
    }
    scheduler.add(origin, { ...job, attempts, notBefore: now }, job.kind === 'robots');
  }

  /**
   * A worker did not send a job: its send limit had passed (a crawler node paused past its lease, FetchJob.sendBy).
   * Nothing reached the site, so the job goes back to the queue as it was (no attempt counted, no backoff); its
   * host counts the request as ended now (its start was recorded at dispatch: the stored clock stays conservative).
   * Its group is most likely lost by now: the lease's return is fenced like any write of the group, and its job
   * waits in memory only until the lease loop drops the group's jobs.
   */
  unsent(entry: InFlightJob, now: number): void {
    const { scheduler, window, hosts } = this.parts;
    const { job, origin, fence } = entry;
    scheduler.complete(origin, -Infinity);
    window.readyAgain(origin);
    hosts.noteAbandoned(origin, now);
    if (job.kind === 'page') {
      window.putBack(origin, job);
      this.parts.push({ kind: 'return-lease', frontierId: job.frontierId }, fence);
    } else scheduler.add(origin, job, job.kind === 'robots');
  }

  /** Every job in flight goes back to the queue (the crawl is stopping); a sitemap's stored row stays for the next start. */
  returnAll(entries: Iterable<InFlightJob>): void {
    for (const { job, fence } of entries) {
      if (job.kind === 'page') this.parts.push({ kind: 'return-lease', frontierId: job.frontierId }, fence);
      else if (job.kind === 'sitemap') this.parts.hosts.sitemapReturned(job.url);
    }
  }
}
