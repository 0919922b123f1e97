/**
 * Which hosts' reports changed since the primary's last snapshot, found without describing them: the
 * server keeps every host's facts (server/domain-book.ts), so a snapshot carries only the hosts whose
 * facts differ from those sent last (crawler/common/protocol.ts CrawlSnapshot). At 10,000 hosts of which a few hundred
 * changed, a snapshot reads each host's counts and clocks (no allocation for a host that did not change)
 * and builds, copies and sends the facts of the others only. The default delay and the pacing settings are
 * the same for every host and set once at start (CRAWL_DELAY_MS, CRAWL_PACING_*), so they are not compared.
 * Time comes in.
 */
import type { HostRow } from '../../db/hosts.ts';
import type { CrawlJob } from '../common/crawl-job.ts';
import { reportRow, sameReportRow, type HostFacts } from './host-report.ts';
import type { Pace } from './pacing.ts';
import type { Scheduler } from './scheduler.ts';

/**
 * A host's facts as last sent, and the clock readings its delay was worked out from: the delay (and its
 * words) is worked out again only when one of them changed, or when a backoff ended since.
 */
interface SentHost {
  facts: HostFacts;
  crawlDelayMs: number | undefined;
  pace: Pace;
  hostBackoffUntil: number;
  groupBackoffUntil: number;
  groupLastEnd: number;
  /** Whether each backoff was running when the delay was worked out (delay-reason.ts counts only a running one). */
  hostBackingOff: boolean;
  groupBackingOff: boolean;
}

/** The facts last sent for each host, and what changed since (see the module comment). */
export class HostSnapshots {
  private readonly sent = new Map<string, SentHost>();

  constructor(private readonly scheduler: Scheduler<CrawlJob>) {}

  /**
   * The facts of each host in `rows` whose report changed since the last call (of every host when `full`),
   * and the URLs queued over all of them. `skipped(origin)`: its URLs robots.txt disallowed; `beyond(origin)`:
   * its queued URLs that are not in the scheduler (the frontier's window holds only the next few).
   */
  changed(
    rows: ReadonlyMap<string, HostRow>,
    now: number,
    full: boolean,
    skipped: (origin: string) => number,
    beyond: (origin: string) => number,
  ): { hosts: HostFacts[]; queued: number } {
    const hosts: HostFacts[] = [];
    let total = 0;
    for (const [origin, row] of rows) {
      const clock = this.scheduler.host(origin);
      const group = this.scheduler.group(origin);
      const queued = clock.queue.length + beyond(origin) + clock.priority.length + clock.inFlight;
      total += queued;
      const dueAt = this.scheduler.dueAt(origin);
      const robotsSkipped = skipped(origin);
      const hostBackingOff = clock.backoffUntil > now;
      const groupBackingOff = group.backoffUntil > now;
      // A backoff of a group that never answered is counted from now (delay-reason.ts): its delay changes as time goes.
      const timeBound = (hostBackingOff || groupBackingOff) && !Number.isFinite(group.lastEnd);
      const last = this.sent.get(origin);
      if (
        !full &&
        !timeBound &&
        last !== undefined &&
        last.facts.queued === queued &&
        last.facts.inFlight === clock.inFlight &&
        last.facts.dueAt === dueAt &&
        last.facts.robotsSkipped === robotsSkipped &&
        last.facts.group === clock.group &&
        last.crawlDelayMs === clock.crawlDelayMs &&
        last.pace === group.pace &&
        last.hostBackoffUntil === clock.backoffUntil &&
        last.groupBackoffUntil === group.backoffUntil &&
        last.groupLastEnd === group.lastEnd &&
        last.hostBackingOff === hostBackingOff &&
        last.groupBackingOff === groupBackingOff &&
        sameReportRow(row, last.facts.row)
      )
        continue;
      const facts: HostFacts = {
        row: reportRow(row), // a copy: the row changes in place, what was sent must not
        queued,
        inFlight: clock.inFlight,
        dueAt,
        delay: this.scheduler.delayReason(origin, now),
        robotsSkipped,
        group: clock.group,
      };
      this.sent.set(origin, {
        facts,
        crawlDelayMs: clock.crawlDelayMs,
        pace: group.pace,
        hostBackoffUntil: clock.backoffUntil,
        groupBackoffUntil: group.backoffUntil,
        groupLastEnd: group.lastEnd,
        hostBackingOff,
        groupBackingOff,
      });
      hosts.push(facts);
    }
    return { hosts, queued: total };
  }
}
