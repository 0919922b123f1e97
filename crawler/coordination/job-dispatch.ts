/**
 * Which job the crawler primary hands out, a part of the Coordinator: each job the scheduler releases is
 * judged here against its seed (a page or sitemap job of a removed seed is dropped without contacting
 * the host; a robots.txt job serves every seed of its host and always goes) and its host's robots rules (disallowed: skipped; expired: robots.txt asked for again first;
 * `later`: the host's turn ended on robots checks). A job to send gets its id, its lease (a write intent
 * for the next batch) and the stored validators that make the request conditional (a page's came with its
 * frontier row, a sitemap's and robots.txt's are in the hosts' book: nothing is read from storage). It only reads: the
 * DispatchDecision it returns is applied by intent-applier.ts (`dispatched`). Time comes in as arguments.
 */
import type { GroupLeaseRef } from '../../db/crawl-store.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { SeedBook } from '../frontier/seed-book.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { FetchJob } from '../common/protocol.ts';
import type { WriteIntent } from './write-intents.ts';

/** A job handed out; `conditional`: the request carried the stored page's validators. */
export interface InFlightJob {
  job: CrawlJob;
  origin: string;
  dispatchedAt: number;
  conditional: boolean;
  /** The lease of its group it was sent under (a crawler node on PostgreSQL): its writes are fenced by it. */
  fence?: GroupLeaseRef;
}

/** What becomes of a job the scheduler released (see JobDispatch.decide). */
export type DispatchDecision =
  /** Its seed was removed: dropped, the host not contacted (a sitemap job is over). */
  | { kind: 'drop' }
  /** The host's robots.txt expired: the job goes back unchanged, robots.txt is asked for first. */
  | { kind: 'robots-expired' }
  /** The host's turn ended on robots checks: the job waits for its next turn, other hosts go first. */
  | { kind: 'later' }
  /** Disallowed by robots.txt: skipped without contacting the host (`write`: a page's row, finished). */
  | { kind: 'disallowed'; write?: WriteIntent }
  /** Sent to a worker: `out` is what the worker gets, `lease` the page row's lease for the next batch. */
  | { kind: 'send'; out: FetchJob; inFlight: InFlightJob; lease?: WriteIntent };

/** What a JobDispatch reads (never changes). */
export interface DispatchReads {
  seeds: Pick<SeedBook, 'get'>;
  hosts: Pick<HostBook, 'robotsVerdict' | 'robotsValidators' | 'sitemapValidators'>;
  /** This primary's run: the owner of the leases it takes. */
  runId: string;
}

/** Judges each job released for an idle worker (see the module comment); it numbers the jobs it sends. */
export class JobDispatch {
  private nextJobId = 1;

  constructor(private readonly reads: DispatchReads) {}

  /**
   * What becomes of `job`, of host `origin`, released by the scheduler at `now`: dropped (its seed was
   * removed), held for robots.txt, skipped (disallowed) or sent, with its id, lease and validators.
   */
  decide(job: CrawlJob, origin: string, now: number): DispatchDecision {
    const live = job.kind === 'robots' || this.reads.seeds.get(job.seedId) !== undefined;
    if (!live) return { kind: 'drop' };
    if (job.kind !== 'robots') {
      const verdict = this.reads.hosts.robotsVerdict(origin, job.url, now);
      if (verdict === 'expired') return { kind: 'robots-expired' };
      if (verdict === 'later') return { kind: 'later' };
      if (verdict === 'disallowed') {
        if (job.kind !== 'page') return { kind: 'disallowed' };
        const note = 'disallowed by robots.txt';
        const at = now;
        return {
          kind: 'disallowed',
          write: { kind: 'finish-url', frontierId: job.frontierId, state: 'skipped', note, at, countAttempt: false },
        };
      }
    }
    const validators =
      job.kind === 'robots'
        ? this.reads.hosts.robotsValidators(job)
        : job.kind === 'sitemap'
          ? this.reads.hosts.sitemapValidators(job.url)
          : job.refetch
            ? job.validators // read with its frontier row (db/frontier.ts), none on a first crawl
            : undefined;
    const jobId = this.nextJobId++;
    const out: FetchJob = { jobId, kind: job.kind, url: job.url, origin };
    if (job.kind === 'robots') out.robotsFor = job.forOrigin; // the worker compiles the file for that origin
    if (validators) out.validators = { etag: validators.etag, lastModified: validators.lastModified }; // read before: asked for conditionally
    const inFlight = { job, origin, dispatchedAt: now, conditional: validators !== undefined };
    // The lease goes to disk with the next batch, not in a transaction of its own (a commit per request
    // cost 0.5 ms p99): a crash before it is covered at the next start (Coordinator.start).
    const lease: WriteIntent | undefined =
      job.kind === 'page'
        ? { kind: 'lease-url', frontierId: job.frontierId, owner: this.reads.runId, at: now }
        : undefined;
    return { kind: 'send', out, inFlight, lease };
  }
}
