/**
 * What the crawler primary knows of a host, as it sends it to the server in its snapshots (protocol.ts
 * CrawlSnapshot): the host's facts, and the delay in force with the rule that set it
 * (crawler/politeness/delay-reason.ts explains it, host-report.ts describes the facts as a row of
 * /api/domains). Shapes of the protocol, so they stand on the floor below both sides. Types only.
 */
import type { HostRow } from '../../db/hosts.ts';

/**
 * The part of a host's stored row that its report reads: what the primary sends the server for it (its
 * robots.txt rules, validators and backoff length stay in the primary).
 */
export type HostReportRow = Pick<
  HostRow,
  | 'origin'
  | 'host'
  | 'robotsStatus'
  | 'robotsHttpStatus'
  | 'robotsFetchedAt'
  | 'crawlDelayMs'
  | 'backoffUntil'
  | 'backoffReason'
  | 'consecutiveErrors'
  | 'lastRequestStart'
  | 'lastRequestEnd'
  | 'fetchedCount'
  | 'errorCount'
  | 'lastError'
>;

/**
 * The facts about a host that its report is made of: its stored row and its live clock and counts. Pure
 * input, JSON-able (the primary sends them to the server in its snapshots, protocol.ts CrawlSnapshot), and
 * free of the time of the report: describeHost (crawler/politeness/host-report.ts) turns them into a row at
 * any `now`, so a host whose facts did not change need not be sent again.
 */
export interface HostFacts {
  row: HostReportRow;
  queued: number;
  inFlight: number;
  dueAt: number;
  /** The delay in force and the rule that set it (Scheduler.delayReason: default, Crawl-delay, pacing or backoff). */
  delay: DelayReason;
  robotsSkipped: number;
  /** The host's politeness group (its key); its clock is filled in by describeGroups. */
  group: string;
}

/** Which rule set the delay in force. */
export type DelayReasonSource = 'default' | 'crawl-delay' | 'pacing' | 'backoff' | 'retry-after';

/** The delay before a host's next request, which rule set it, and that in words for Domains. */
export interface DelayReason {
  ms: number;
  source: DelayReasonSource;
  text: string;
}
