/**
 * How the delays of one politeness group combine, and the words for the delay in force. Pure.
 *
 * A request to host H of group G (politeness-group.ts) may start when all of these hold:
 *  1. G has no request in flight: one request at a time per group.
 *  2. gap(H) = max(default delay, H's robots.txt Crawl-delay, G's pacing) has passed since the end of
 *     G's last request, to whichever of its hosts. A Crawl-delay stays H's own (siblings with none are
 *     not held by it) but it is measured on the whole group: the quiet H's robots.txt asks for is
 *     quiet on the server, not only on that name. Pacing is the group's, fed by every answer of its
 *     hosts, because a group stands for one server and its response time is that server's load.
 *  3. H's own backoff has ended (its error streak, its Retry-After): it holds H only, never its siblings.
 *  4. G's backoff has ended: set only when an answer says the whole server is overloaded (503, 429:
 *     backoff.ts backoffScope).
 *  5. It is H's turn: hosts of G with work take turns, the one whose own wait (3, a retry's time, the
 *     end of its last request) ended longest ago first, ties by first seen. So a sibling may wait
 *     behind a host with a long Crawl-delay, but no host ever waits for ever behind busier siblings.
 * In 'host' grouping every group has one host and these are the rules Lantern always had.
 */
import { describePacing, pacingMs, seconds, type Pace, type PacingSettings } from './pacing.ts';
import type { DelayReason } from '../common/host-facts.ts';

export type { DelayReason, DelayReasonSource } from '../common/host-facts.ts';

/** Why a backoff was set: errors (exponential) or the site's own Retry-After. */
export type BackoffSource = 'backoff' | 'retry-after';

/** Rule 2's gap (ms), measured from the end of the group's last request. */
export function gapMs(defaultMs: number, crawlDelayMs: number | undefined, pacing: number): number {
  return Math.max(defaultMs, crawlDelayMs ?? 0, pacing);
}

/** What explainDelay needs: the host's and group's rules and clocks. */
export interface DelayFacts {
  defaultMs: number;
  crawlDelayMs: number | undefined;
  pace: Pace;
  pacing: PacingSettings;
  hostBackoff: { until: number; source: BackoffSource };
  groupBackoff: { until: number; source: BackoffSource };
  /** The group's key, to name it when its backoff is the reason. */
  group: string;
  /** End of the group's last request (-Infinity if none). */
  lastEnd: number;
  now: number;
}

/**
 * The delay in force for a host and the rule that set it: the largest of the default, Crawl-delay and
 * pacing (ties go to the earlier of these), unless a backoff running at `now` ends later, counted
 * from the group's last request (or from now if it had none), as /api/domains counts it.
 */
export function explainDelay(f: DelayFacts): DelayReason {
  let r: DelayReason = { ms: f.defaultMs, source: 'default', text: `${seconds(f.defaultMs)}: the default delay` };
  const crawl = f.crawlDelayMs ?? 0;
  if (crawl > r.ms) r = { ms: crawl, source: 'crawl-delay', text: `${seconds(crawl)}: robots.txt Crawl-delay` };
  const paced = pacingMs(f.pace, f.pacing);
  if (paced > r.ms) r = { ms: paced, source: 'pacing', text: `${seconds(paced)}: ${describePacing(f.pace, f.pacing)}` };
  const from = Number.isFinite(f.lastEnd) ? f.lastEnd : f.now;
  const host = f.hostBackoff;
  if (host.until > f.now && host.until - from > r.ms) {
    const ms = host.until - from;
    r = {
      ms,
      source: host.source,
      text: `${seconds(ms)}: ${host.source === 'retry-after' ? 'the site asked to wait (Retry-After)' : 'backing off after errors'}`,
    };
  }
  const group = f.groupBackoff;
  if (group.until > f.now && group.until - from > r.ms) {
    const ms = group.until - from;
    r = {
      ms,
      source: group.source,
      text: `${seconds(ms)}: ${group.source === 'retry-after' ? `a host of ${f.group} asked to wait (Retry-After)` : `backing off: a host of ${f.group} said the server is overloaded`}`,
    };
  }
  return r;
}
