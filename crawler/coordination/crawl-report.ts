/**
 * The crawl's status as the crawler primary reports it, a part of the Coordinator: crawl-wide figures (URLs
 * queued, jobs in flight, workers, fetches in the last minute) and each host's facts, for the server's
 * /api/status and /api/domains (protocol.ts CrawlSnapshot), and a host's last requests. It reads the
 * HostBook and the frontier's window; it changes nothing they hold. Time comes in as arguments.
 */
import type { FrontierWindow } from '../frontier/frontier-window.ts';
import type { HostBook } from '../politeness/host-book.ts';
import type { HostFacts } from '../politeness/host-report.ts';
import type { CrawlStatus, DomainInfo, RequestLogEntry } from '../common/protocol.ts';

/** Describes the crawl for the server: the snapshots' figures and rows, and the fetch rate behind them. */
export class CrawlReport {
  private readonly fetchEnds: number[] = [];
  /** Entries of fetchEnds before this index are over a minute old (see crawlStatus). */
  private fetchEndsHead = 0;

  constructor(
    private readonly hosts: HostBook,
    private readonly window: FrontierWindow,
    /** Jobs in flight right now (the Coordinator's count). */
    private readonly inFlight: () => number,
  ) {}

  /** A fetch ended at `now`: it counts in the fetch rate for a minute. */
  fetchEnded(now: number): void {
    this.fetchEnds.push(now);
  }

  /** The last requests to a host, oldest first. */
  requests(origin: string): RequestLogEntry[] {
    return this.hosts.requests(origin);
  }

  /**
   * Crawl-wide figures and the facts of each host whose report changed since the last call (of every host
   * when `full`), for the server's /api/status and /api/domains (protocol.ts CrawlSnapshot).
   */
  snapshotChanges(now: number, workers: number, full = false): { status: CrawlStatus; hosts: HostFacts[] } {
    // "Queued" means the same in the header as in the rows (waiting or being fetched), so they add up.
    const { hosts, queued } = this.hosts.changedFacts(now, full, (origin) => this.window.beyond(origin));
    return { status: this.crawlStatus(now, workers, queued), hosts };
  }

  /**
   * Crawl-wide figures and every host's row at `now`: what /api/domains shows once the server has applied
   * the snapshots (tests read it here). Changes nothing the snapshots send.
   */
  snapshot(now: number, workers: number): { status: CrawlStatus; domains: DomainInfo[] } {
    const domains = this.hosts.describeAll(now, (origin) => this.window.beyond(origin));
    const queued = domains.reduce((sum, d) => sum + d.queued, 0);
    return { status: this.crawlStatus(now, workers, queued), domains };
  }

  /**
   * The crawl-wide figures; fetches that ended over a minute ago leave the rate's window. They are counted
   * past (fetchEndsHead) and cut off in one splice once they are half the array: shifting them one by one
   * cost O(n) each, 13 ms a snapshot at 2,400 fetches a second.
   */
  private crawlStatus(now: number, workers: number, queued: number): CrawlStatus {
    const ends = this.fetchEnds;
    while (this.fetchEndsHead < ends.length && ends[this.fetchEndsHead] < now - 60_000) this.fetchEndsHead++;
    if (this.fetchEndsHead * 2 > ends.length) {
      ends.splice(0, this.fetchEndsHead);
      this.fetchEndsHead = 0;
    }
    return { queued, inFlight: this.inFlight(), workers, fetchRatePerMin: ends.length - this.fetchEndsHead };
  }
}
