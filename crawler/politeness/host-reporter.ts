import type { HostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import type { DomainInfo, FetchResult, RequestLogEntry } from '../common/protocol.ts';
import { describeHosts, RequestRing, type HostFacts } from './host-report.ts';
import { HostSnapshots } from './host-snapshot.ts';
import type { Scheduler } from './scheduler.ts';

/**
 * What the crawler primary tells of its hosts, a part of the HostBook: each host's last requests (its
 * timeline), and its report's facts (host-report.ts) read from its row and its clock, either those of the
 * hosts whose report changed since the last snapshot (host-snapshot.ts) or every host's at once. It reads
 * the HostBook's rows and changes none. Time comes in.
 */
export class HostReporter {
  private readonly rings = new Map<string, RequestRing>();
  /** What the server was sent of each host (changedFacts sends only what changed). */
  private readonly snapshots: HostSnapshots;

  constructor(
    private readonly scheduler: Scheduler<CrawlJob>,
    /** The HostBook's rows, read as they are at each report. */
    private readonly rows: ReadonlyMap<string, HostRow>,
    /** How many of a host's URLs its robots.txt rules disallowed (RobotsBook.skipped). */
    private readonly robotsSkipped: (origin: string) => number,
  ) {
    this.snapshots = new HostSnapshots(scheduler);
  }

  /** Adds a request that ended to its host's timeline (its last requests). */
  logRequest(
    origin: string,
    url: string,
    result: Pick<FetchResult, 'status' | 'startedAt' | 'endedAt' | 'error'>,
  ): void {
    const ring = this.rings.get(origin) ?? new RequestRing();
    this.rings.set(origin, ring);
    ring.push({
      url,
      status: result.status,
      startedAt: result.startedAt,
      durationMs: Math.round(result.endedAt - result.startedAt),
      error: result.error?.message ?? null,
    });
  }

  /** The last requests to a host, oldest first. */
  requests(origin: string): RequestLogEntry[] {
    return this.rings.get(origin)?.list() ?? [];
  }

  /** A host's facts as its report reads them at `now` (see changedFacts for `beyond`); `row` is the live row. */
  private factsOf(origin: string, row: HostRow, now: number, beyond: (origin: string) => number): HostFacts {
    const clock = this.scheduler.host(origin);
    return {
      row,
      queued: clock.queue.length + beyond(origin) + clock.priority.length + clock.inFlight,
      inFlight: clock.inFlight,
      dueAt: this.scheduler.dueAt(origin),
      delay: this.scheduler.delayReason(origin, now),
      robotsSkipped: this.robotsSkipped(origin),
      group: clock.group,
    };
  }

  /**
   * The facts of each host whose report changed since the last call (`full`: of every host), for the
   * server's /api/domains (it keeps the others: server/domain-book.ts), and the URLs queued over all
   * hosts (host-snapshot.ts). `beyond(origin)`: the host's queued URLs that are not in the scheduler (the
   * frontier's window holds only the next few; the rest wait in the database).
   */
  changedFacts(
    now: number,
    full: boolean,
    beyond: (origin: string) => number = () => 0,
  ): { hosts: HostFacts[]; queued: number } {
    return this.snapshots.changed(this.rows, now, full, this.robotsSkipped, beyond);
  }

  /** Every host's /api/domains row at `now`, sorted by host (see changedFacts for `beyond`); changes nothing. */
  describeAll(now: number, beyond: (origin: string) => number = () => 0): DomainInfo[] {
    const facts: HostFacts[] = [];
    for (const [origin, row] of this.rows) facts.push(this.factsOf(origin, row, now, beyond));
    return describeHosts(facts, now);
  }
}
