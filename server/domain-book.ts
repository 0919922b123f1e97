/**
 * The server's copy of the crawl's hosts, from the crawler primary's snapshots (protocol.ts CrawlSnapshot):
 * a snapshot carries only the hosts whose facts changed since the primary's previous one (every host in a
 * primary's first), so the book keeps each host's last facts and turns them into /api/domains rows at the
 * latest snapshot's time, as the primary would have described every host then (host-report.ts). The rows
 * are made when asked for, at most once per snapshot: a crawl of thousands of hosts costs the server
 * nothing while nobody looks at Domains, and the primary's one thread never describes hosts at all.
 */
import { describeHosts, type HostFacts } from '../crawler/politeness/host-report.ts';
import type { CrawlSnapshot, DomainInfo } from '../crawler/common/protocol.ts';

/** Each host's last facts and the rows they make at the latest snapshot's time (see the module comment). */
export class DomainBook {
  private readonly facts = new Map<string, HostFacts>();
  /** The latest snapshot's time (the primary's clock, ms since the epoch). */
  private at = 0;
  /** The rows at `at`, until the next snapshot; null: to be made. */
  private described: DomainInfo[] | null = [];

  /** Takes in a snapshot: a full one replaces every host, a partial one the hosts it carries. */
  apply(snapshot: Pick<CrawlSnapshot, 'at' | 'full' | 'hosts'>): void {
    if (snapshot.full) this.facts.clear();
    for (const f of snapshot.hosts) this.facts.set(f.row.origin, f);
    this.at = snapshot.at;
    this.described = null;
  }

  /** Every host's row, sorted by host, as of the latest snapshot. Do not modify: it is shared until the next one. */
  rows(): DomainInfo[] {
    this.described ??= describeHosts(this.facts.values(), this.at);
    return this.described;
  }

  /** Rows given as they are (tests and benchmarks that stand in for a crawler), until the next snapshot replaces them. */
  replaceRows(rows: DomainInfo[]): void {
    this.facts.clear();
    this.described = rows;
  }
}
